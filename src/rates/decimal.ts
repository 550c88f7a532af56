// Exact decimal arithmetic for fiat amounts and BTC rates. A decimal is a bigint of units and a scale (value =
// units / 10^scale), so "60000.12" is {units: 6000012n, scale: 2}. No float ever touches money: providers'
// numbers arrive as text (see json-numbers.ts) and conversions to msat divide bigints with an explicit rounding.

export interface Decimal {
  units: bigint
  /** Digits after the decimal point; never negative. */
  scale: number
}

export type Rounding = 'half_up' | 'ceil'

/** 1 BTC = 10^8 sat = 10^11 msat. */
const msatPerBtcExponent = 11
const satPerBtcExponent = 8
/** Refuses exponents that would build absurdly large bigints from a hostile or broken provider answer. */
const maxExponent = 64
const decimalText = /^([+-]?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/

/** Parses a plain decimal ("12.50", "-3", "60000.10000") or an exponent form ("6.5e4"); throws on anything else. */
export function parseDecimal(text: string): Decimal {
  const m = decimalText.exec(text.trim())
  if (!m) throw new RangeError(`not a decimal number: ${JSON.stringify(text)}`)
  const [, sign, whole, fraction = '', exponentText = '0'] = m
  const exponent = Number(exponentText)
  if (Math.abs(exponent) > maxExponent) throw new RangeError(`decimal exponent out of range: ${text}`)
  let units = BigInt(whole + fraction)
  let scale = fraction.length - exponent
  if (scale < 0) {
    units *= 10n ** BigInt(-scale)
    scale = 0
  }
  return { units: sign === '-' ? -units : units, scale }
}

/** The canonical text of a decimal: no exponent, no trailing fractional zeros, no "-0". */
export function formatDecimal(d: Decimal): string {
  let { units, scale } = d
  while (scale > 0 && units % 10n === 0n) {
    units /= 10n
    scale--
  }
  const negative = units < 0n
  const digits = (negative ? -units : units).toString().padStart(scale + 1, '0')
  const whole = digits.slice(0, digits.length - scale)
  const fraction = digits.slice(digits.length - scale)
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`
}

/** Canonical text of a decimal given as text ("60000.10000" → "60000.1"); throws if it is not a number. */
export function normalizeDecimal(text: string): string {
  return formatDecimal(parseDecimal(text))
}

/**
 * Fiat amount → msat: `amount_msat = round(amount × 10^11 / btcRate)`, exactly. `half_up` is payroll's rule
 * (docs/payroll.md, "Paying a period"); `ceil` is what a seller wants so the invoice never falls short (the
 * restaurant's quotes). Throws RangeError on a negative amount, a rate that is not positive, or a result beyond
 * Number.MAX_SAFE_INTEGER msat.
 */
export function fiatToMsat(amount: string, btcRate: string, rounding: Rounding): number {
  return convert(amount, btcRate, msatPerBtcExponent, rounding)
}

/**
 * Fiat amount → whole sats: `round(amount × 10^8 / btcRate)`. Rounding once here equals rounding msat up and
 * then up again to whole sats, so restaurant's `ceil(total × sats_per_unit)` never suffers from a truncated
 * sats-per-unit figure.
 */
export function fiatToSats(amount: string, btcRate: string, rounding: Rounding): number {
  return convert(amount, btcRate, satPerBtcExponent, rounding)
}

/**
 * Sats per fiat unit (10^8 / btcRate) as a decimal string rounded half up to `decimals` digits, trailing zeros
 * dropped. For display and the records that carry it (`fiat_rate`, an order's `exchange_rate`); amounts are
 * computed from btcRate itself with fiatToMsat / fiatToSats, never from this rounded figure.
 */
export function satsPerUnit(btcRate: string, decimals = 8): string {
  const rate = positiveRate(btcRate)
  const numerator = 10n ** BigInt(satPerBtcExponent + decimals + rate.scale)
  return formatDecimal({ units: divide(numerator, rate.units, 'half_up'), scale: decimals })
}

function convert(amount: string, btcRate: string, exponent: number, rounding: Rounding): number {
  const value = parseDecimal(amount)
  if (value.units < 0n) throw new RangeError(`amount must not be negative: ${amount}`)
  const rate = positiveRate(btcRate)
  // amount × 10^e / rate = (a / 10^sa) × 10^e / (r / 10^sr) = a × 10^(e + sr) / (r × 10^sa)
  const numerator = value.units * 10n ** BigInt(exponent + rate.scale)
  const denominator = rate.units * 10n ** BigInt(value.scale)
  const result = divide(numerator, denominator, rounding)
  if (result > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError(`${amount} at ${btcRate} per BTC is too large`)
  return Number(result)
}

function positiveRate(btcRate: string): Decimal {
  const rate = parseDecimal(btcRate)
  if (rate.units <= 0n) throw new RangeError(`BTC rate must be positive: ${btcRate}`)
  return rate
}

/** n / d for n ≥ 0, d > 0 with the given rounding. */
function divide(n: bigint, d: bigint, rounding: Rounding): bigint {
  const quotient = n / d
  const remainder = n % d
  if (remainder === 0n) return quotient
  if (rounding === 'ceil') return quotient + 1n
  return 2n * remainder >= d ? quotient + 1n : quotient
}
