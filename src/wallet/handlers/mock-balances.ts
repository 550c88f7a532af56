// Test mode: SetMockAppUserBalance and SetMockAppBalance set a balance directly.
// Historically they overwrote the balance column; here the difference is posted against `system:mock`, so the
// audit still balances. Without the node's mock controls both answer upstream's error.
import { mockDisabledReason, OperationError, type HandlerTable } from '../../bus/index.js'
import type { LightningNode } from '../../node/index.js'
import type { MoneyTransaction } from '../group-commit.js'
import type { AccountStore } from '../accounts.js'
import { appUserOrCreate } from '../app-users.js'
import { userAccount, type Ledger } from '../ledger.js'
import { nonNegativeSatsAsMsat } from '../msat.js'


export interface MockBalanceDeps {
  transaction: MoneyTransaction
  ledger: Ledger
  accounts: AccountStore
  node: LightningNode
  now(): number
}

const insertChange = 'INSERT INTO mock_balance_changes (user_id, from_msat, to_msat, changed_at) VALUES (?, ?, ?, ?) RETURNING serial'
const lockedBalance = 'SELECT balance_msat FROM users WHERE id = ? FOR UPDATE'

export function mockBalanceHandlers({ transaction, ledger, accounts, node, now }: MockBalanceDeps): HandlerTable {
  const setBalance = (userId: string, targetMsat: number) =>
    transaction(async tx => {
      // The difference is posted, so the balance it is taken from is locked first on PostgreSQL.
      const fromMsat =
        tx.engine === 'postgres'
          ? ((await tx.one<{ balance_msat: number }>(lockedBalance, [userId]))?.balance_msat ?? 0)
          : await ledger.balanceMsat(tx, userId)
      const at = now()
      const { serial } = (await tx.one<{ serial: number }>(insertChange, [userId, fromMsat, targetMsat, at]))!
      const delta = targetMsat - fromMsat
      await ledger.post(tx, {
        kind: 'mock_balance',
        ref: String(serial),
        legs: [
          { account: userAccount(userId), amountMsat: delta },
          { account: 'system:mock', amountMsat: -delta },
        ],
        at,
      })
    })

  const requireMock = () => {
    if (!node.mock) throw new OperationError('forbidden', mockDisabledReason)
  }

  return {
    SetMockAppUserBalance: async (input, ctx) => {
      // Upstream creates the user before it refuses; clients saw the user appear either way.
      const appUser = await appUserOrCreate(accounts, ctx.caller.appId, input.user_identifier)
      requireMock()
      await setBalance(appUser.user_id, nonNegativeSatsAsMsat(input.amount, 'amount'))
      return {}
    },
    SetMockAppBalance: async (input, ctx) => {
      requireMock()
      const app = (await accounts.appById(ctx.caller.appId))!
      await setBalance(app.owner_user_id, nonNegativeSatsAsMsat(input.amount, 'amount'))
      return {}
    },
  }
}
