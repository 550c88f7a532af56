// CoinGecko's price of bitcoin on a date, the aggregator payroll falls back to for currencies Kraken does not
// quote. The public API serves the past 365 days only; the snapshot is taken at 00:00 UTC.
import { parseDecimal, formatDecimal } from './decimal.js'
import { getProviderJson, joinUrl, pick, ProviderFailure, type ProviderRequestOptions } from './provider-request.js'
import { dayMonthYear } from './utc-day.js'

/** BTC price in `currency` on `day` as canonical decimal text; throws ProviderFailure when CoinGecko has none. */
export async function coingeckoPriceOn(
  baseUrl: string,
  currency: string,
  day: string,
  request: ProviderRequestOptions,
): Promise<string> {
  const url = joinUrl(baseUrl, `/api/v3/coins/bitcoin/history?date=${dayMonthYear(day)}&localization=false`)
  const body = await getProviderJson(url, request)
  // A day CoinGecko has no data for answers 200 with the coin's identity and no market_data at all.
  const prices = pick(body, 'market_data', 'current_price')
  if (typeof prices !== 'object' || prices === null) throw new ProviderFailure('no market data for that day')
  const price = pick(prices, currency.toLowerCase())
  if (typeof price !== 'string') throw new ProviderFailure(`no ${currency} price for that day`)
  let value
  try {
    value = parseDecimal(price)
  } catch {
    throw new ProviderFailure(`price is not a number: ${price.slice(0, 40)}`)
  }
  if (value.units <= 0n) throw new ProviderFailure(`price is not positive: ${price.slice(0, 40)}`)
  return formatDecimal(value)
}
