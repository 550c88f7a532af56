// Kraken's daily OHLC series, payroll's first source of past rates for the currencies Kraken quotes. One
// request answers every daily candle from `since` up to now, at most the latest 720,
// oldest first; the final candle is the current day, still open, and is never used as a closed day's rate.
import { normalizeDecimal } from './decimal.js'
import { getProviderJson, joinUrl, ProviderFailure, type ProviderRequestOptions } from './provider-request.js'
import { krakenResult } from './spot-providers.js'
import { utcDayOf, utcDayStartSeconds } from './utc-day.js'

/** Candle length in minutes for one UTC day; daily candles start at 00:00 UTC. */
const dailyIntervalMinutes = 1440
const secondsPerDay = 86_400
/** Kraken answers at most this many candles, the most recent, whatever `since` asks for. */
const maxCandles = 720
/** Position of the close price in a candle `[time, open, high, low, close, vwap, volume, count]`. */
const closeIndex = 4

export interface DailyClose {
  date: string
  /** Canonical decimal text, fiat per BTC. */
  close: string
}

export interface KrakenDailySeries {
  /** Closed days from the requested day on, oldest first. */
  closed: DailyClose[]
  /** The day of the final, still open candle, if the answer had any candle. */
  openDay?: string
  /** The answer was cut at Kraken's 720 candles: days before its first candle are out of the series' reach. */
  truncated: boolean
}

/** Daily closes of XBT/<currency> from `fromDay` on; throws ProviderFailure when Kraken gives no usable series. */
export async function krakenDailySeries(
  baseUrl: string,
  currency: string,
  fromDay: string,
  request: ProviderRequestOptions,
): Promise<KrakenDailySeries> {
  // One second before the day's start, so the day's own candle is included whether Kraken treats `since` as
  // exclusive or inclusive.
  const since = utcDayStartSeconds(fromDay) - 1
  const url = joinUrl(baseUrl, `/0/public/OHLC?pair=XBT${currency}&interval=${dailyIntervalMinutes}&since=${since}`)
  const result = krakenResult(await getProviderJson(url, request))
  // The pair key is Kraken's internal name (XXBTZUSD, XBTCHF, or "BTC/USD" with assetVersion=1); `last` sits
  // beside it.
  const pairKey = Object.keys(result).find(key => key !== 'last')
  const candles = pairKey === undefined ? undefined : result[pairKey]
  if (!Array.isArray(candles)) throw new ProviderFailure('answer has no OHLC series')
  const days = candles.map(readCandle)
  const open = days.pop()
  return {
    closed: days.filter(d => d.date >= fromDay),
    openDay: open?.date,
    truncated: candles.length >= maxCandles,
  }
}

function readCandle(candle: unknown): DailyClose {
  if (!Array.isArray(candle)) throw new ProviderFailure('OHLC entry is not a list')
  const time = Number(candle[0])
  const close = candle[closeIndex]
  if (!Number.isSafeInteger(time) || time % secondsPerDay !== 0) {
    throw new ProviderFailure(`OHLC entry does not start a UTC day: ${String(candle[0]).slice(0, 20)}`)
  }
  if (typeof close !== 'string') throw new ProviderFailure('OHLC entry has no close price')
  try {
    return { date: utcDayOf(time * 1000), close: normalizeDecimal(close) }
  } catch {
    throw new ProviderFailure(`OHLC close is not a number: ${close.slice(0, 40)}`)
  }
}
