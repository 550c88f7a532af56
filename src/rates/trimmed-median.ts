// How several providers' prices become one: the median, after dropping any price too far from the median of
// all of them. lnbits drops quotes more than 1 % from the median when it has at least three; a broken or stale
// provider then cannot move the rate, and two honest ones cannot be outvoted by one.
import { formatDecimal, parseDecimal, type Decimal } from './decimal.js'

/** A quote further than this from the median of all quotes (with three or more) is an outlier: 1 %. */
export const outlierToleranceBasisPoints = 100n

export interface ProviderPrice {
  provider: string
  /** Fiat per BTC as exact decimal text; positive. */
  price: string
}

export interface TrimmedMedian {
  /** Canonical decimal text. */
  btcRate: string
  /** Providers whose prices were kept, in input order. */
  used: string[]
  /** Providers dropped as outliers, in input order. */
  dropped: string[]
}

/** The median of the prices within tolerance of the overall median; throws on an empty list. */
export function trimmedMedian(prices: readonly ProviderPrice[]): TrimmedMedian {
  if (prices.length === 0) throw new RangeError('no prices to aggregate')
  const parsed = prices.map(p => ({ provider: p.provider, value: parseDecimal(p.price) }))
  const scale = Math.max(...parsed.map(p => p.value.scale))
  const all = parsed.map(p => ({ provider: p.provider, units: p.value.units * 10n ** BigInt(scale - p.value.scale) }))
  if (all.length < 3) return result(all, [], scale)

  const center = medianUnits(all.map(p => p.units), scale)
  // Compare |v − m| ≤ m × tolerance at the median's scale, all in integers.
  const lift = 10n ** BigInt(center.scale - scale)
  const distance = (units: bigint) => abs(units * lift - center.units)
  const within = (units: bigint) => distance(units) * 10_000n <= center.units * outlierToleranceBasisPoints
  const kept = all.filter(p => within(p.units))
  if (kept.length >= 2) return result(kept, all.filter(p => !within(p.units)), scale)

  // Fewer than two agree with the middle: no consensus to take a median of, so take the single quote
  // nearest the middle, as lnbits does, rather than fail the caller outright.
  const nearest = all.reduce((best, p) => (distance(p.units) < distance(best.units) ? p : best))
  return result([nearest], all.filter(p => p !== nearest), scale)
}

function result(kept: { provider: string; units: bigint }[], dropped: { provider: string }[], scale: number) {
  return {
    btcRate: formatDecimal(medianUnits(kept.map(p => p.units), scale)),
    used: kept.map(p => p.provider),
    dropped: dropped.map(p => p.provider),
  }
}

/** Exact median of integers at a common scale; an even count averages the middle pair one digit finer. */
function medianUnits(values: bigint[], scale: number): Decimal {
  const sorted = [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
  const mid = sorted.length >> 1
  if (sorted.length % 2 === 1) return { units: sorted[mid], scale }
  return { units: (sorted[mid - 1] + sorted[mid]) * 5n, scale: scale + 1 }
}

function abs(n: bigint): bigint {
  return n < 0n ? -n : n
}
