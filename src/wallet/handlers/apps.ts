// Applications and their users: AddApp, AuthApp, GetApp (operator and app side), AddAppUser, GetAppUser.
import { type HandlerTable, OperationError } from '../../bus/index.js'
import type { TokenSigner } from '../../auth/index.js'
import { sqlErrorKind } from '../../store/index.js'
import type { DomainEvent } from '../../bus/index.js'
import type { AccountStore, AppRow, AppUserRow } from '../accounts.js'
import type { MoneyTransaction } from '../group-commit.js'
import { userAccount, type Ledger } from '../ledger.js'
import { positiveSatsAsMsat } from '../msat.js'
import { describeUser, type UserInfoDeps } from '../describe-user.js'
import { maxWithdrawableSats, msatToSats } from '../fees.js'

export interface AppHandlerDeps extends UserInfoDeps {
  accounts: AccountStore
  ledger: Ledger
  transaction: MoneyTransaction
  now(): number
  tokens: TokenSigner
  allowBalanceMigration: boolean
  emit(event: DomainEvent): void
}

export function appHandlers(deps: AppHandlerDeps): HandlerTable {
  const { accounts, tokens } = deps
  const application = (app: AppRow) => ({
    name: app.name,
    id: app.id,
    balance: msatToSats(accounts.userById(app.owner_user_id)!.balance_msat),
    npub: app.nostr_public_key,
  })
  const appUserAnswer = (identifier: string) => {
    const appUser = accounts.appUser(identifier)!
    const user = accounts.userById(appUser.user_id)!
    const info = describeUser(user, appUser, deps)
    return { identifier, info, max_withdrawable: maxWithdrawableSats(info.balance, deps.fees) }
  }

  return {
    AddApp: async input => {
      const name = input.name.trim()
      if (name.length === 0) throw new OperationError('invalid_input', 'app name must not be empty')
      if (accounts.appByName(name)) throw new OperationError('conflict', `an app named "${name}" already exists`)
      const app = accounts.createApp(name, input.allow_user_creation)
      deps.emit({ type: 'app.added', appId: app.id, pubkey: app.nostr_public_key })
      return { app: application(app), auth_token: await tokens.appToken(app.id, app.token_generation) }
    },
    AuthApp: async input => {
      const app = accounts.appByName(input.name)
      if (!app) throw new OperationError('not_found', `no app named "${input.name}"`)
      if (input.allow_user_creation !== undefined) accounts.setAllowUserCreation(app.id, input.allow_user_creation)
      return { app: application(accounts.appById(app.id)!), auth_token: await tokens.appToken(app.id, app.token_generation) }
    },
    GetApp: async (_input, ctx) => application(accounts.appById(ctx.caller.appId)!),
    OperatorRotateAppToken: async input => {
      const app = accounts.appById(input.app_id)
      if (!app) throw new OperationError('not_found', `no app with id "${input.app_id}"`)
      const generation = accounts.rotateAppToken(app.id)
      return { app_id: app.id, name: app.name, auth_token: await tokens.appToken(app.id, generation) }
    },
    AddAppUser: async (input, ctx) => {
      const identifier = input.identifier.trim()
      if (identifier.length === 0 || identifier.length > 256) {
        throw new OperationError('invalid_input', 'identifier must be 1 to 256 characters')
      }
      if (input.balance !== 0 && !deps.allowBalanceMigration) {
        throw new OperationError('invalid_input', 'balance must be 0 (balance migration is disabled: [apps] allow_balance_migration = false)')
      }
      // Zero is no migration; anything else must be a positive amount that stays exact in msat.
      const migratedMsat = input.balance === 0 ? 0 : positiveSatsAsMsat(input.balance, 'balance')
      const answerExisting = (existing: AppUserRow) => {
        if (input.fail_if_exists) throw new OperationError('conflict', 'user already exists')
        if (existing.app_id !== ctx.caller.appId) throw new OperationError('conflict', 'identifier is taken by another app')
        return appUserAnswer(identifier)
      }
      const existing = accounts.appUser(identifier)
      if (existing) return answerExisting(existing)
      // The new user and its migrated balance commit together, the balance as a posting from `system:migration`.
      // A call that created the same identifier meanwhile wins: this one's insert is refused (unique) and rolls back
      // with its balance, and it answers as for an existing user.
      const winner = await deps.transaction(async (tx): Promise<AppUserRow | null> => {
        const appUser = await accounts.createAppUserOn(tx, ctx.caller.appId, identifier)
        if (migratedMsat > 0) {
          await deps.ledger.post(tx, {
            kind: 'balance_migration',
            ref: appUser.user_id,
            legs: [
              { account: userAccount(appUser.user_id), amountMsat: migratedMsat },
              { account: 'system:migration', amountMsat: -migratedMsat },
            ],
            at: deps.now(),
          })
        }
        return null
      }).catch((err: unknown) => {
        const winner = sqlErrorKind(err) === 'unique' ? accounts.appUser(identifier) : undefined
        if (!winner) throw err
        return winner
      })
      return winner === null ? appUserAnswer(identifier) : answerExisting(winner)
    },
    GetAppUser: async (input, ctx) => {
      const appUser = accounts.appUser(input.user_identifier)
      if (!appUser || appUser.app_id !== ctx.caller.appId) throw new OperationError('not_found', 'user not found')
      return appUserAnswer(appUser.identifier)
    },
  }
}
