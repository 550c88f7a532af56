// NIP-47 transaction objects from the wallet's history (its door: Wallet.transactions, transactionByPaymentHash,
// balanceMsat): paging rules, unix seconds and NIP-47's field names are this room's; the rows are the wallet's.
import type { TransactionDirection, TransactionState, Wallet, WalletTransaction } from '../wallet/index.js'
import { unixSeconds } from '../units/index.js'

export type TransactionType = TransactionDirection

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

/** Pages larger than this are cut: NIP-47 asks clients for ≤ 20 and relays may refuse big events. */
export const maxTransactionsPerPage = 50

/** What this room reads of the wallet's history. */
export type WalletHistory = Pick<Wallet, 'transactions' | 'transactionByPaymentHash' | 'balanceMsat'>

export function walletTransactionReader(wallet: WalletHistory) {
  return {
    /** Newest first; `from`/`until` are unix seconds, inclusive. */
    async list(userId: string, query: TransactionQuery, nowMs: number): Promise<NwcTransaction[]> {
      const rows = await wallet.transactions(
        userId,
        {
          fromMs: (query.from ?? 0) * 1000,
          untilMs: query.until === undefined ? Number.MAX_SAFE_INTEGER : query.until * 1000 + 999,
          limit: Math.min(query.limit ?? maxTransactionsPerPage, maxTransactionsPerPage),
          offset: query.offset ?? 0,
          unpaid: query.unpaid === true,
          ...(query.type ? { direction: query.type } : {}),
        },
        nowMs,
      )
      return rows.map(transactionOf)
    },
    async byPaymentHash(userId: string, paymentHash: string, nowMs: number): Promise<NwcTransaction | undefined> {
      const row = await wallet.transactionByPaymentHash(userId, paymentHash, nowMs)
      return row && transactionOf(row)
    },
    balanceMsat: (userId: string): Promise<number> => wallet.balanceMsat(userId),
  }
}

export type WalletTransactionReader = ReturnType<typeof walletTransactionReader>


function transactionOf(row: WalletTransaction): NwcTransaction {
  return {
    type: row.direction,
    state: row.state,
    invoice: row.paymentRequest,
    description: row.memo ?? '',
    ...(row.descriptionHash ? { description_hash: row.descriptionHash } : {}),
    // An internal payment has no preimage in the wallet (empty, as upstream); NIP-47 makes the field optional.
    ...(row.preimage ? { preimage: row.preimage } : {}),
    payment_hash: row.paymentHash,
    amount: row.amountMsat,
    fees_paid: row.feeMsat,
    created_at: unixSeconds(row.createdAt),
    ...(row.expiresAt !== null ? { expires_at: unixSeconds(row.expiresAt) } : {}),
    ...(row.settledAt !== null ? { settled_at: unixSeconds(row.settledAt) } : {}),
  }
}
