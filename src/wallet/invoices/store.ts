// Invoice rows: what each invoice a wallet receives on carries for crediting, callbacks, zaps and extensions,
// and the paid mark that, with the ledger's `invoice_credit`, makes sure an invoice is credited at most once.
import type { SqlEngine, SqlExecutor, SqlStore } from '../../store/index.js'
import { paymentHashInRequest } from './request-hash.js'

export interface InvoiceRow {
  serial: number
  payment_hash: string
  payment_request: string
  user_id: string
  app_id: string | null
  amount_msat: number
  memo: string
  description_hash: string | null
  created_at: number
  expires_at: number
  paid_at: number | null
  paid_msat: number | null
  paid_internally: number | null
  settle_index: number | null
  payer_user_id: string | null
  product_id: string | null
  offer_id: string | null
  callback_url: string
  callback_token: string | null
  callback_reject_unauthorized: number
  payer_data: string | null
  zap_request: string | null
  blind: number
  extra: string | null
}

export interface NewInvoiceRow {
  paymentHash: string
  paymentRequest: string
  userId: string
  appId: string | null
  amountMsat: number
  memo: string
  descriptionHash: string | null
  createdAt: number
  expiresAt: number
  payerUserId: string | null
  productId: string | null
  offerId: string | null
  callbackUrl: string
  callbackToken: string | null
  callbackRejectUnauthorized: boolean
  payerData: string | null
  zapRequest: string | null
  blind: boolean
  extra: string | null
}

export interface PaidMark {
  /** The invoice's serial: its row is found by its key, not through a hash index at a random place. */
  invoiceSerial: number
  paidMsat: number
  paidAt: number
  internal: boolean
  settleIndex: number | null
}

/** BOLT11 is case-insensitive; invoices are stored and looked up in lower case. */
export const normalizedRequest = (paymentRequest: string) => paymentRequest.trim().toLowerCase()

const insertText = `INSERT INTO invoices
      (payment_hash, payment_request, user_id, app_id, amount_msat, memo, description_hash, created_at, expires_at,
       payer_user_id, product_id, offer_id, callback_url, callback_token, callback_reject_unauthorized, payer_data,
       zap_request, blind, extra)
      VALUES (@paymentHash, @paymentRequest, @userId, @appId, @amountMsat, @memo, @descriptionHash, @createdAt,
              @expiresAt, @payerUserId, @productId, @offerId, @callbackUrl, @callbackToken,
              @callbackRejectUnauthorized, @payerData, @zapRequest, @blind, @extra) RETURNING *`
const byHashText = 'SELECT * FROM invoices WHERE payment_hash = ?'
const markPaidText = `UPDATE invoices
      SET paid_at = @paidAt, paid_msat = @paidMsat, paid_internally = @internal, settle_index = @settleIndex
      WHERE serial = @invoiceSerial AND paid_at IS NULL`

/** The invoice statements of money transactions, on their `tx` (either engine). */
export const invoiceMoves = {
  async insert(tx: SqlExecutor, row: NewInvoiceRow): Promise<InvoiceRow> {
    return (await tx.one<InvoiceRow>(insertText, {
      ...row,
      paymentRequest: normalizedRequest(row.paymentRequest),
      callbackRejectUnauthorized: row.callbackRejectUnauthorized ? 1 : 0,
      blind: row.blind ? 1 : 0,
    }))!
  },
  /** The invoice as `on` (a money transaction) sees it. */
  byHashOn: (on: SqlExecutor, paymentHash: string) => on.one<InvoiceRow>(byHashText, [paymentHash.toLowerCase()]),
  /**
   * Marks an unpaid invoice paid; false when it was paid already (a redelivered settlement, or a race between an
   * internal payment and one over Lightning). Run it in the transaction that posts the credit.
   */
  async markPaid(tx: SqlExecutor, mark: PaidMark): Promise<boolean> {
    return (await tx.run(markPaidText, { ...mark, internal: mark.internal ? 1 : 0 })).changes === 1
  },
}

// An invoice's `extra.tag`, as each engine reads a JSON text (docs/postgres.md, the substitution table).
const extraTag: Record<SqlEngine, string> = {
  sqlite: "json_extract(extra, '$.tag')",
  postgres: "(extra::jsonb ->> 'tag')",
}
const texts = {
  forOffer: `SELECT * FROM invoices
      WHERE user_id = @userId AND offer_id = @offerId AND (@includeUnpaid = 1 OR paid_at IS NOT NULL) ORDER BY serial`,
  forgetExpired: (engine: SqlEngine) => `DELETE FROM invoices WHERE payment_hash = ? AND paid_at IS NULL AND expires_at <= ?
      AND extra IS NOT NULL AND ${extraTag[engine]} = ?`,
  exists: 'SELECT 1 AS one FROM invoices WHERE payment_hash = ?',
  paidTagged: (engine: SqlEngine) => `SELECT * FROM invoices
      WHERE extra IS NOT NULL AND ${extraTag[engine]} = ? AND paid_at IS NOT NULL ORDER BY paid_at, serial`,
}

/** The invoice rows as the wallet reads them outside money transactions (either engine), and the money statements. */
export function invoiceStore(sql: SqlStore) {
  return {
    ...invoiceMoves,
    /**
     * The invoice of ours whose text this is (any case, trimmed). Found through the hash the text names: an index
     * on the texts themselves would take every invoice at a random place in ~300 bytes a row
     * (082_invoices_without_request_index.sql).
     */
    async byRequest(paymentRequest: string): Promise<InvoiceRow | undefined> {
      const text = normalizedRequest(paymentRequest)
      const hash = paymentHashInRequest(text)
      if (hash === undefined) return undefined
      const row = await invoiceMoves.byHashOn(sql, hash)
      return row?.payment_request === text ? row : undefined
    },
    byHash: (paymentHash: string) => invoiceMoves.byHashOn(sql, paymentHash),
    forOffer: (userId: string, offerId: string, includeUnpaid: boolean) =>
      sql.many<InvoiceRow>(texts.forOffer, { userId, offerId, includeUnpaid: includeUnpaid ? 1 : 0 }),
    paidTagged: (tag: string) => sql.many<InvoiceRow>(texts.paidTagged(sql.engine), [tag]),
    /**
     * Deletes an unpaid invoice that expired by `now` and carries `extra.tag` = `tag`; true when it is gone (now or
     * before), false when it stays (paid, not expired, or another's). An unpaid invoice has no ledger posting. The
     * delete and the look that follows are one transaction: a settlement between them cannot make the answer lie.
     */
    forgetExpired: (paymentHash: string, tag: string, now: number): Promise<boolean> =>
      sql.transaction(async tx => {
        const hash = paymentHash.toLowerCase()
        await tx.run(texts.forgetExpired(tx.engine), [hash, now, tag])
        return (await tx.one(texts.exists, [hash])) === undefined
      }),
  }
}

export type InvoiceStore = ReturnType<typeof invoiceStore>

/** The invoice's `extra` as an object, or null. */
export function extraOf(row: InvoiceRow): Record<string, unknown> | null {
  return row.extra === null ? null : (JSON.parse(row.extra) as Record<string, unknown>)
}
