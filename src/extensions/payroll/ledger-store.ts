// The payout ledger (docs/payroll.md, "Ledger and CSV"): one row per attempt, with the contract's terms copied so
// rows outlive edits and deletion. Every change that consumes a period writes its row and moves the contract's
// periods_done in one transaction, guarded by `periods_done = period` so that two payers (two requests, or two
// daemons on one database) cannot both consume the same period. Written once on the engine-neutral SqlStore: the
// same statements and transactions on SQLite and PostgreSQL. Every decision that reads and then writes is one
// transaction whose writes are guarded by the state they depend on, so a PostgreSQL transaction running beside it
// (READ COMMITTED) cannot slip in between.
import { sqlErrorKind, type SqlExecutor, type SqlStore } from '../../store/index.js'
import type { Contract } from './contracts-store.js'

/** `paying` is internal: a claim taken before the invoice exists, never shown to callers. */
export type PayoutStatus = 'paying' | 'paid' | 'skipped' | 'failed'

export interface Payout {
  id: string
  contractId: string
  contractName: string
  period: number
  payday: string
  status: PayoutStatus
  amount: string
  currency: string
  employeeWallet: string
  sourceWallet: string
  /** Canonical msat of the period's invoice; null when no amount was established. */
  amountMsat: number | null
  /** Fiat units per BTC; null for `sat` or when no rate was established. */
  rate: string | null
  rateSource: string | null
  /** Failure reason or a note such as early payment; '' when there is none. */
  detail: string
  memo: string | null
  paymentHash: string | null
  createdAt: number
}

/** What an attempt knows about the period before the ledger sees it. */
export interface Attempt {
  contract: Contract
  period: number
  payday: string
  amountMsat: number | null
  rate: string | null
  rateSource: string | null
  memo: string | null
  detail: string
}

export interface PayoutFilter {
  contractId?: string
  status?: Exclude<PayoutStatus, 'paying'>
  employeeWallet?: string
  /** Inclusive bounds on the payday. */
  since?: string
  until?: string
  /** Only rows written before the row with this id. */
  before?: string
  /** At most this many rows (the newest); without it, every row. */
  limit?: number
}

/** The detail of a claim a crash left behind, closed once its invoice can no longer be paid. */
export const interruptedClaimDetail = 'the payment was interrupted and its invoice expired unpaid'
export const writtenOffDetail = 'written off on resume'

export interface Settlement {
  row: Payout
  /** False when the row was already paid (a redelivered event, or the payer and the listener both reporting). */
  changed: boolean
  /** The invoice was paid although the period had been paid by another invoice: an operator must look. */
  periodPaidTwice: boolean
}

/** Thrown inside a transaction to roll it back when another payer consumed the period first. */
class PeriodTaken extends Error {}

// Aliases are quoted: PostgreSQL folds unquoted names to lower case.
const columns = `id, contract_id AS "contractId", contract_name AS "contractName", period, payday, status, amount,
  currency, employee_wallet AS "employeeWallet", source_wallet AS "sourceWallet", amount_msat AS "amountMsat", rate,
  rate_source AS "rateSource", detail, memo, payment_hash AS "paymentHash", created_at AS "createdAt"`

// A second `paying` or `paid` row of one period, or a second id, is refused by the unique indexes: no row comes back.
const insert = `INSERT INTO payroll_payouts (id, contract_id, contract_name, period, payday, status, amount, currency,
    employee_wallet, source_wallet, amount_msat, rate, rate_source, detail, memo, payment_hash, claim_expires_at,
    created_at)
  VALUES (@id, @contractId, @contractName, @period, @payday, @status, @amount, @currency, @employeeWallet,
    @sourceWallet, @amountMsat, @rate, @rateSource, @detail, @memo, NULL, @claimExpiresAt, @createdAt)
  ON CONFLICT DO NOTHING
  RETURNING ${columns}`
const byId = `SELECT ${columns} FROM payroll_payouts WHERE id = ?`
const byPaymentHash = `SELECT ${columns} FROM payroll_payouts WHERE payment_hash = ?`
const advance = `UPDATE payroll_contracts SET periods_done = periods_done + 1, updated_at = @now
  WHERE id = @contractId AND periods_done = @period`
const setPaymentHash = `UPDATE payroll_payouts SET payment_hash = @paymentHash WHERE id = @id AND status = 'paying'`
const failClaim = `UPDATE payroll_payouts SET status = 'failed', detail = @detail, claim_expires_at = NULL
  WHERE id = @id AND status = 'paying'`
const markPaid = `UPDATE payroll_payouts SET status = 'paid', claim_expires_at = NULL
  WHERE id = @id AND status IN ('paying', 'failed')`
const expiredClaims = `UPDATE payroll_payouts SET status = 'failed', detail = @detail, claim_expires_at = NULL
  WHERE contract_id = @contractId AND status = 'paying' AND claim_expires_at < @now`
const paidForPeriod = `SELECT id FROM payroll_payouts
  WHERE contract_id = ? AND period = ? AND status IN ('paying', 'paid') AND id <> ?`
const failures = `SELECT count(*) AS n FROM payroll_payouts WHERE contract_id = ? AND period = ? AND status = 'failed'`
const filtered = `SELECT ${columns} FROM payroll_payouts
  WHERE status <> 'paying'
    AND (CAST(@contractId AS TEXT) IS NULL OR contract_id = @contractId)
    AND (CAST(@status AS TEXT) IS NULL OR status = @status)
    AND (CAST(@employeeWallet AS TEXT) IS NULL OR employee_wallet = @employeeWallet)
    AND (CAST(@since AS TEXT) IS NULL OR payday >= @since)
    AND (CAST(@until AS TEXT) IS NULL OR payday <= @until)
    AND (CAST(@before AS TEXT) IS NULL OR seq < (SELECT seq FROM payroll_payouts WHERE id = @before))
  ORDER BY seq DESC`
const filteredPage = `${filtered} LIMIT @limit`
const resumeContract = `UPDATE payroll_contracts SET status = 'active', paused_reason = '', updated_at = @now
  WHERE id = @id AND status = 'paused'`

export interface WriteOff {
  paydayOf(period: number): string
  before: string
}

export interface LedgerStore {
  get(id: string): Promise<Payout | undefined>
  list(filter?: PayoutFilter): Promise<Payout[]>
  /** A `skipped` row that consumes the period; undefined when another payer consumed it first. */
  skip(attempt: Attempt, now: number): Promise<Payout | undefined>
  /** A `failed` row for an attempt that failed before any claim was taken (rate, amount, balance). */
  recordFailure(attempt: Attempt, now: number): Promise<Payout>
  /**
   * Claims the period before any invoice exists: undefined when it is already paid or claimed (by another
   * request, or another daemon on this database). The claim ends as paid or failed.
   */
  claim(attempt: Attempt, now: number, claimExpiresAt: number): Promise<Payout | undefined>
  attachInvoice(claimId: string, paymentHash: string): Promise<void>
  /**
   * Ends a claim as failed (the payment was refused, nothing moved); the period is free again. A claim that was
   * settled meanwhile (the listener saw its invoice paid) stays paid: the row is answered as it is.
   */
  failClaim(claimId: string, detail: string): Promise<Payout>
  /**
   * The invoice `paymentHash` was paid: its row becomes `paid` and the contract moves past the period, once,
   * whoever learns of it first (the payer, or the invoice-paid listener after a crash). Undefined when no
   * row carries the hash.
   */
  settle(paymentHash: string, now: number): Promise<Settlement | undefined>
  /** Closes claims whose invoices have expired: a crash interrupted them, and they can no longer be paid. */
  expireClaims(contractId: string, now: number): Promise<number>
  /** Failed attempts of one period: its attempt count, the fifth of which pauses the contract. */
  failures(contractId: string, period: number): Promise<number>
  /**
   * Resumes a paused contract; with `writeOff`, every period whose payday is before `writeOff.before` gets a
   * `skipped` row and is consumed first. Returns the number written off; undefined when the contract changed
   * under us (resumed or consumed elsewhere).
   */
  resume(contract: Contract, writeOff: WriteOff | null, now: number): Promise<number | undefined>
}

export function ledgerStore(sql: SqlStore, newId: () => string): LedgerStore {
  function write(
    on: SqlExecutor,
    attempt: Attempt,
    status: PayoutStatus,
    now: number,
    claimExpiresAt: number | null = null,
  ): Promise<Payout | undefined> {
    const { contract } = attempt
    return on.one<Payout>(insert, {
      id: newId(),
      contractId: contract.id,
      contractName: contract.name,
      period: attempt.period,
      payday: attempt.payday,
      status,
      amount: contract.amount,
      currency: contract.currency,
      employeeWallet: contract.employeeWallet,
      sourceWallet: contract.sourceWallet,
      amountMsat: attempt.amountMsat,
      rate: attempt.rate,
      rateSource: attempt.rateSource,
      detail: attempt.detail,
      memo: attempt.memo,
      claimExpiresAt,
      createdAt: now,
    })
  }

  /** Runs `work` in one transaction; undefined when it found the period or the contract taken and rolled back. */
  async function unlessTaken<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T | undefined> {
    try {
      return await sql.transaction(work)
    } catch (err) {
      if (err instanceof PeriodTaken) return undefined
      throw err
    }
  }

  async function settleIn(tx: SqlExecutor, paymentHash: string, now: number): Promise<Settlement | undefined> {
    const row = await tx.one<Payout>(byPaymentHash, [paymentHash])
    if (!row) return undefined
    if (row.status === 'paid') return { row, changed: false, periodPaidTwice: false }
    // A `failed` row becomes paid only when its invoice was paid after all. If another invoice paid the period
    // meanwhile, money moved twice: the row stays failed and the caller reports it loudly.
    const other = await tx.one(paidForPeriod, [row.contractId, row.period, row.id])
    if (other !== undefined) return { row, changed: false, periodPaidTwice: true }
    // Guarded: a settle of the same hash that committed first (the payer and the listener at once, on two
    // connections) leaves nothing to change, and this one reports the row as it found it then.
    if ((await tx.run(markPaid, { id: row.id })).changes !== 1) {
      return { row: (await tx.one<Payout>(byId, [row.id]))!, changed: false, periodPaidTwice: false }
    }
    await tx.run(advance, { contractId: row.contractId, period: row.period, now })
    return { row: (await tx.one<Payout>(byId, [row.id]))!, changed: true, periodPaidTwice: false }
  }

  return {
    get: id => sql.one<Payout>(byId, [id]),
    list(filter = {}) {
      const params = {
        contractId: filter.contractId ?? null,
        status: filter.status ?? null,
        employeeWallet: filter.employeeWallet ?? null,
        since: filter.since ?? null,
        until: filter.until ?? null,
        before: filter.before ?? null,
      }
      return filter.limit === undefined ? sql.many<Payout>(filtered, params) : sql.many<Payout>(filteredPage, { ...params, limit: filter.limit })
    },
    skip: (attempt, now) =>
      unlessTaken(async tx => {
        const row = await write(tx, attempt, 'skipped', now)
        if (!row) return undefined
        const advanced = await tx.run(advance, { contractId: attempt.contract.id, period: attempt.period, now })
        if (advanced.changes !== 1) throw new PeriodTaken()
        return row
      }),
    recordFailure: async (attempt, now) => (await write(sql, attempt, 'failed', now))!,
    claim: (attempt, now, claimExpiresAt) => write(sql, attempt, 'paying', now, claimExpiresAt),
    async attachInvoice(claimId, paymentHash) {
      await sql.run(setPaymentHash, { id: claimId, paymentHash })
    },
    async failClaim(claimId, detail) {
      await sql.run(failClaim, { id: claimId, detail })
      return (await sql.one<Payout>(byId, [claimId]))!
    },
    async settle(paymentHash, now) {
      try {
        return await sql.transaction(tx => settleIn(tx, paymentHash, now))
      } catch (err) {
        // PostgreSQL: a claim of the period by another invoice committed between our look and our update; the
        // unique index refused the second paid row. The same answer as when the look had seen it.
        if (sqlErrorKind(err) !== 'unique') throw err
        const row = await sql.one<Payout>(byPaymentHash, [paymentHash])
        return row && { row, changed: false, periodPaidTwice: true }
      }
    },
    expireClaims: async (contractId, now) =>
      (await sql.run(expiredClaims, { contractId, now, detail: interruptedClaimDetail })).changes,
    failures: async (contractId, period) => Number((await sql.one<{ n: number }>(failures, [contractId, period]))!.n),
    resume: (contract, writeOff, now) =>
      unlessTaken(async tx => {
        let written = 0
        if (writeOff) {
          for (let period = contract.periodsDone; period < contract.totalPeriods; period++) {
            const payday = writeOff.paydayOf(period)
            if (payday >= writeOff.before) break
            const attempt = { contract, period, payday, amountMsat: null, rate: null, rateSource: null, memo: null, detail: writtenOffDetail }
            if (!(await write(tx, attempt, 'skipped', now))) throw new PeriodTaken()
            if ((await tx.run(advance, { contractId: contract.id, period, now })).changes !== 1) throw new PeriodTaken()
            written++
          }
        }
        if ((await tx.run(resumeContract, { id: contract.id, now })).changes !== 1) throw new PeriodTaken()
        return written
      }),
  }
}
