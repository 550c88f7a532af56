// The rates room: current and historical BTC prices of fiat currencies, and exact fiat ↔ msat
// arithmetic. What the daemon, restaurant and payroll may use.
export {
  createRates,
  defaultRateProviderUrls,
  type RateProviderName,
  type Rates,
  type RatesOptions,
} from './rates.js'
export { RateUnavailable, type RateQuote, type RateSource } from './rate-quote.js'
export { fiatToMsat, fiatToSats, normalizeDecimal, satsPerUnit, type Rounding } from './decimal.js'
export { isKnownCurrency } from './currencies.js'
