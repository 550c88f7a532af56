// Pay-now (docs/payroll.md, "Pay-now"): pays the next period at once whatever the calendar says, even a payday
// before the contract existed (no back-dated skip), notes an early payment in `detail`, and answers with the
// attempt's ledger row whether it was paid or failed. Pricing mode and rate may be overridden for this one payout.
// A failure here counts as an attempt of the period but does not pause the contract: pay-now always leaves its
// contract active.
import { OperationError } from '../../bus/index.js'
import type { Contract, PricingMode } from './contracts-store.js'
import type { LedgerStore, Payout } from './ledger-store.js'
import { payPeriod, type PayPeriodDeps } from './pay-period.js'
import { dayOfMs, paydayOf } from './paydays.js'

export interface PayNowOverrides {
  pricingMode?: PricingMode
  manualRate?: string
}

/** Run under the contract's lock. */
export async function payNow(deps: PayPeriodDeps & { ledger: LedgerStore }, contract: Contract, overrides: PayNowOverrides): Promise<Payout> {
  if (contract.status !== 'active') throw new OperationError('invalid_input', 'contract is paused; resume it first')
  if (contract.periodsDone >= contract.totalPeriods) throw new OperationError('invalid_input', 'contract has no period left to pay')
  const now = deps.clock.now()
  await deps.ledger.expireClaims(contract.id, now)
  const today = dayOfMs(now)
  const period = contract.periodsDone
  const payday = paydayOf(contract.startDate, contract.frequency, period)
  // A manual_rate alone means "pay this one at that rate".
  const pricingMode = overrides.pricingMode ?? (overrides.manualRate !== undefined ? 'manual' : contract.pricingMode)
  const row = await payPeriod(deps, {
    contract,
    period,
    payday,
    today,
    pricing: { amount: contract.amount, currency: contract.currency, pricingMode, manualRate: overrides.manualRate ?? contract.manualRate },
    paidNote: payday > today ? `early payment: payday ${payday} was not yet due on ${today}` : '',
  })
  if (!row) throw new OperationError('conflict', `period ${period} is being paid by another request; try again`)
  return row
}
