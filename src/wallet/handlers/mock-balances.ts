// Test mode (reference/pub-protocol.md §8.2): SetMockAppUserBalance and SetMockAppBalance set a balance directly.
// Historically they overwrote the balance column; here the difference is posted against `system:mock`, so the
// audit still balances. Without the node's mock controls both answer upstream's error.
import { OperationError, type HandlerTable } from '../../bus/index.js'
import type { LightningNode } from '../../node/index.js'
import type { Db } from '../../store/index.js'
import type { AccountStore } from '../accounts.js'
import { appUserOrCreate } from '../app-users.js'
import { userAccount, type Ledger } from '../ledger.js'
import { nonNegativeSatsAsMsat } from '../msat.js'

/** Upstream's answer since its mock node was removed; clients may match on it. */
export const mockDisabledReason =
  'mock disabled, cannot set invoice as paid: test mode is off; turn it on with [node] mock = true (env RELAYPAY_NODE_MOCK=true), for tests and demos only'

export interface MockBalanceDeps {
  db: Db
  ledger: Ledger
  accounts: AccountStore
  node: LightningNode
  now(): number
}

export function mockBalanceHandlers({ db, ledger, accounts, node, now }: MockBalanceDeps): HandlerTable {
  const insertChange = db.prepare('INSERT INTO mock_balance_changes (user_id, from_msat, to_msat, changed_at) VALUES (?, ?, ?, ?)')

  const setBalance = db.transaction((userId: string, targetMsat: number) => {
    const fromMsat = ledger.balanceMsat(userId)
    const at = now()
    const serial = insertChange.run(userId, fromMsat, targetMsat, at).lastInsertRowid
    const delta = targetMsat - fromMsat
    ledger.post({
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
      const appUser = appUserOrCreate(accounts, ctx.caller.appId, input.user_identifier)
      requireMock()
      setBalance(appUser.user_id, nonNegativeSatsAsMsat(input.amount, 'amount'))
      return {}
    },
    SetMockAppBalance: async (input, ctx) => {
      requireMock()
      const app = accounts.appById(ctx.caller.appId)!
      setBalance(app.owner_user_id, nonNegativeSatsAsMsat(input.amount, 'amount'))
      return {}
    },
  }
}
