// What the rates room answers, and how it says it cannot. A missing rate is always an error naming the currency
// (and the day, for history): never a made-up rate, never today's rate standing in for a past day
// (payroll fails the period instead; lnbits/tpos#52 issued a 1-sat invoice for a €30.50 order that way).
import { OperationError, type ErrorCode } from '../bus/index.js'

/** Where a rate came from; payroll records it as `rate_source`. */
export type RateSource = 'spot' | 'kraken' | 'coingecko'

export interface RateQuote {
  /** Upper-case ISO 4217 code. */
  currency: string
  /** Fiat units per BTC, exact canonical decimal text ("60000.12"). */
  btcRate: string
  source: RateSource
  /** The closed UTC day the rate belongs to (`YYYY-MM-DD`); absent for a current rate. */
  date?: string
  /** For a spot rate: the providers whose prices made the median. */
  providers?: string[]
}

/**
 * No rate could be established. The message is the text payroll records as the period's failure (docs/payroll.md,
 * "Paying a period"):
 * `no BTC rate for <CUR> on <YYYY-MM-DD>: <reason>` for a day, `no BTC rate for <CUR>: <reason>` for now.
 */
export class RateUnavailable extends OperationError {
  constructor(
    code: ErrorCode,
    readonly currency: string,
    readonly date: string | undefined,
    readonly reason: string,
  ) {
    super(code, `no BTC rate for ${currency}${date === undefined ? '' : ` on ${date}`}: ${reason}`)
    this.name = 'RateUnavailable'
  }
}
