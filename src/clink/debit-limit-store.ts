// What a debit's spend limit reads and writes inside the wallet's payment transaction (debit-budget.ts): the key's
// grant, the payments already made for its debits, and the record of this one. They run on the wallet's `tx` (the
// payment's transaction, on either engine): the texts are the engine-neutral ones of debit-store.ts.
import type { SqlExecutor } from '../store/index.js'
import { debitStatements, type AccessRow } from './debit-store.js'

export interface DebitLimitStore {
  access(tx: SqlExecutor, userId: string, requester: string): Promise<AccessRow | undefined>
  /** The payments made for this key's debits of this user: what its budget sums over (the wallet's door sums them). */
  paymentHashes(tx: SqlExecutor, userId: string, requester: string): Promise<string[]>
  /**
   * `answer`: `paying` for a CLINK request's payment, `answered` when no requester waits (an API payment). False
   * when an earlier attempt at the same payment hash still has an answer to send.
   */
  recordPayment(tx: SqlExecutor, p: {
    paymentHash: string; userId: string; requester: string; appId: string; requestId: string; answer: 'paying' | 'answered'; at: number
  }): Promise<boolean>
}

export function debitLimitStore(): DebitLimitStore {
  return {
    access: (tx, userId, requester) => tx.one<AccessRow>(debitStatements.access, [userId, requester]),
    paymentHashes: async (tx, userId, requester) =>
      (await tx.many<{ payment_hash: string }>(debitStatements.paymentHashes, [userId, requester])).map(row => row.payment_hash),
    recordPayment: async (tx, p) => (await tx.run(debitStatements.recordPayment, p)).changes > 0,
  }
}
