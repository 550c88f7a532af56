// The journal. `post` must run inside the same better-sqlite3 transaction as the business row that causes the
// balance change (an invoice marked paid, a payment row inserted): nothing here opens its own transaction, so a
// caller cannot split one change into two commits.
import { OperationError } from '../bus/index.js'
import type { Db } from '../store/index.js'

/** Accounts outside the wallets: where money enters and leaves the service. */
export type SystemAccount = 'system:lightning' | 'system:chain' | 'system:mock' | 'system:seized' | 'system:migration'
export type LedgerAccount = `user:${string}` | SystemAccount

export type LedgerKind =
  | 'invoice_credit' // an invoice of a wallet was paid (from outside, or internally)
  | 'payment_debit' // a wallet paid an invoice or an address (amount + service fee leave the wallet)
  | 'payment_settle' // an external payment settled: the fee not spent on routing goes to the app owner
  | 'payment_refund' // a confirmed failure gives the debit back
  | 'transfer' // wallet to wallet
  | 'ban' // the operator banned a user: the balance is seized
  | 'mock_balance' // test mode set a balance directly
  | 'balance_migration' // AddAppUser brought a balance from another system (`[apps] allow_balance_migration`)

export interface Leg {
  account: LedgerAccount
  amountMsat: number
}

export interface Posting {
  kind: LedgerKind
  ref: string
  legs: Leg[]
  at: number
}

export const userAccount = (userId: string): LedgerAccount => `user:${userId}`

export interface Ledger {
  /**
   * Posts one balanced transaction and moves the wallet balances with it. Returns false, changing nothing, when
   * (kind, ref) was posted before: the caller is replaying an event it already applied. Throws
   * `insufficient_balance` when a wallet would go below zero (the whole SQLite transaction then rolls back).
   */
  post(posting: Posting): boolean
  balanceMsat(userId: string): number
}

export function createLedger(db: Db): Ledger {
  const insertTransaction = db.prepare(
    'INSERT INTO ledger_transactions (kind, ref, created_at) VALUES (?, ?, ?) ON CONFLICT (kind, ref) DO NOTHING',
  )
  const insertEntry = db.prepare('INSERT INTO ledger_entries (transaction_id, account, amount_msat) VALUES (?, ?, ?)')
  const moveBalance = db.prepare(
    'UPDATE users SET balance_msat = balance_msat + @amount WHERE id = @id AND balance_msat + @amount >= 0',
  )
  const userExists = db.prepare('SELECT 1 FROM users WHERE id = ?').pluck()
  const balance = db.prepare('SELECT balance_msat FROM users WHERE id = ?').pluck()

  return {
    post({ kind, ref, legs, at }) {
      if (!db.inTransaction) throw new Error('ledger.post must run inside the transaction of its business row')
      let sum = 0
      for (const leg of legs) {
        if (!Number.isSafeInteger(leg.amountMsat)) throw new Error(`ledger: ${kind} ${ref} has a non-integer amount`)
        sum += leg.amountMsat
      }
      if (sum !== 0) throw new Error(`ledger: ${kind} ${ref} does not balance (${sum} msat)`)
      const inserted = insertTransaction.run(kind, ref, at)
      if (inserted.changes === 0) return false
      const transactionId = inserted.lastInsertRowid
      for (const leg of legs) {
        if (leg.amountMsat === 0) continue
        insertEntry.run(transactionId, leg.account, leg.amountMsat)
        if (!leg.account.startsWith('user:')) continue
        const id = leg.account.slice('user:'.length)
        if (moveBalance.run({ id, amount: leg.amountMsat }).changes === 0) {
          if (!userExists.get(id)) throw new Error(`ledger: no wallet ${id}`)
          throw new OperationError('insufficient_balance', 'not enough balance to decrement')
        }
      }
      return true
    },
    balanceMsat: userId => (balance.get(userId) as number | undefined) ?? 0,
  }
}
