// The debit part's tables (schema/sql/051_clink_debits.sql): grants and bans, parked requests, k1 session ids and
// the payments made for debits. Statements are prepared once; each function is named for what it means here.
import type { Db } from '../store/index.js'
import type { DebitRules, FrequencyRule, Interval } from './debit-rules.js'

export interface AccessRow {
  serial: number
  user_id: string
  requester: string
  authorized: number
  expires_at_unix: number | null
  frequency_intervals: number | null
  frequency_interval: Interval | null
  frequency_amount_sats: number | null
  created_at: number
  updated_at: number
}

/** The LiveDebitRequest `debit` oneof, as pushed and stored. */
export type ParkedDebit =
  | { type: 'invoice'; invoice: string }
  | { type: 'frequency'; frequency: FrequencyRule }
  | { type: 'full_access'; full_access: Record<string, never> }

export interface ParkedRequest {
  requestId: string
  userId: string
  appId: string
  requester: string
  debit: ParkedDebit
  k1: string | null
  createdAt: number
  /** Unix ms; from then on the request is no longer the user's to decide (GFY 3 to the requester). */
  expiresAt: number
}

export interface DebitPaymentRow {
  payment_hash: string
  user_id: string
  requester: string
  app_id: string
  request_id: string
  answer: 'paying' | 'awaiting' | 'answered'
  created_at: number
}

/** How long a k1 session id is remembered (upstream: five minutes). */
export const k1MemoryMs = 5 * 60_000

export function rulesOf(row: AccessRow): DebitRules {
  return {
    expiresAtUnix: row.expires_at_unix,
    frequency:
      row.frequency_intervals === null
        ? null
        : { number_of_intervals: row.frequency_intervals, interval: row.frequency_interval!, amount: row.frequency_amount_sats! },
  }
}

export function debitStore(db: Db) {
  const access = db.prepare('SELECT * FROM clink_debit_access WHERE user_id = ? AND requester = ?')
  const accessOfUser = db.prepare('SELECT * FROM clink_debit_access WHERE user_id = ? ORDER BY serial')
  const upsertAccess = db.prepare(`INSERT INTO clink_debit_access
      (user_id, requester, authorized, expires_at_unix, frequency_intervals, frequency_interval, frequency_amount_sats,
       created_at, updated_at)
      VALUES (@userId, @requester, @authorized, @expiresAtUnix, @intervals, @interval, @amount, @at, @at)
      ON CONFLICT (user_id, requester) DO UPDATE SET authorized = excluded.authorized,
        expires_at_unix = excluded.expires_at_unix, frequency_intervals = excluded.frequency_intervals,
        frequency_interval = excluded.frequency_interval, frequency_amount_sats = excluded.frequency_amount_sats,
        updated_at = excluded.updated_at`)
  const ban = db.prepare(`INSERT INTO clink_debit_access (user_id, requester, authorized, created_at, updated_at)
      VALUES (?, ?, 0, ?, ?)
      ON CONFLICT (user_id, requester) DO UPDATE SET authorized = 0, updated_at = excluded.updated_at`)
  const updateRules = db.prepare(`UPDATE clink_debit_access SET expires_at_unix = @expiresAtUnix,
      frequency_intervals = @intervals, frequency_interval = @interval, frequency_amount_sats = @amount,
      updated_at = @at WHERE user_id = @userId AND requester = @requester`)
  const removeAccess = db.prepare('DELETE FROM clink_debit_access WHERE user_id = ? AND requester = ?')

  const park = db.prepare(`INSERT INTO clink_debit_requests
      (request_id, user_id, app_id, requester, debit, k1, created_at, expires_at)
      VALUES (@requestId, @userId, @appId, @requester, @debit, @k1, @createdAt, @expiresAt) ON CONFLICT (request_id) DO NOTHING`)
  const parked = db.prepare('SELECT * FROM clink_debit_requests WHERE request_id = ? AND user_id = ?')
  const parkedFrom = db.prepare('SELECT * FROM clink_debit_requests WHERE user_id = ? AND requester = ?')
  const unpark = db.prepare('DELETE FROM clink_debit_requests WHERE request_id = ?')
  const isParked = db.prepare('SELECT 1 FROM clink_debit_requests WHERE request_id = ?').pluck()
  const expiredBy = db.prepare('SELECT * FROM clink_debit_requests WHERE expires_at <= ? ORDER BY expires_at LIMIT ?')

  const seenK1 = db.prepare('SELECT seen_at FROM clink_debit_k1 WHERE user_id = ? AND k1 = ?').pluck()
  const rememberK1 = db.prepare(`INSERT INTO clink_debit_k1 (user_id, k1, seen_at) VALUES (?, ?, ?)
      ON CONFLICT (user_id, k1) DO UPDATE SET seen_at = excluded.seen_at`)
  const forgetK1s = db.prepare('DELETE FROM clink_debit_k1 WHERE seen_at <= ?')

  // A payment retried after it failed takes over the row once the failed attempt's answer is out.
  const recordPayment = db.prepare(`INSERT INTO clink_debit_payments
      (payment_hash, user_id, requester, app_id, request_id, answer, created_at)
      VALUES (@paymentHash, @userId, @requester, @appId, @requestId, @answer, @at)
      ON CONFLICT (payment_hash) DO UPDATE SET user_id = excluded.user_id, requester = excluded.requester,
        app_id = excluded.app_id, request_id = excluded.request_id, answer = excluded.answer,
        created_at = excluded.created_at
      WHERE clink_debit_payments.answer = 'answered'`)
  const paymentHashes = db.prepare('SELECT payment_hash FROM clink_debit_payments WHERE user_id = ? AND requester = ?').pluck()
  const debitPayment = db.prepare('SELECT * FROM clink_debit_payments WHERE payment_hash = ?')
  const paymentForRequest = db.prepare(`SELECT * FROM clink_debit_payments WHERE request_id = ?
      ORDER BY created_at DESC LIMIT 1`)
  const moveAnswer = db.prepare('UPDATE clink_debit_payments SET answer = @to WHERE payment_hash = @hash AND answer = @from')
  const unansweredPayments = db.prepare(`SELECT * FROM clink_debit_payments WHERE answer <> 'answered'`)
  const interruptedRuns = db.prepare(`UPDATE clink_debit_payments SET answer = 'awaiting' WHERE answer = 'paying'`)

  const rulesParams = (rules: DebitRules) => ({
    expiresAtUnix: rules.expiresAtUnix,
    intervals: rules.frequency?.number_of_intervals ?? null,
    interval: rules.frequency?.interval ?? null,
    amount: rules.frequency?.amount ?? null,
  })
  const parkedRow = (row: Record<string, unknown> | undefined): ParkedRequest | undefined =>
    row && {
      requestId: row.request_id as string,
      userId: row.user_id as string,
      appId: row.app_id as string,
      requester: row.requester as string,
      debit: JSON.parse(row.debit as string) as ParkedDebit,
      k1: row.k1 as string | null,
      createdAt: row.created_at as number,
      expiresAt: row.expires_at as number,
    }

  return {
    access: (userId: string, requester: string) => access.get(userId, requester) as AccessRow | undefined,
    accessOfUser: (userId: string) => accessOfUser.all(userId) as AccessRow[],
    /** A grant under `rules`, replacing any earlier grant or ban of this key. */
    grant(userId: string, requester: string, rules: DebitRules, at: number): AccessRow {
      upsertAccess.run({ userId, requester, authorized: 1, ...rulesParams(rules), at })
      return access.get(userId, requester) as AccessRow
    },
    /** Replaces the rules of an existing row; false when there is none. */
    editRules: (userId: string, requester: string, rules: DebitRules, at: number) =>
      updateRules.run({ userId, requester, ...rulesParams(rules), at }).changes > 0,
    ban: (userId: string, requester: string, at: number) => void ban.run(userId, requester, at, at),
    reset: (userId: string, requester: string) => removeAccess.run(userId, requester).changes > 0,

    park: (request: ParkedRequest) =>
      park.run({ ...request, debit: JSON.stringify(request.debit) }).changes > 0,
    parked: (requestId: string, userId: string) => parkedRow(parked.get(requestId, userId) as Record<string, unknown> | undefined),
    parkedFrom: (userId: string, requester: string) =>
      (parkedFrom.all(userId, requester) as Record<string, unknown>[]).map(row => parkedRow(row)!),
    unpark: (requestId: string) => unpark.run(requestId).changes > 0,
    isParked: (requestId: string) => isParked.get(requestId) !== undefined,
    /** Parked requests whose time ran out by `now`, oldest first, at most `limit`. */
    expiredBy: (now: number, limit: number) =>
      (expiredBy.all(now, limit) as Record<string, unknown>[]).map(row => parkedRow(row)!),

    /** Remembers `k1` for this user; false when it was already seen within the memory window. */
    firstK1: db.transaction((userId: string, k1: string, now: number): boolean => {
      forgetK1s.run(now - k1MemoryMs)
      if (seenK1.get(userId, k1) !== undefined) return false
      rememberK1.run(userId, k1, now)
      return true
    }),

    /** The payments made for this key's debits of this user: what its budget sums over (the wallet's door sums them). */
    paymentHashes: (userId: string, requester: string) => paymentHashes.all(userId, requester) as string[],
    /**
     * `answer`: `paying` for a CLINK request's payment, `answered` when no requester waits (an API payment). False
     * when an earlier attempt at the same payment hash still has an answer to send.
     */
    recordPayment: (p: {
      paymentHash: string; userId: string; requester: string; appId: string; requestId: string; answer: 'paying' | 'answered'; at: number
    }) => recordPayment.run(p).changes > 0,
    debitPayment: (paymentHash: string) => debitPayment.get(paymentHash) as DebitPaymentRow | undefined,
    paymentForRequest: (requestId: string) => paymentForRequest.get(requestId) as DebitPaymentRow | undefined,
    /** Moves a payment's answer state; true for the one caller that moved it (so one answer is sent). */
    moveAnswer: (hash: string, from: DebitPaymentRow['answer'], to: DebitPaymentRow['answer']) =>
      moveAnswer.run({ hash, from, to }).changes > 0,
    unansweredPayments: () => unansweredPayments.all() as DebitPaymentRow[],
    /** At start no run is in progress: payments a stopped run was paying are answered when they resolve. */
    adoptInterruptedRuns: () => interruptedRuns.run().changes,
  }
}

export type DebitStore = ReturnType<typeof debitStore>
