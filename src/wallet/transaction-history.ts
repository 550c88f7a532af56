// A wallet's money history as other rooms read it (the NWC room's list_transactions and lookup_invoice, payment
// notifications) and the sums a caller's spend limit reads inside a payment's transaction (a CLINK debit budget).
// Plain values, times unix ms: what a room needs from the invoices and payments tables without reading them.
import type { SqlExecutor, SqlStore } from '../store/index.js'

export type TransactionDirection = 'incoming' | 'outgoing'
export type TransactionState = 'pending' | 'settled' | 'expired' | 'failed'

/** One invoice issued to the wallet (incoming) or one payment attempt made from it (outgoing). */
export interface WalletTransaction {
  direction: TransactionDirection
  state: TransactionState
  paymentHash: string
  paymentRequest: string
  /** The invoice's memo; for an outgoing payment, the paid invoice's memo when it is one of ours, else null. */
  memo: string | null
  descriptionHash: string | null
  amountMsat: number
  /** Service fee plus routing fee of an outgoing payment; 0 for an incoming one. */
  feeMsat: number
  /** Known for an external payment that succeeded; null otherwise. */
  preimage: string | null
  createdAt: number
  expiresAt: number | null
  settledAt: number | null
}

export interface WalletTransactionQuery {
  /** Created at or after (unix ms). */
  fromMs: number
  /** Created at or before (unix ms). */
  untilMs: number
  limit: number
  offset: number
  /** Pending, expired and failed ones too; settled ones only otherwise. */
  unpaid: boolean
  direction?: TransactionDirection
}

/** The wallet's payments among a set of payment hashes, as a caller's spend limit reads them (see door.ts SpendLimit). */
export interface PaymentSums {
  /**
   * What the payments of `walletId` with these payment hashes take from it: amount + service fee of every pending
   * one whatever its age, and of every succeeded one resolved after `sinceMs`. Failed attempts take nothing.
   */
  spentMsat(on: SqlExecutor, walletId: string, paymentHashes: readonly string[], sinceMs: number): Promise<number>
}

// One wallet's invoices (incoming) and payments (outgoing), named as WalletTransaction names them. An internal
// payment's description is the paid invoice's memo; an external one's is not stored by the wallet.
const walletTransactions = `
  SELECT 'incoming' AS direction,
         CASE WHEN paid_at IS NOT NULL THEN 'settled' WHEN expires_at <= @now THEN 'expired' ELSE 'pending' END AS state,
         payment_hash AS "paymentHash", payment_request AS "paymentRequest", memo, description_hash AS "descriptionHash",
         COALESCE(paid_msat, amount_msat) AS "amountMsat", 0 AS "feeMsat", NULL AS preimage, created_at AS "createdAt",
         expires_at AS "expiresAt", paid_at AS "settledAt"
    FROM invoices WHERE user_id = @userId
  UNION ALL
  SELECT 'outgoing',
         CASE p.status WHEN 'succeeded' THEN 'settled' WHEN 'failed' THEN 'failed' ELSE 'pending' END,
         p.payment_hash, p.payment_request, i.memo, i.description_hash, p.amount_msat,
         p.service_fee_msat + COALESCE(p.routing_fee_msat, 0), p.preimage, p.created_at, i.expires_at,
         CASE WHEN p.status = 'succeeded' THEN p.resolved_at END
    FROM payments p LEFT JOIN invoices i ON i.payment_hash = p.payment_hash
   WHERE p.user_id = @userId`

// The hashes travel as one JSON array: no limit on how many, one statement for any number. The one statement
// that differs by engine: each has its own function that turns a JSON array into rows. Each hash is looked up in
// the live index (081_payments_failed_hash.sql; `status <> 'failed'` is its condition, written out so that it can
// be used). SQLite is told the order with CROSS JOIN: left to choose, it walked every payment of the wallet
// through payments_user, which grows with the wallet's history, inside the paying transaction.
const spentWhere = `p.payment_hash = h.value AND p.user_id = @userId AND p.status <> 'failed'
      AND (p.status = 'pending' OR (p.status = 'succeeded' AND p.resolved_at > @since))`
const spentText = {
  sqlite: `SELECT COALESCE(SUM(p.amount_msat + p.service_fee_msat), 0) AS spent
      FROM json_each(@hashes) h CROSS JOIN payments p WHERE ${spentWhere}`,
  postgres: `SELECT COALESCE(SUM(p.amount_msat + p.service_fee_msat), 0) AS spent
      FROM jsonb_array_elements_text(CAST(@hashes AS jsonb)) AS h(value) JOIN payments p ON ${spentWhere}`,
}

// Aliases quoted: PostgreSQL folds unquoted names to lower case. A parameter only compared with NULL is cast, or
// PostgreSQL cannot tell its type.
const texts = {
  page: `SELECT * FROM (${walletTransactions}) t
    WHERE (CAST(@direction AS TEXT) IS NULL OR direction = @direction) AND (@unpaid = 1 OR state = 'settled')
      AND "createdAt" >= @fromMs AND "createdAt" <= @untilMs
    ORDER BY "createdAt" DESC, "paymentHash" LIMIT @limit OFFSET @offset`,
  // A wallet paying its own invoice: the outgoing side answers; a retried payment: its latest attempt.
  byHash: `SELECT * FROM (${walletTransactions}) t WHERE "paymentHash" = @paymentHash
    ORDER BY direction DESC, "createdAt" DESC LIMIT 1`,
}

export function transactionHistory(sql: SqlStore) {
  return {
    /** Newest first. */
    list(walletId: string, query: WalletTransactionQuery, nowMs: number): Promise<WalletTransaction[]> {
      return sql.many<WalletTransaction>(texts.page, {
        userId: walletId,
        now: nowMs,
        direction: query.direction ?? null,
        unpaid: query.unpaid ? 1 : 0,
        fromMs: query.fromMs,
        untilMs: query.untilMs,
        limit: query.limit,
        offset: query.offset,
      })
    },
    byPaymentHash(walletId: string, paymentHash: string, nowMs: number): Promise<WalletTransaction | undefined> {
      return sql.one<WalletTransaction>(texts.byHash, { userId: walletId, paymentHash, now: nowMs })
    },
    sums: {
      async spentMsat(on, walletId, paymentHashes, sinceMs) {
        if (paymentHashes.length === 0) return 0
        const row = await on.one<{ spent: number }>(spentText[on.engine], { userId: walletId, hashes: JSON.stringify(paymentHashes), since: sinceMs })
        return Number(row?.spent ?? 0)
      },
    } satisfies PaymentSums,
  }
}

export type TransactionHistory = ReturnType<typeof transactionHistory>
