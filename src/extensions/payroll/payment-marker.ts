// What each period's internal invoice carries (docs/payroll.md, "Paying a period", step 5): its memo and the marker
// in `extra`. `extra` is wire data the host hands back when the invoice is paid; payrollRef is the one place that
// reads it.
import type { PeriodPrice } from './pricing.js'

export const payrollTag = 'payroll'

export interface MarkedPeriod {
  contractId: string
  contractName: string
  period: number
  payday: string
  amount: string
  currency: string
}

/** `<name> - <payday> . <amount> <currency> @ <rate> <currency>/BTC`; a sat contract has no rate to name. */
export function memoOf(period: MarkedPeriod, price: PeriodPrice): string {
  const head = `${period.contractName} - ${period.payday} . ${period.amount} ${period.currency}`
  return price.rate === null ? head : `${head} @ ${price.rate} ${period.currency}/BTC`
}

/** The marker keys: tag, contract_id, period, payday, and the fiat keys of the host convention. */
export function extraOf(period: MarkedPeriod, price: PeriodPrice): Record<string, unknown> {
  return {
    tag: payrollTag,
    contract_id: period.contractId,
    period: period.period,
    payday: period.payday,
    fiat_currency: period.currency,
    fiat_amount: period.amount,
    fiat_rate: price.fiatRate,
    btc_rate: price.btcRate,
  }
}

/** The contract and period a paid invoice's `extra` names, or undefined when it is not a payroll payment. */
export function payrollRef(extra: Record<string, unknown>): { contractId: string; period: number } | undefined {
  if (extra.tag !== payrollTag) return undefined
  const { contract_id: contractId, period } = extra
  if (typeof contractId !== 'string' || typeof period !== 'number' || !Number.isInteger(period)) return undefined
  return { contractId, period }
}
