// The receipts owed to offer requesters (clink_receipts, schema/sql/050_clink_offers.sql). Written once on the
// engine-neutral SqlStore. A receipt is claimed by one guarded statement before it is sent: of two
// callers (the paid-invoice event and the flush at start) exactly one gets it, so it goes out at most once.
import type { SqlExecutor } from '../store/index.js'

export interface OwedReceipt {
  paymentHash: string
  appId: string
  requester: string
  requestId: string
  /** The invoice's expiry (unix ms): an unpaid invoice's receipt is forgotten after it. */
  expiresAt: number
}

export interface ReceiptRow {
  payment_hash: string
  app_id: string
  requester: string
  request_id: string
  expires_at: number
}

export interface ReceiptStore {
  /** Owes a receipt for this invoice; one per payment hash (a second is ignored). */
  owe(receipt: OwedReceipt): Promise<void>
  /** The receipt owed for this invoice, if one is owed and not yet sent. */
  owed(paymentHash: string): Promise<ReceiptRow | undefined>
  /** Every receipt owed and not yet sent, soonest expiry first. */
  allOwed(): Promise<ReceiptRow[]>
  /** Marks it sent; true for the one caller that did. */
  claim(paymentHash: string, at: number): Promise<boolean>
  /** Drops an unsent receipt (its invoice expired long ago or is gone). */
  forget(paymentHash: string): Promise<void>
}

const columns = 'payment_hash, app_id, requester, request_id, expires_at'

export function receiptStore(sql: SqlExecutor): ReceiptStore {
  return {
    owe: async receipt =>
      void (await sql.run(
        `INSERT INTO clink_receipts (payment_hash, app_id, requester, request_id, expires_at)
         VALUES (@paymentHash, @appId, @requester, @requestId, @expiresAt) ON CONFLICT (payment_hash) DO NOTHING`,
        { ...receipt },
      )),
    owed: paymentHash => sql.one<ReceiptRow>(`SELECT ${columns} FROM clink_receipts WHERE payment_hash = ? AND sent_at IS NULL`, [paymentHash]),
    allOwed: () => sql.many<ReceiptRow>(`SELECT ${columns} FROM clink_receipts WHERE sent_at IS NULL ORDER BY expires_at, payment_hash`),
    claim: async (paymentHash, at) =>
      (await sql.run('UPDATE clink_receipts SET sent_at = ? WHERE payment_hash = ? AND sent_at IS NULL', [at, paymentHash])).changes === 1,
    forget: async paymentHash => void (await sql.run('DELETE FROM clink_receipts WHERE payment_hash = ? AND sent_at IS NULL', [paymentHash])),
  }
}
