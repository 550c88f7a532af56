// The journal. `post` runs on the `tx` of the transaction that writes the business row causing the balance change
// (an invoice marked paid, a payment row inserted): nothing here opens its own transaction, so a caller cannot
// split one change into two commits. The same statements on SQLite and PostgreSQL (SqlStore).
import { OperationError } from '../bus/index.js'
import type { SqlExecutor } from '../store/index.js'

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

/**
 * A paid invoice's credit: the payee's wallet gains what came in over Lightning (or from a payer here). Its ref is
 * the invoice's serial (migration 083), as the postings of payments, transfers, bans and test balances name their
 * rows: a serial is taken in order, so the journal's (kind, ref) index takes each credit at its end. The payment
 * hash it was before is random, and at a million journal rows every credit cost a page read and a dirty page of
 * that index.
 */
export const invoiceCredit = (invoice: { serial: number; user_id: string }, amountMsat: number, at: number): Posting => ({
  kind: 'invoice_credit',
  ref: String(invoice.serial),
  legs: [
    { account: userAccount(invoice.user_id), amountMsat },
    { account: 'system:lightning', amountMsat: -amountMsat },
  ],
  at,
})

/** What a posting did: each wallet it moved, with the balance it left (user id → msat). */
export interface Posted {
  balances: ReadonlyMap<string, number>
}

export interface Ledger {
  /**
   * Posts one balanced transaction on `tx` and moves the wallet balances with it, each by one guarded UPDATE (the
   * CHECK on users.balance_msat refuses a negative balance as well, on both engines). Returns false, changing
   * nothing, when (kind, ref) was posted before: the caller is replaying an event it already applied. Throws
   * `insufficient_balance` when a wallet would go below zero; the caller's transaction (or savepoint) then rolls
   * back. Legs are applied in account order, so two postings over the same wallets lock them in the same order.
   */
  post(tx: SqlExecutor, posting: Posting): Promise<Posted | false>
  balanceMsat(on: SqlExecutor, userId: string): Promise<number>
  /**
   * A wallet's balance after `postings` (in the order they were made on `tx`): what the last one that moved it left,
   * read from the books only when none did.
   */
  balanceAfter(on: SqlExecutor, userId: string, ...postings: (Posted | false)[]): Promise<number>
}

const statements = {
  insertTransaction:
    'INSERT INTO ledger_transactions (kind, ref, created_at) VALUES (?, ?, ?) ON CONFLICT (kind, ref) DO NOTHING RETURNING id',
  moveBalance:
    'UPDATE users SET balance_msat = balance_msat + @amount WHERE id = @id AND balance_msat + @amount >= 0 RETURNING balance_msat',
  balance: 'SELECT balance_msat FROM users WHERE id = ?',
}

/**
 * A posting's entries in one INSERT (a statement per leg was two to four statements more on every payment): the
 * text for `legs` legs, made once per count.
 */
const insertEntries: string[] = []
const insertEntriesText = (legs: number) =>
  (insertEntries[legs] ??= `INSERT INTO ledger_entries (transaction_id, account, amount_msat) VALUES ${Array.from({ length: legs }, () => '(?, ?, ?)').join(', ')}`)

/** "1,200 sats", "1 sat", "0.5 sats": an amount as a person reads it, to the msat. */
function satsText(msat: number): string {
  const sats = msat / 1000
  return `${sats.toLocaleString('en-US', { maximumFractionDigits: 3 })} ${sats === 1 ? 'sat' : 'sats'}`
}

export function createLedger(): Ledger {
  const balanceMsat = async (on: SqlExecutor, userId: string) =>
    (await on.one<{ balance_msat: number }>(statements.balance, [userId]))?.balance_msat ?? 0
  return {
    async post(tx, { kind, ref, legs, at }) {
      let sum = 0
      for (const leg of legs) {
        if (!Number.isSafeInteger(leg.amountMsat)) throw new Error(`ledger: ${kind} ${ref} has a non-integer amount`)
        sum += leg.amountMsat
      }
      if (sum !== 0) throw new Error(`ledger: ${kind} ${ref} does not balance (${sum} msat)`)
      const inserted = await tx.one<{ id: number }>(statements.insertTransaction, [kind, ref, at])
      if (!inserted) return false
      const moving = legs
        .filter(leg => leg.amountMsat !== 0)
        .sort((a, b) => (a.account < b.account ? -1 : a.account > b.account ? 1 : 0))
      const balances = new Map<string, number>()
      if (moving.length === 0) return { balances }
      await tx.run(insertEntriesText(moving.length), moving.flatMap(leg => [inserted.id, leg.account, leg.amountMsat]))
      for (const leg of moving) {
        if (!leg.account.startsWith('user:')) continue
        const id = leg.account.slice('user:'.length)
        const moved = await tx.one<{ balance_msat: number }>(statements.moveBalance, { id, amount: leg.amountMsat })
        if (moved) {
          balances.set(id, moved.balance_msat)
          continue
        }
        const held = await tx.one<{ balance_msat: number }>(statements.balance, [id])
        if (!held) throw new Error(`ledger: no wallet ${id}`)
        // Upstream's words first (clients may match them), then what a person needs to act on.
        throw new OperationError(
          'insufficient_balance',
          `not enough balance to decrement: the wallet holds ${satsText(held.balance_msat)}, this needs ${satsText(-leg.amountMsat)}`,
        )
      }
      return { balances }
    },
    balanceMsat,
    async balanceAfter(on, userId, ...postings) {
      for (let i = postings.length - 1; i >= 0; i--) {
        const posting = postings[i]
        const left = posting ? posting.balances.get(userId) : undefined
        if (left !== undefined) return left
      }
      return balanceMsat(on, userId)
    },
  }
}

/**
 * Reads the `locked` flag of these wallets, locking their rows in id order on PostgreSQL (FOR UPDATE) for the rest
 * of the transaction: every money transaction that takes its wallets this way, before the journal moves them,
 * waits for another over the same wallets instead of deadlocking with it. SQLite has one writer at a time.
 */
export async function lockWallets(tx: SqlExecutor, ids: readonly (string | null)[]): Promise<Map<string, number>> {
  const wanted = [...new Set(ids.filter((id): id is string => id !== null))].sort()
  const placeholders = wanted.map(() => '?').join(', ')
  const rows = await tx.many<{ id: string; locked: number }>(
    `SELECT id, locked FROM users WHERE id IN (${placeholders}) ORDER BY id${tx.engine === 'postgres' ? ' FOR UPDATE' : ''}`,
    wanted,
  )
  return new Map(rows.map(row => [row.id, row.locked]))
}
