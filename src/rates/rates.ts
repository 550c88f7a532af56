// The rates room: current BTC prices for restaurant quotes and payroll's `current` mode, and closed days'
// prices for payroll's `payday` mode. Built once by the daemon with the provider base URLs from config.
import type { Logger } from 'pino'
import { type Clock, OperationError } from '../bus/index.js'
import type { SqlStore } from '../store/index.js'
import { isKnownCurrency } from './currencies.js'
import { createHistoricalRates } from './historical.js'
import { rateHistoryStore } from './rate-history-store.js'
import { RateUnavailable, type RateQuote } from './rate-quote.js'
import { createSpotRates } from './spot.js'
import type { SpotProviderName } from './spot-providers.js'
import { isUtcDay, utcDayOf } from './utc-day.js'

export type RateProviderName = SpotProviderName | 'coingecko'

/** The public hosts. Only the daemon's defaults use them; tests pass loopback URLs for every provider. */
export const defaultRateProviderUrls: Readonly<Record<RateProviderName, string>> = {
  coinbase: 'https://api.coinbase.com',
  kraken: 'https://api.kraken.com',
  bitstamp: 'https://www.bitstamp.net',
  binance: 'https://api.binance.com',
  bitfinex: 'https://api.bitfinex.com',
  yadio: 'https://api.yadio.io',
  coingecko: 'https://api.coingecko.com',
}

/** lnbits gives each provider 3 s. */
const defaultTimeoutMs = 3_000
/** A current rate is reused for a minute: quotes in a burst agree, and providers are not hammered. */
const defaultSpotCacheMs = 60_000

export interface RatesOptions {
  /** The database on either engine (SQLite or PostgreSQL): the room's one table is rate_history. */
  sql: SqlStore
  /** Base URL per provider: absent → its public host, `false` → not asked. Kraken serves spot and history. */
  providers?: Partial<Record<RateProviderName, string | false>>
  clock: Clock
  log: Logger
  fetch?: typeof globalThis.fetch
  /** Per provider request. */
  timeoutMs?: number
  spotCacheMs?: number
}

export interface Rates {
  /** Current median BTC price of a known currency; throws RateUnavailable naming the currency. */
  spot(currency: string): Promise<RateQuote>
  /**
   * BTC price on a UTC day (`YYYY-MM-DD`) per historical.ts's reach table, cached once the day is closed; throws
   * RateUnavailable with `no BTC rate for <CUR> on <day>: <reason>`. Today or a later day has no closed rate
   * yet, so it answers the current spot rate (source `spot`, no `date`) — the value payroll's rule "a payday
   * today or in the future behaves as current" asks for — and never stores it as that day's rate.
   */
  historical(currency: string, day: string): Promise<RateQuote>
  /** True for an upper-case ISO 4217 code the rates room can price ("EUR"); false for "sat" or "eur". */
  knownCurrency(code: string): boolean
}

export function createRates(opts: RatesOptions): Rates {
  const urls = providerUrls(opts.providers ?? {})
  const request = { fetch: opts.fetch ?? globalThis.fetch, timeoutMs: opts.timeoutMs ?? defaultTimeoutMs }
  const spotRates = createSpotRates({
    baseUrls: {
      coinbase: urls.coinbase,
      kraken: urls.kraken,
      bitstamp: urls.bitstamp,
      binance: urls.binance,
      bitfinex: urls.bitfinex,
      yadio: urls.yadio,
    },
    ...request,
    cacheMs: opts.spotCacheMs ?? defaultSpotCacheMs,
    clock: opts.clock,
    log: opts.log,
  })
  const history = createHistoricalRates({
    krakenBaseUrl: urls.kraken,
    coingeckoBaseUrl: urls.coingecko,
    store: rateHistoryStore(opts.sql),
    request,
    clock: opts.clock,
    log: opts.log,
  })

  function requireKnown(currency: string, day?: string): void {
    if (!isKnownCurrency(currency)) {
      throw new RateUnavailable('invalid_input', currency, day, `${currency} is not a currency relaypay knows`)
    }
  }

  return {
    async spot(currency) {
      requireKnown(currency)
      return spotRates.spot(currency)
    },
    async historical(currency, day) {
      if (!isUtcDay(day)) throw new OperationError('invalid_input', `not a YYYY-MM-DD day: ${day}`)
      requireKnown(currency, day)
      const today = utcDayOf(opts.clock.now())
      if (day < today) return history.closedDay(currency, day, today)
      try {
        return await spotRates.spot(currency)
      } catch (err) {
        // Keep the day in the message: payroll records it as the period's failure.
        if (err instanceof RateUnavailable) throw new RateUnavailable(err.code, currency, day, err.reason)
        throw err
      }
    },
    knownCurrency: isKnownCurrency,
  }
}

function providerUrls(given: Partial<Record<RateProviderName, string | false>>) {
  const urls: Partial<Record<RateProviderName, string>> = {}
  for (const name of Object.keys(defaultRateProviderUrls) as RateProviderName[]) {
    const url = given[name] ?? defaultRateProviderUrls[name]
    if (url !== false) urls[name] = url
  }
  return urls
}
