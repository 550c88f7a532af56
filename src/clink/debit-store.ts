// The debit part's tables (schema/sql/051_clink_debits.sql): grants and bans, parked requests, k1 session ids and
// the payments made for debits. Written once on the engine-neutral SqlStore: the same statements run on
// SQLite and on PostgreSQL. Each function is named for what it means here; every write that decides something
// (an unpark, an answer's move, a k1 seen first) is one guarded statement, so of two callers exactly one wins.
import type { SqlExecutor, SqlStore } from '../store/index.js'
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

/** The statement texts; debit-limit-store.ts runs three of them inside the wallet's payment transaction. */
export const debitStatements = {
  access: 'SELECT * FROM clink_debit_access WHERE user_id = ? AND requester = ?',
  paymentHashes: 'SELECT payment_hash FROM clink_debit_payments WHERE user_id = ? AND requester = ?',
  // A payment retried after it failed takes over the row once the failed attempt's answer is out.
  recordPayment: `INSERT INTO clink_debit_payments
      (payment_hash, user_id, requester, app_id, request_id, answer, created_at)
      VALUES (@paymentHash, @userId, @requester, @appId, @requestId, @answer, @at)
      ON CONFLICT (payment_hash) DO UPDATE SET user_id = excluded.user_id, requester = excluded.requester,
        app_id = excluded.app_id, request_id = excluded.request_id, answer = excluded.answer,
        created_at = excluded.created_at
      WHERE clink_debit_payments.answer = 'answered'`,
}

const upsertAccess = `INSERT INTO clink_debit_access
    (user_id, requester, authorized, expires_at_unix, frequency_intervals, frequency_interval, frequency_amount_sats,
     created_at, updated_at)
    VALUES (@userId, @requester, @authorized, @expiresAtUnix, @intervals, @interval, @amount, @at, @at)
    ON CONFLICT (user_id, requester) DO UPDATE SET authorized = excluded.authorized,
      expires_at_unix = excluded.expires_at_unix, frequency_intervals = excluded.frequency_intervals,
      frequency_interval = excluded.frequency_interval, frequency_amount_sats = excluded.frequency_amount_sats,
      updated_at = excluded.updated_at
    RETURNING *`
const ban = `INSERT INTO clink_debit_access (user_id, requester, authorized, created_at, updated_at)
    VALUES (?, ?, 0, ?, ?)
    ON CONFLICT (user_id, requester) DO UPDATE SET authorized = 0, updated_at = excluded.updated_at`
const updateRules = `UPDATE clink_debit_access SET expires_at_unix = @expiresAtUnix,
    frequency_intervals = @intervals, frequency_interval = @interval, frequency_amount_sats = @amount,
    updated_at = @at WHERE user_id = @userId AND requester = @requester`
// Only a grant whose expiration rule has passed: a grant or ban made since the caller looked stays.
const removeExpired = `DELETE FROM clink_debit_access WHERE user_id = ? AND requester = ? AND authorized = 1
    AND expires_at_unix IS NOT NULL AND expires_at_unix <= ?`
const park = `INSERT INTO clink_debit_requests
    (request_id, user_id, app_id, requester, debit, k1, created_at, expires_at)
    VALUES (@requestId, @userId, @appId, @requester, @debit, @k1, @createdAt, @expiresAt) ON CONFLICT (request_id) DO NOTHING`
// Seen first, or seen again after the memory window: the row is (re)written. Seen within it: nothing changes.
const firstK1 = `INSERT INTO clink_debit_k1 (user_id, k1, seen_at) VALUES (@userId, @k1, @now)
    ON CONFLICT (user_id, k1) DO UPDATE SET seen_at = excluded.seen_at WHERE clink_debit_k1.seen_at <= @forgetBefore`

export interface DebitStore {
  access(userId: string, requester: string): Promise<AccessRow | undefined>
  accessOfUser(userId: string): Promise<AccessRow[]>
  /** A grant under `rules`, replacing any earlier grant or ban of this key. */
  grant(userId: string, requester: string, rules: DebitRules, at: number): Promise<AccessRow>
  /** Replaces the rules of an existing row; false when there is none. */
  editRules(userId: string, requester: string, rules: DebitRules, at: number): Promise<boolean>
  ban(userId: string, requester: string, at: number): Promise<void>
  /** Forgets the key's grant or ban; false when there was none. */
  reset(userId: string, requester: string): Promise<boolean>
  /** Forgets the key's grant only while its expiration rule has passed at `nowMs`; false otherwise. */
  resetExpired(userId: string, requester: string, nowMs: number): Promise<boolean>

  /** False when a request with this id is parked already. */
  park(request: ParkedRequest): Promise<boolean>
  parked(requestId: string, userId: string): Promise<ParkedRequest | undefined>
  parkedFrom(userId: string, requester: string): Promise<ParkedRequest[]>
  /** Takes the request off the list; true for the one caller that took it. */
  unpark(requestId: string): Promise<boolean>
  isParked(requestId: string): Promise<boolean>
  /** Parked requests whose time ran out by `now`, oldest first, at most `limit`. */
  expiredBy(now: number, limit: number): Promise<ParkedRequest[]>

  /** Remembers `k1` for this user; false when it was already seen within the memory window. */
  firstK1(userId: string, k1: string, now: number): Promise<boolean>

  debitPayment(paymentHash: string): Promise<DebitPaymentRow | undefined>
  paymentForRequest(requestId: string): Promise<DebitPaymentRow | undefined>
  /** Moves a payment's answer state; true for the one caller that moved it (so one answer is sent). */
  moveAnswer(hash: string, from: DebitPaymentRow['answer'], to: DebitPaymentRow['answer']): Promise<boolean>
  unansweredPayments(): Promise<DebitPaymentRow[]>
  /** At start no run is in progress: payments a stopped run was paying are answered when they resolve. */
  adoptInterruptedRuns(): Promise<number>
}

const rulesParams = (rules: DebitRules) => ({
  expiresAtUnix: rules.expiresAtUnix,
  intervals: rules.frequency?.number_of_intervals ?? null,
  interval: rules.frequency?.interval ?? null,
  amount: rules.frequency?.amount ?? null,
})

const parkedRow = (row: Record<string, unknown>): ParkedRequest => ({
  requestId: row.request_id as string,
  userId: row.user_id as string,
  appId: row.app_id as string,
  requester: row.requester as string,
  debit: JSON.parse(row.debit as string) as ParkedDebit,
  k1: row.k1 as string | null,
  createdAt: row.created_at as number,
  expiresAt: row.expires_at as number,
})

const changed = async (run: Promise<{ changes: number }>) => (await run).changes > 0

export function debitStore(sql: SqlStore): DebitStore {
  const x: SqlExecutor = sql
  return {
    access: (userId, requester) => x.one<AccessRow>(debitStatements.access, [userId, requester]),
    accessOfUser: userId => x.many<AccessRow>('SELECT * FROM clink_debit_access WHERE user_id = ? ORDER BY serial', [userId]),
    grant: async (userId, requester, rules, at) =>
      (await x.one<AccessRow>(upsertAccess, { userId, requester, authorized: 1, ...rulesParams(rules), at }))!,
    editRules: (userId, requester, rules, at) => changed(x.run(updateRules, { userId, requester, ...rulesParams(rules), at })),
    ban: async (userId, requester, at) => void (await x.run(ban, [userId, requester, at, at])),
    reset: (userId, requester) => changed(x.run('DELETE FROM clink_debit_access WHERE user_id = ? AND requester = ?', [userId, requester])),
    // The rule is in unix seconds: expired at nowMs when expires_at_unix * 1000 <= nowMs (debit-rules.ts `expired`).
    resetExpired: (userId, requester, nowMs) => changed(x.run(removeExpired, [userId, requester, Math.floor(nowMs / 1000)])),

    park: request => changed(x.run(park, { ...request, debit: JSON.stringify(request.debit) })),
    parked: async (requestId, userId) => {
      const row = await x.one('SELECT * FROM clink_debit_requests WHERE request_id = ? AND user_id = ?', [requestId, userId])
      return row && parkedRow(row)
    },
    parkedFrom: async (userId, requester) =>
      (await x.many('SELECT * FROM clink_debit_requests WHERE user_id = ? AND requester = ? ORDER BY created_at, request_id', [userId, requester])).map(parkedRow),
    unpark: requestId => changed(x.run('DELETE FROM clink_debit_requests WHERE request_id = ?', [requestId])),
    isParked: async requestId => (await x.one('SELECT 1 AS parked FROM clink_debit_requests WHERE request_id = ?', [requestId])) !== undefined,
    expiredBy: async (now, limit) =>
      (await x.many('SELECT * FROM clink_debit_requests WHERE expires_at <= ? ORDER BY expires_at, request_id LIMIT ?', [now, limit])).map(parkedRow),

    firstK1: (userId, k1, now) =>
      sql.transaction(async tx => {
        await tx.run('DELETE FROM clink_debit_k1 WHERE seen_at <= ?', [now - k1MemoryMs])
        return (await tx.run(firstK1, { userId, k1, now, forgetBefore: now - k1MemoryMs })).changes > 0
      }),

    debitPayment: hash => x.one<DebitPaymentRow>('SELECT * FROM clink_debit_payments WHERE payment_hash = ?', [hash]),
    paymentForRequest: requestId =>
      x.one<DebitPaymentRow>('SELECT * FROM clink_debit_payments WHERE request_id = ? ORDER BY created_at DESC LIMIT 1', [requestId]),
    moveAnswer: (hash, from, to) =>
      changed(x.run('UPDATE clink_debit_payments SET answer = @to WHERE payment_hash = @hash AND answer = @from', { hash, from, to })),
    unansweredPayments: () => x.many<DebitPaymentRow>(`SELECT * FROM clink_debit_payments WHERE answer <> 'answered' ORDER BY created_at, payment_hash`),
    adoptInterruptedRuns: async () => (await x.run(`UPDATE clink_debit_payments SET answer = 'awaiting' WHERE answer = 'paying'`)).changes,
  }
}
