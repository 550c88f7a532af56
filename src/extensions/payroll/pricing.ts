// The rate and the msat amount of one period (docs/payroll.md, "Paying a period", steps 1–2). Payroll converts in
// every mode, before the invoice exists, so the memo can name the rate. A rate that cannot be established fails the
// period with a message naming the date and the currency: there is no fallback to today's rate for a past payday.
import { RateUnavailable, fiatToMsat, normalizeDecimal, satsPerUnit, type Rates } from '../../rates/index.js'
import type { PricingMode } from './contracts-store.js'

/** A sat contract's amount is msat × 1000; written as a BTC rate it is 10^8 sat per BTC. */
const satsPerBtc = '100000000'

export type RateSource = 'spot' | 'kraken' | 'coingecko' | 'manual'

export interface PeriodPrice {
  amountMsat: number
  /** Fiat units per BTC; null for `sat`. */
  rate: string | null
  rateSource: RateSource | null
  /** Sats per fiat unit, for the payment marker's `fiat_rate`. */
  fiatRate: string
  /** Fiat units per BTC, for the payment marker's `btc_rate`. */
  btcRate: string
}

/** A period that cannot be priced; the message becomes the ledger row's `detail`. */
export class PricingFailed extends Error {}

export interface PricingTerms {
  amount: string
  currency: string
  pricingMode: PricingMode
  manualRate: string | null
}

export async function pricePeriod(rates: Rates, terms: PricingTerms, payday: string, today: string): Promise<PeriodPrice> {
  if (terms.currency === 'sat') {
    return { amountMsat: positive(terms, satsPerBtc), rate: null, rateSource: null, fiatRate: '1', btcRate: satsPerBtc }
  }
  const { rate, rateSource } = await rateFor(rates, terms, payday, today)
  return { amountMsat: positive(terms, rate), rate, rateSource, fiatRate: satsPerUnit(rate), btcRate: rate }
}

async function rateFor(rates: Rates, terms: PricingTerms, payday: string, today: string): Promise<{ rate: string; rateSource: RateSource }> {
  const { currency } = terms
  if (terms.pricingMode === 'manual') {
    if (terms.manualRate === null) throw new PricingFailed('pricing_mode "manual" needs a manual_rate')
    return { rate: normalizeDecimal(terms.manualRate), rateSource: 'manual' }
  }
  try {
    // A payday today or later is priced like `current`: its day has no closing rate yet.
    if (terms.pricingMode === 'current' || payday >= today) {
      const quote = await rates.spot(currency)
      return { rate: quote.btcRate, rateSource: quote.source }
    }
    const quote = await rates.historical(currency, payday)
    return { rate: quote.btcRate, rateSource: quote.source }
  } catch (err) {
    if (!(err instanceof RateUnavailable)) throw err
    // A current rate's failure names today (the day it was wanted for); a historical one names the payday.
    const day = terms.pricingMode === 'current' ? today : payday
    throw new PricingFailed(`no BTC rate for ${currency} on ${day}: ${err.reason}`)
  }
}

/** `round_half_up(amount × 10^11 / rate)` exactly; an amount worth less than 1 msat fails the period. */
function positive(terms: PricingTerms, btcRate: string): number {
  let amountMsat: number
  try {
    amountMsat = fiatToMsat(terms.amount, btcRate, 'half_up')
  } catch (err) {
    if (err instanceof RangeError) throw new PricingFailed(`${terms.amount} ${terms.currency} cannot be paid: ${err.message}`)
    throw err
  }
  if (amountMsat <= 0) {
    const at = terms.currency === 'sat' ? '' : ` at ${btcRate} ${terms.currency}/BTC`
    throw new PricingFailed(`${terms.amount} ${terms.currency}${at} is less than 1 msat`)
  }
  return amountMsat
}
