// NIP-47 transaction objects read from the wallet's tables (schema/sql/004_invoices_payments.sql). The wallet's
// door answers one invoice or payment by hash but has no history listing, balance-by-id read or paging, so this
// room reads those tables itself — read-only, never writing a wallet table — and says so in the issue report.
import type { Db } from '../store/index.js'

export type TransactionType = 'incoming' | 'outgoing'
export type TransactionState = 'pending' | 'settled' | 'expired' | 'failed'

/** NIP-47's transaction object: amounts msat, times unix seconds. */
export interface NwcTransaction {
  type: TransactionType
  state: TransactionState
  invoice: string
  description: string
  description_hash?: string
  preimage?: string
  payment_hash: string
  amount: number
  fees_paid: number
  created_at: number
  expires_at?: number
  settled_at?: number
}

export interface TransactionQuery {
  from?: number
  until?: number
  limit?: number
  offset?: number
  unpaid?: boolean
  type?: TransactionType
}

interface TransactionRow {
  type: TransactionType
  state: TransactionState
  payment_hash: string
  payment_request: string
  memo: string | null
  description_hash: string | null
  amount_msat: number
  fee_msat: number
  preimage: string | null
  created_at: number
  expires_at: number | null
  settled_at: number | null
}

/** Pages larger than this are cut: NIP-47 asks clients for ≤ 20 and relays may refuse big events. */
export const maxTransactionsPerPage = 50

// One wallet's invoices (incoming) and payments (outgoing) as NIP-47 rows; times stay unix ms until the edge.
// An internal payment's description is the paid invoice's memo; an external one's is not stored by the wallet.
const walletTransactions = `
  SELECT 'incoming' AS type,
         CASE WHEN paid_at IS NOT NULL THEN 'settled' WHEN expires_at <= @now THEN 'expired' ELSE 'pending' END AS state,
         payment_hash, payment_request, memo, description_hash, COALESCE(paid_msat, amount_msat) AS amount_msat,
         0 AS fee_msat, NULL AS preimage, created_at, expires_at, paid_at AS settled_at
    FROM invoices WHERE user_id = @userId
  UNION ALL
  SELECT 'outgoing',
         CASE p.status WHEN 'succeeded' THEN 'settled' WHEN 'failed' THEN 'failed' ELSE 'pending' END,
         p.payment_hash, p.payment_request, i.memo, i.description_hash, p.amount_msat,
         p.service_fee_msat + COALESCE(p.routing_fee_msat, 0), p.preimage, p.created_at, i.expires_at,
         CASE WHEN p.status = 'succeeded' THEN p.resolved_at END
    FROM payments p LEFT JOIN invoices i ON i.payment_hash = p.payment_hash
   WHERE p.user_id = @userId`

export function walletTransactionReader(db: Db) {
  const page = db.prepare(`SELECT * FROM (${walletTransactions})
    WHERE (@type IS NULL OR type = @type) AND (@unpaid = 1 OR state = 'settled')
      AND created_at >= @fromMs AND created_at <= @untilMs
    ORDER BY created_at DESC, payment_hash LIMIT @limit OFFSET @offset`)
  const byHash = db.prepare(`SELECT * FROM (${walletTransactions}) WHERE payment_hash = @paymentHash
    ORDER BY type DESC, created_at DESC LIMIT 1`) // a wallet paying its own invoice: the outgoing side answers; a retried payment: its latest attempt
  const balance = db.prepare('SELECT balance_msat FROM users WHERE id = ?').pluck()

  return {
    /** Newest first; `from`/`until` are unix seconds, inclusive. */
    list(userId: string, query: TransactionQuery, nowMs: number): NwcTransaction[] {
      const rows = page.all({
        userId,
        now: nowMs,
        type: query.type ?? null,
        unpaid: query.unpaid ? 1 : 0,
        fromMs: (query.from ?? 0) * 1000,
        untilMs: query.until === undefined ? Number.MAX_SAFE_INTEGER : query.until * 1000 + 999,
        limit: Math.min(query.limit ?? maxTransactionsPerPage, maxTransactionsPerPage),
        offset: query.offset ?? 0,
      }) as TransactionRow[]
      return rows.map(transactionOf)
    },
    byPaymentHash(userId: string, paymentHash: string, nowMs: number): NwcTransaction | undefined {
      const row = byHash.get({ userId, paymentHash, now: nowMs }) as TransactionRow | undefined
      return row && transactionOf(row)
    },
    balanceMsat: (userId: string): number => (balance.get(userId) as number | undefined) ?? 0,
  }
}

export type WalletTransactionReader = ReturnType<typeof walletTransactionReader>

const seconds = (ms: number) => Math.floor(ms / 1000)

function transactionOf(row: TransactionRow): NwcTransaction {
  return {
    type: row.type,
    state: row.state,
    invoice: row.payment_request,
    description: row.memo ?? '',
    ...(row.description_hash ? { description_hash: row.description_hash } : {}),
    // An internal payment has no preimage in the wallet (empty, as upstream); NIP-47 makes the field optional.
    ...(row.preimage ? { preimage: row.preimage } : {}),
    payment_hash: row.payment_hash,
    amount: row.amount_msat,
    fees_paid: row.fee_msat,
    created_at: seconds(row.created_at),
    ...(row.expires_at !== null ? { expires_at: seconds(row.expires_at) } : {}),
    ...(row.settled_at !== null ? { settled_at: seconds(row.settled_at) } : {}),
  }
}
