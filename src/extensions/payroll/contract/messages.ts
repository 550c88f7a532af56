// Messages of the payroll extension (contract fields as docs/payroll.md, "Contracts", lists them).
// Validation is strict (400 naming the field); `null` is accepted only for `manual_rate`, where it means
// "no manual rate". Dates are `YYYY-MM-DD` (UTC days); timestamps ISO-8601 UTC.
import { bool, decimal, enumOf, int, intParam, list, message, text, z } from '../../../../schema/dsl.js'

const minTotalPeriods = 1
const maxTotalPeriods = 10_000

/** True when `value` is `YYYY-MM-DD` and names a day that exists (no Feb 30). */
function isCalendarDate(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false
  const day = new Date(`${value}T00:00:00Z`)
  return !Number.isNaN(day.getTime()) && day.toISOString().slice(0, 10) === value
}

export const dateText = () => text().refine(isCalendarDate, 'must be a calendar date YYYY-MM-DD')

/** A decimal amount above zero, at most 8 decimals, kept as a string. */
const positiveDecimal = () => decimal({ maxDecimals: 8 }).refine(value => /[1-9]/.test(value), 'must be greater than 0')

/** `sat` or an ISO-4217 code (whether the rates module knows it is the handler's check). */
const currencyText = () => text().regex(/^(sat|[A-Z]{3})$/, 'must be "sat" or an ISO-4217 code such as "EUR"')
const walletText = () => text().min(1)
const nameText = () => text().trim().min(1).max(80)

export const Frequency = enumOf('Frequency', ['daily', 'weekly', 'biweekly', 'monthly', 'quarterly', 'yearly'])
export const PricingMode = enumOf('PricingMode', ['payday', 'current', 'manual'])
export const ContractStatus = enumOf('ContractStatus', ['active', 'paused'])
export const PayoutStatus = enumOf('PayoutStatus', ['paid', 'skipped', 'failed'])

export const Contract = message('Contract', {
  id: text(),
  name: text(),
  employee_wallet: text(),
  source_wallet: text(),
  /** Per period, decimal string in `currency`. */
  amount: text(),
  currency: text(),
  frequency: Frequency,
  start_date: text(),
  total_periods: int(),
  /** Settled or skipped periods; the next period to pay has this index. */
  periods_done: int(),
  pricing_mode: PricingMode,
  /** Fiat units per BTC, decimal string. */
  manual_rate: text().nullable(),
  backfill: bool(),
  status: ContractStatus,
  /** "" unless payroll paused the contract; then `period <k> (<payday>) failed 5 times: <cause>`. */
  paused_reason: text(),
  created_at: text(),
  updated_at: text(),
  /** null when no period is left. */
  next_payday: text().nullable(),
  ends_on: text().nullable(),
})

export const ContractCreate = message('ContractCreate', {
  name: nameText(),
  employee_wallet: walletText(),
  source_wallet: walletText(),
  amount: positiveDecimal(),
  currency: currencyText(),
  frequency: Frequency,
  start_date: dateText(),
  total_periods: int().min(minTotalPeriods).max(maxTotalPeriods),
  pricing_mode: PricingMode.default('payday'),
  manual_rate: positiveDecimal().nullable().default(null),
  backfill: bool().default(false),
})
  .refine(contract => contract.employee_wallet !== contract.source_wallet, {
    message: 'must differ from employee_wallet',
    path: ['source_wallet'],
  })
  .refine(contract => contract.pricing_mode !== 'manual' || contract.manual_rate !== null, {
    message: 'is required when pricing_mode is "manual"',
    path: ['manual_rate'],
  })

/**
 * A partial update. Rules that need the stored contract (wallets differ, `manual` has a rate, `total_periods`
 * not below `periods_done`) are the handler's, checked on the merged result.
 */
export const ContractUpdate = message('ContractUpdate', {
  id: text().min(1),
  name: nameText().optional(),
  employee_wallet: walletText().optional(),
  source_wallet: walletText().optional(),
  amount: positiveDecimal().optional(),
  currency: currencyText().optional(),
  frequency: Frequency.optional(),
  start_date: dateText().optional(),
  total_periods: int().min(minTotalPeriods).max(maxTotalPeriods).optional(),
  pricing_mode: PricingMode.optional(),
  manual_rate: positiveDecimal().nullable().optional(),
  backfill: bool().optional(),
})

export const ContractIdRequest = message('ContractIdRequest', { id: text().min(1) })

export const ContractResumeRequest = message('ContractResumeRequest', {
  id: text().min(1),
  /** Absent: infer from `paused_reason`. true keeps missed paydays (they settle next tick); false writes them off. */
  catch_up: bool().optional(),
})

export const ContractPayNowRequest = message('ContractPayNowRequest', {
  id: text().min(1),
  /** Overrides for this one payout only. */
  pricing_mode: PricingMode.optional(),
  manual_rate: positiveDecimal().optional(),
}).refine(request => request.pricing_mode !== 'manual' || request.manual_rate !== undefined, {
  message: 'is required when pricing_mode is "manual"',
  path: ['manual_rate'],
})

export const ContractDeleted = message('ContractDeleted', { success: bool() })

export const SchedulePreviewRequest = message('SchedulePreviewRequest', {
  start_date: dateText(),
  frequency: Frequency,
  total_periods: int().min(minTotalPeriods).max(maxTotalPeriods),
})

export const Schedule = message('Schedule', {
  paydays: list(message('Payday', { period: int(), payday: text() })),
  /** Payday of the last period; null when no period is left. */
  ends_on: text().nullable(),
})

/** One ledger row per attempt; amounts and wallets are copied, so rows outlive edits and deletion. */
export const Payout = message('Payout', {
  id: text(),
  contract_id: text(),
  contract_name: text(),
  period: int(),
  payday: text(),
  status: PayoutStatus,
  amount: text(),
  currency: text(),
  employee_wallet: text(),
  source_wallet: text(),
  /** Canonical msat of the period's invoice; null when no invoice was made (skipped, or failed before it). */
  amount_msat: int().nullable(),
  /** Fiat per BTC, decimal string; null for `sat` or when no rate was established. */
  rate: text().nullable(),
  /** `kraken`, `coingecko`, `spot` or `manual`; null when `rate` is null. */
  rate_source: text().nullable(),
  /** Failure reason or a note such as early payment; "" when there is none. */
  detail: text(),
  memo: text().nullable(),
  payment_hash: text().nullable(),
  created_at: text(),
})

/** What one scheduler pass did (the operator's "run a tick now"). */
export const SchedulerTickResult = message('SchedulerTickResult', {
  /** Active contracts with periods left that the tick looked at. */
  contracts: int(),
  /** The ledger rows the tick wrote, in the order it wrote them. */
  payouts: list(Payout),
})

/**
 * The largest page of the payout list. Without `limit` the list is the whole ledger, as its first callers expect;
 * a ledger of years is read a page at a time, so that neither the daemon nor the caller holds all of it at once.
 */
export const maxPayoutPage = 1000

export const PayoutListRequest = message('PayoutListRequest', {
  contract_id: text().min(1).optional(),
  status: PayoutStatus.optional(),
  /** At most this many rows (1 to 1,000), newest first; without it, every row. */
  limit: intParam().pipe(z.int().min(1).max(maxPayoutPage)).optional(),
  /**
   * Only rows written before the payout with this id: the next page starts before the last row of the one read.
   * Unlike an offset it stays put while new rows are written at the top.
   */
  before: text().min(1).optional(),
})

export const PayoutCsvRequest = message('PayoutCsvRequest', {
  contract_id: text().min(1).optional(),
  status: PayoutStatus.optional(),
  /** Inclusive bounds on the payday, not on the row time. */
  since: dateText().optional(),
  until: dateText().optional(),
})

