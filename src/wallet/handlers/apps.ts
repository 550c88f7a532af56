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
import { maxWithdrawableSats } from '../fees.js'
import { msatAsSats } from '../../units/index.js'

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
  const application = async (app: AppRow) => ({
    name: app.name,
    id: app.id,
    balance: msatAsSats((await accounts.userById(app.owner_user_id))!.balance_msat),
    npub: app.nostr_public_key,
  })
  const appUserAnswer = async (identifier: string) => {
    const appUser = (await accounts.appUser(identifier))!
    const user = (await accounts.userById(appUser.user_id))!
    const info = await describeUser(user, appUser, deps)
    return { identifier, info, max_withdrawable: maxWithdrawableSats(info.balance, deps.fees) }
  }

  return {
    AddApp: async input => {
      const name = input.name.trim()
      if (name.length === 0) throw new OperationError('invalid_input', 'app name must not be empty')
      const exists = () => new OperationError('conflict', `an app named "${name}" already exists`)
      if (await accounts.appByName(name)) throw exists()
      // Two AddApp of one name at once: the second insert is refused by the unique name and rolls back whole.
      const app = await accounts.createApp(name, input.allow_user_creation).catch((err: unknown) => {
        throw sqlErrorKind(err) === 'unique' ? exists() : err
      })
      deps.emit({ type: 'app.added', appId: app.id, pubkey: app.nostr_public_key })
      return { app: await application(app), auth_token: await tokens.appToken(app.id, app.token_generation) }
    },
    AuthApp: async input => {
      const app = await accounts.appByName(input.name)
      if (!app) throw new OperationError('not_found', `no app named "${input.name}"`)
      if (input.allow_user_creation !== undefined) await accounts.setAllowUserCreation(app.id, input.allow_user_creation)
      return { app: await application((await accounts.appById(app.id))!), auth_token: await tokens.appToken(app.id, app.token_generation) }
    },
    GetApp: async (_input, ctx) => application((await accounts.appById(ctx.caller.appId))!),
    OperatorRotateAppToken: async input => {
      const app = await accounts.appById(input.app_id)
      if (!app) throw new OperationError('not_found', `no app with id "${input.app_id}"`)
      const generation = await accounts.rotateAppToken(app.id)
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
      const existing = await accounts.appUser(identifier)
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
      }).catch(async (err: unknown) => {
        const winner = sqlErrorKind(err) === 'unique' ? await accounts.appUser(identifier) : undefined
        if (!winner) throw err
        return winner
      })
      return winner === null ? appUserAnswer(identifier) : answerExisting(winner)
    },
    GetAppUser: async (input, ctx) => {
      const appUser = await accounts.appUser(input.user_identifier)
      if (!appUser || appUser.app_id !== ctx.caller.appId) throw new OperationError('not_found', 'user not found')
      return appUserAnswer(appUser.identifier)
    },
  }
}
