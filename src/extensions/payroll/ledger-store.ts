// The payout ledger (seed 001 part B, "Payout"; reference/payroll.md "Ledger and CSV"): one row per attempt,
// with the contract's terms copied so rows outlive edits and deletion. Every change that consumes a period
// writes its row and moves the contract's periods_done in one transaction, guarded by `periods_done = period`
// so that two payers (two requests, or two daemons on one database) cannot both consume the same period.
import type { Db } from '../../store/index.js'
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
}

const columns = `id, contract_id AS contractId, contract_name AS contractName, period, payday, status, amount, currency,
  employee_wallet AS employeeWallet, source_wallet AS sourceWallet, amount_msat AS amountMsat, rate,
  rate_source AS rateSource, detail, memo, payment_hash AS paymentHash, created_at AS createdAt`

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

export type LedgerStore = ReturnType<typeof ledgerStore>

export function ledgerStore(db: Db, newId: () => string) {
  const insert = db.prepare(`INSERT INTO payroll_payouts (id, contract_id, contract_name, period, payday, status, amount,
      currency, employee_wallet, source_wallet, amount_msat, rate, rate_source, detail, memo, payment_hash,
      claim_expires_at, created_at)
    VALUES (@id, @contractId, @contractName, @period, @payday, @status, @amount, @currency, @employeeWallet,
      @sourceWallet, @amountMsat, @rate, @rateSource, @detail, @memo, NULL, @claimExpiresAt, @createdAt)
    ON CONFLICT DO NOTHING`)
  const byId = db.prepare(`SELECT ${columns} FROM payroll_payouts WHERE id = ?`)
  const byPaymentHash = db.prepare(`SELECT ${columns} FROM payroll_payouts WHERE payment_hash = ?`)
  const advance = db.prepare(`UPDATE payroll_contracts SET periods_done = periods_done + 1, updated_at = @now
    WHERE id = @contractId AND periods_done = @period`)
  const setPaymentHash = db.prepare(`UPDATE payroll_payouts SET payment_hash = @paymentHash WHERE id = @id AND status = 'paying'`)
  const failClaim = db.prepare(`UPDATE payroll_payouts SET status = 'failed', detail = @detail, claim_expires_at = NULL
    WHERE id = @id AND status = 'paying'`)
  const markPaid = db.prepare(`UPDATE payroll_payouts SET status = 'paid', claim_expires_at = NULL
    WHERE id = @id AND status IN ('paying', 'failed')`)
  const expiredClaims = db.prepare(`UPDATE payroll_payouts SET status = 'failed', detail = @detail, claim_expires_at = NULL
    WHERE contract_id = @contractId AND status = 'paying' AND claim_expires_at < @now`)
  const paidForPeriod = db.prepare(`SELECT id FROM payroll_payouts
    WHERE contract_id = ? AND period = ? AND status IN ('paying', 'paid') AND id <> ?`).pluck()
  const failures = db.prepare(`SELECT count(*) FROM payroll_payouts WHERE contract_id = ? AND period = ? AND status = 'failed'`).pluck()
  const filtered = db.prepare(`SELECT ${columns} FROM payroll_payouts
    WHERE status <> 'paying'
      AND (@contractId IS NULL OR contract_id = @contractId)
      AND (@status IS NULL OR status = @status)
      AND (@employeeWallet IS NULL OR employee_wallet = @employeeWallet)
      AND (@since IS NULL OR payday >= @since)
      AND (@until IS NULL OR payday <= @until)
    ORDER BY seq DESC`)
  const resumeContract = db.prepare(`UPDATE payroll_contracts SET status = 'active', paused_reason = '', updated_at = @now
    WHERE id = @id AND status = 'paused'`)

  function write(attempt: Attempt, status: PayoutStatus, now: number, claimExpiresAt: number | null = null): Payout | undefined {
    const id = newId()
    const { contract } = attempt
    const inserted = insert.run({
      id,
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
    return inserted.changes === 1 ? (byId.get(id) as Payout) : undefined
  }

  /** Writes a consuming row and advances the contract, or nothing when the period was consumed meanwhile. */
  const consume = db.transaction((attempt: Attempt, now: number): Payout | undefined => {
    const row = write(attempt, 'skipped', now)
    if (!row) return undefined
    if (advance.run({ contractId: attempt.contract.id, period: attempt.period, now }).changes !== 1) throw new PeriodTaken()
    return row
  })

  const settle = db.transaction((paymentHash: string, now: number): Settlement | undefined => {
    const row = byPaymentHash.get(paymentHash) as Payout | undefined
    if (!row) return undefined
    if (row.status === 'paid') return { row, changed: false, periodPaidTwice: false }
    // A `failed` row becomes paid only when its invoice was paid after all. If another invoice paid the period
    // meanwhile, money moved twice: the row stays failed and the caller reports it loudly.
    const other = paidForPeriod.get(row.contractId, row.period, row.id) as string | undefined
    if (other !== undefined) return { row, changed: false, periodPaidTwice: true }
    markPaid.run({ id: row.id })
    advance.run({ contractId: row.contractId, period: row.period, now })
    return { row: byId.get(row.id) as Payout, changed: true, periodPaidTwice: false }
  })

  const resume = db.transaction(
    (contract: Contract, writeOff: { paydayOf(period: number): string; before: string } | null, now: number): number => {
      let written = 0
      if (writeOff) {
        for (let period = contract.periodsDone; period < contract.totalPeriods; period++) {
          const payday = writeOff.paydayOf(period)
          if (payday >= writeOff.before) break
          const attempt = { contract, period, payday, amountMsat: null, rate: null, rateSource: null, memo: null, detail: writtenOffDetail }
          if (!write(attempt, 'skipped', now) || advance.run({ contractId: contract.id, period, now }).changes !== 1) {
            throw new PeriodTaken()
          }
          written++
        }
      }
      if (resumeContract.run({ id: contract.id, now }).changes !== 1) throw new PeriodTaken()
      return written
    },
  )

  return {
    get: (id: string): Payout | undefined => byId.get(id) as Payout | undefined,
    list(filter: PayoutFilter = {}): Payout[] {
      return filtered.all({
        contractId: filter.contractId ?? null,
        status: filter.status ?? null,
        employeeWallet: filter.employeeWallet ?? null,
        since: filter.since ?? null,
        until: filter.until ?? null,
      }) as Payout[]
    },
    /** A `skipped` row that consumes the period; undefined when another payer consumed it first. */
    skip(attempt: Attempt, now: number): Payout | undefined {
      try {
        return consume(attempt, now)
      } catch (err) {
        if (err instanceof PeriodTaken) return undefined
        throw err
      }
    },
    /** A `failed` row for an attempt that failed before any claim was taken (rate, amount, balance). */
    recordFailure: (attempt: Attempt, now: number): Payout => write(attempt, 'failed', now)!,
    /**
     * Claims the period before any invoice exists: undefined when it is already paid or claimed (by another
     * request, or another daemon on this database). The claim ends as paid or failed.
     */
    claim: (attempt: Attempt, now: number, claimExpiresAt: number): Payout | undefined =>
      write(attempt, 'paying', now, claimExpiresAt),
    attachInvoice(claimId: string, paymentHash: string): void {
      setPaymentHash.run({ id: claimId, paymentHash })
    },
    /** Ends a claim as failed (the payment was refused, nothing moved); the period is free again. */
    failClaim(claimId: string, detail: string): Payout {
      failClaim.run({ id: claimId, detail })
      return byId.get(claimId) as Payout
    },
    /**
     * The invoice `paymentHash` was paid: its row becomes `paid` and the contract moves past the period, once,
     * whoever learns of it first (the payer, or the invoice-paid listener after a crash). Undefined when no
     * row carries the hash.
     */
    settle(paymentHash: string, now: number): Settlement | undefined {
      return settle(paymentHash, now)
    },
    /** Closes claims whose invoices have expired: a crash interrupted them, and they can no longer be paid. */
    expireClaims(contractId: string, now: number): number {
      return expiredClaims.run({ contractId, now, detail: interruptedClaimDetail }).changes
    },
    /** Failed attempts of one period: the seed's attempt count. */
    failures: (contractId: string, period: number): number => failures.get(contractId, period) as number,
    /**
     * Resumes a paused contract; with `writeOff`, every period whose payday is before `writeOff.before` gets a
     * `skipped` row and is consumed first. Returns the number written off; undefined when the contract changed
     * under us (resumed or consumed elsewhere).
     */
    resume(contract: Contract, writeOff: { paydayOf(period: number): string; before: string } | null, now: number): number | undefined {
      try {
        return resume(contract, writeOff, now)
      } catch (err) {
        if (err instanceof PeriodTaken) return undefined
        throw err
      }
    },
  }
}
