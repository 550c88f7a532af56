// BTC rates of past UTC days, as far back as payroll promises each source reaches:
//
//   payday age     | currency Kraken quotes        | any other currency
//   under 1 year   | Kraken daily close            | CoinGecko price on the date
//   1 to 2 years   | Kraken daily close            | unavailable
//   over 2 years   | unavailable                   | unavailable
//
// Age is measured in calendar years back from today (UTC, from the injected clock): "under 1 year" is a day
// after the same date one year ago, "over 2 years" a day before the same date two years ago. The aggregator
// is the fallback only for currencies the exchange does not quote: a Kraken currency
// never falls through to CoinGecko, whose 00:00 snapshot is a different number from the day's close.
import type { Logger } from 'pino'
import type { Clock } from '../bus/index.js'
import { coingeckoPriceOn } from './coingecko-history.js'
import { krakenFiat } from './currencies.js'
import { krakenDailySeries } from './kraken-ohlc.js'
import { ProviderFailure, type ProviderRequestOptions } from './provider-request.js'
import type { RateHistoryStore } from './rate-history-store.js'
import { RateUnavailable, type RateQuote } from './rate-quote.js'
import { yearsBefore } from './utc-day.js'

export interface HistoricalRatesDeps {
  krakenBaseUrl?: string
  coingeckoBaseUrl?: string
  store: RateHistoryStore
  request: ProviderRequestOptions
  clock: Clock
  log: Logger
}

/** Rate of a closed day (`day` < today), from the cache or the provider the reach table names. */
export function createHistoricalRates(deps: HistoricalRatesDeps) {
  const inFlight = new Map<string, Promise<RateQuote>>()

  async function fetchClosedDay(currency: string, day: string, today: string): Promise<RateQuote> {
    const unavailable = (reason: string) => new RateUnavailable('upstream_failed', currency, day, reason)
    if (day < yearsBefore(today, 2)) throw unavailable('older than 2 years, beyond the reach of historical rates')
    if (krakenFiat.has(currency)) {
      if (deps.krakenBaseUrl === undefined) throw unavailable('the kraken provider is not configured ([rates] providers.kraken)')
      return fromKraken(deps.krakenBaseUrl, currency, day, today)
    }
    if (day <= yearsBefore(today, 1)) {
      throw unavailable(`older than 1 year; Kraken does not quote ${currency} and the aggregator reaches back 1 year`)
    }
    if (deps.coingeckoBaseUrl === undefined) throw unavailable('the coingecko provider is not configured ([rates] providers.coingecko)')
    let btcRate: string
    try {
      btcRate = await coingeckoPriceOn(deps.coingeckoBaseUrl, currency, day, deps.request)
    } catch (err) {
      if (!(err instanceof ProviderFailure)) throw err
      deps.log.warn({ currency, day, reason: err.reason }, 'coingecko gave no historical rate')
      throw unavailable(`coingecko: ${err.reason}`)
    }
    await deps.store.remember([{ currency, date: day, btcRate, source: 'coingecko', fetchedAt: deps.clock.now() }])
    return { currency, btcRate, source: 'coingecko', date: day }
  }

  async function fromKraken(baseUrl: string, currency: string, day: string, today: string): Promise<RateQuote> {
    const unavailable = (reason: string) => new RateUnavailable('upstream_failed', currency, day, reason)
    let series
    try {
      series = await krakenDailySeries(baseUrl, currency, day, deps.request)
    } catch (err) {
      if (!(err instanceof ProviderFailure)) throw err
      deps.log.warn({ currency, day, reason: err.reason }, 'kraken gave no daily series')
      throw unavailable(`kraken: ${err.reason}`)
    }
    // Every closed day in the answer is kept: a catch-up of several paydays then costs one request, and a
    // closed day cannot change. Days our clock still calls open are left out whatever Kraken's clock says.
    const fetchedAt = deps.clock.now()
    const closed = series.closed.filter(d => d.date < today)
    await deps.store.remember(closed.map(d => ({ currency, date: d.date, btcRate: d.close, source: 'kraken', fetchedAt })))
    const found = closed.find(d => d.date === day)
    if (found) return { currency, btcRate: found.close, source: 'kraken', date: day }
    if (series.openDay !== undefined && series.openDay <= day) {
      throw unavailable("kraken: the day's candle has not closed yet")
    }
    if (series.truncated) throw unavailable('kraken: the daily series does not reach back that far')
    throw unavailable('kraken: no daily candle for that day')
  }

  return {
    /** `day` must be a valid `YYYY-MM-DD` before `today`, and `currency` a known code; the caller checks both. */
    closedDay(currency: string, day: string, today: string): Promise<RateQuote> {
      const key = `${currency} ${day}`
      const pending = inFlight.get(key)
      if (pending) return pending
      // The stored-rate read is part of the shared lookup: callers arriving while it runs wait for the same answer
      // instead of each finding nothing yet and asking the provider.
      const lookup = (async (): Promise<RateQuote> => {
        const cached = await deps.store.find(currency, day)
        if (cached) return { currency, btcRate: cached.btcRate, source: cached.source, date: day }
        return fetchClosedDay(currency, day, today)
      })().finally(() => inFlight.delete(key))
      inFlight.set(key, lookup)
      return lookup
    },
  }
}
