// What a debit's spend limit reads and writes inside the wallet's payment transaction (debit-budget.ts): the key's
// grant, the payments already made for its debits, and the record of this one. The wallet runs that transaction
// synchronously on the raw SQLite connection and calls the limit inside it, so these three statements stay on that
// connection until the wallet's money paths move to SqlStore (issue 27, step 2); the limit then gets the wallet's
// `tx` and these texts run on it unchanged (they are the engine-neutral ones of debit-store.ts).
import type { Db } from '../store/index.js'
import { debitStatements, type AccessRow } from './debit-store.js'

export interface DebitLimitStore {
  access(userId: string, requester: string): AccessRow | undefined
  /** The payments made for this key's debits of this user: what its budget sums over (the wallet's door sums them). */
  paymentHashes(userId: string, requester: string): string[]
  /**
   * `answer`: `paying` for a CLINK request's payment, `answered` when no requester waits (an API payment). False
   * when an earlier attempt at the same payment hash still has an answer to send.
   */
  recordPayment(p: {
    paymentHash: string; userId: string; requester: string; appId: string; requestId: string; answer: 'paying' | 'answered'; at: number
  }): boolean
}

export function debitLimitStore(db: Db): DebitLimitStore {
  const access = db.prepare(debitStatements.access)
  const paymentHashes = db.prepare(debitStatements.paymentHashes).pluck()
  const recordPayment = db.prepare(debitStatements.recordPayment)
  return {
    access: (userId, requester) => access.get(userId, requester) as AccessRow | undefined,
    paymentHashes: (userId, requester) => paymentHashes.all(userId, requester) as string[],
    recordPayment: p => recordPayment.run(p).changes > 0,
  }
}
