// A loopback stand-in for the BTC rate providers (LNbits' spot providers, Kraken and CoinGecko): one HTTP server where
// `/<provider>/…` answers that provider's real paths with its real response shapes, from the fixtures below.
// Each provider can be switched to misbehave: down (HTTP 500), slow (never answers), outlier (a price far off
// the others), missing_currency (answers as providers do for a pair they lack), missing_date (history without
// the requested day). Daily series follow the clock the test gives, so "today" is the test's today.
import http from 'node:http'
import type { AddressInfo } from 'node:net'

export type FakeRateProvider = 'coinbase' | 'kraken' | 'bitstamp' | 'binance' | 'bitfinex' | 'yadio' | 'coingecko'
export type RateProviderFault = 'down' | 'slow' | 'outlier' | 'missing_currency' | 'missing_date'

export const fakeRateProviders: readonly FakeRateProvider[] = [
  'coinbase',
  'kraken',
  'bitstamp',
  'binance',
  'bitfinex',
  'yadio',
  'coingecko',
]

/**
 * Spot prices as each provider writes them (yadio sends JSON numbers, the rest strings; Binance's USD is its
 * USDT book). A provider without a currency here answers the way it does for a pair it does not trade.
 */
export const spotFixture: Record<Exclude<FakeRateProvider, 'coingecko'>, Record<string, string>> = {
  coinbase: { USD: '60000.12', EUR: '55000.50', GBP: '47000.25', ARS: '61234567.89', NGN: '98765432.10' },
  kraken: { USD: '60010.10000', EUR: '55010.00000', GBP: '47005.10000' },
  bitstamp: { USD: '60005', EUR: '54995', GBP: '46990' },
  binance: { USD: '59990.50000000', EUR: '55003.21000000', ARS: '61240000.00000000' },
  bitfinex: { USD: '60002.0', EUR: '55001.0' },
  yadio: { USD: '60001.5', EUR: '55002.75', ARS: '61230000.5', NGN: '98770000.123' },
}

/** Kraken's internal pair names, the keys of its `result` objects. */
const krakenPairKeys: Record<string, string> = {
  USD: 'XXBTZUSD',
  EUR: 'XXBTZEUR',
  GBP: 'XXBTZGBP',
  CAD: 'XXBTZCAD',
  JPY: 'XXBTZJPY',
  CHF: 'XBTCHF',
  AUD: 'XBTAUD',
}
const krakenDailyBase: Record<string, number> = {
  USD: 40_000, EUR: 37_000, GBP: 32_000, CAD: 54_000, JPY: 6_000_000, CHF: 36_000, AUD: 60_000,
}
/** Kraken's OHLC keeps only the most recent 720 candles, whatever `since` says. */
const krakenSeriesLength = 720
/** CoinGecko's history endpoint, as the aggregator of the fake, covers these (lower-case keys on the wire). */
const coingeckoBase: Record<string, number> = { usd: 40_000, eur: 37_000, ars: 50_000_000, ngn: 90_000_000 }
/** The public CoinGecko plan serves the past 365 days only. */
const coingeckoDays = 365
const msPerDay = 86_400_000

/** The close Kraken's fake series reports for `day`: a different, exact one-decimal price every day. */
export function krakenDailyClose(currency: string, day: string): string {
  const n = epochDay(day)
  return `${krakenDailyBase[currency] + (n % 1000) * 7}.${n % 10}`
}

/** CoinGecko's fake price on `day`: 16–17 significant digits, more than a double can carry. */
export function coingeckoPrice(currency: string, day: string): string {
  const n = epochDay(day)
  // JSON numbers carry no trailing zeros, so neither does the fixture.
  const fraction = String((n * 7_919_113) % 1_000_000_000).padStart(9, '0').replace(/0+$/, '')
  const whole = coingeckoBase[currency.toLowerCase()] + (n % 1000) * 13
  return fraction ? `${whole}.${fraction}` : String(whole)
}

export interface RateProvidersFake {
  /** The base URL of every provider, to pass as the rates room's `providers`. */
  urls: Record<FakeRateProvider, string>
  fault(provider: FakeRateProvider, fault: RateProviderFault | undefined): void
  /** Requests received, for one provider or all. */
  requests(provider?: FakeRateProvider): number
  /** Paths received (with query), in order, e.g. `/kraken/0/public/OHLC?pair=XBTUSD&…`. */
  requestLog(): string[]
  close(): Promise<void>
}

export async function startRateProviders(opts: { clock: { now(): number } }): Promise<RateProvidersFake> {
  const faults = new Map<FakeRateProvider, RateProviderFault>()
  const log: string[] = []

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake')
    const [, provider] = url.pathname.split('/') as [string, FakeRateProvider]
    if (!fakeRateProviders.includes(provider)) return send(res, 404, '{"error":"unknown provider"}')
    log.push(`${url.pathname}${url.search}`)
    const fault = faults.get(provider)
    if (fault === 'slow') return // never answers; the client's timeout ends it, close() drops the socket
    if (fault === 'down') return send(res, 500, '<html><body>500 Internal Server Error</body></html>', 'text/html')
    const path = url.pathname.slice(provider.length + 1)
    const answer = route(provider, path, url.searchParams, fault, today(opts.clock.now()))
    send(res, answer.status, answer.body)
  })

  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  const urls = Object.fromEntries(fakeRateProviders.map(p => [p, `http://127.0.0.1:${port}/${p}`])) as Record<
    FakeRateProvider,
    string
  >
  return {
    urls,
    fault(provider, fault) {
      if (fault) faults.set(provider, fault)
      else faults.delete(provider)
    },
    requests: provider => log.filter(path => provider === undefined || path.startsWith(`/${provider}/`)).length,
    requestLog: () => [...log],
    close: () =>
      new Promise(resolve => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

interface Answer {
  status: number
  body: string
}

function route(
  provider: FakeRateProvider,
  path: string,
  query: URLSearchParams,
  fault: RateProviderFault | undefined,
  todayDay: number,
): Answer {
  const spot = (currency: string): string | undefined => {
    if (fault === 'missing_currency' || provider === 'coingecko') return undefined
    const price = spotFixture[provider][currency]
    return price !== undefined && fault === 'outlier' ? `9${price}` : price
  }
  switch (`${provider} ${path}`) {
    case 'coinbase /v2/exchange-rates': {
      const rates = Object.fromEntries(Object.keys(spotFixture.coinbase).flatMap(c => (spot(c) ? [[c, spot(c)]] : [])))
      return ok({ data: { currency: query.get('currency'), rates } })
    }
    case 'kraken /0/public/Ticker': {
      const currency = (query.get('pair') ?? '').replace(/^XBT/, '')
      const price = spot(currency)
      if (!price) return ok({ error: ['EQuery:Unknown asset pair'] })
      const ticker = {
        a: [price, '1', '1.000'], b: [price, '2', '2.000'], c: [price, '0.00150000'], v: ['812.1', '2390.4'],
        p: [price, price], t: [raw('11801'), raw('30552')], l: [price, price], h: [price, price], o: price,
      }
      return ok({ error: [], result: { [krakenPairKeys[currency]]: ticker } })
    }
    case 'kraken /0/public/OHLC':
      return krakenOhlc(query, fault, todayDay)
    case 'yadio /exrates/BTC': {
      const rates = Object.fromEntries(Object.keys(spotFixture.yadio).flatMap(c => (spot(c) ? [[c, raw(spot(c)!)]] : [])))
      return ok({ BTC: rates, base: 'BTC', timestamp: raw(String(todayDay * msPerDay)) })
    }
    case 'binance /api/v3/ticker/price': {
      const symbol = query.get('symbol') ?? ''
      const price = spot(symbol === 'BTCUSDT' ? 'USD' : symbol.replace(/^BTC/, ''))
      if (!price) return { status: 400, body: '{"code":-1121,"msg":"Invalid symbol."}' }
      return ok({ symbol, price })
    }
    case 'coingecko /api/v3/coins/bitcoin/history':
      return coingeckoHistory(query, fault, todayDay)
  }
  const bitstamp = /^\/api\/v2\/ticker\/btc([a-z]{3})\/$/.exec(path)
  if (provider === 'bitstamp' && bitstamp) {
    const price = spot(bitstamp[1].toUpperCase())
    if (!price) return { status: 404, body: '{"status":"error","reason":"Not found"}' }
    const ts = String(todayDay * 86_400)
    return ok({ timestamp: ts, open: price, high: price, low: price, last: price, volume: '1523.20198811',
      vwap: price, bid: price, ask: price, side: '0', open_24: price, percent_change_24: '0.42' })
  }
  const bitfinex = /^\/v1\/pubticker\/btc([a-z]{3})$/.exec(path)
  if (provider === 'bitfinex' && bitfinex) {
    const price = spot(bitfinex[1].toUpperCase())
    if (!price) return { status: 400, body: '{"message":"Unknown symbol"}' }
    return ok({ mid: price, bid: price, ask: price, last_price: price, low: price, high: price,
      volume: '2211.48207713', timestamp: `${todayDay * 86_400}.123456` })
  }
  return { status: 404, body: '{"error":"not found"}' }
}

/** Candles of whole UTC days from just after `since` to today, the last one still open, at most 720. */
function krakenOhlc(query: URLSearchParams, fault: RateProviderFault | undefined, todayDay: number): Answer {
  const currency = (query.get('pair') ?? '').replace(/^XBT/, '')
  if (query.get('interval') !== '1440') return ok({ error: ['EGeneral:Invalid arguments'] })
  const pairKey = krakenPairKeys[currency]
  if (!pairKey || fault === 'missing_currency') return ok({ error: ['EQuery:Unknown asset pair'] })
  const since = Number(query.get('since') ?? '0')
  const firstAfterSince = Math.floor(since / 86_400) + 1 // candle time must be > since
  const first = Math.max(firstAfterSince, todayDay - krakenSeriesLength + 1)
  const candles: unknown[] = []
  for (let n = first; n <= todayDay; n++) {
    // missing_date: the requested day (the first after `since`) is absent, as after a trading halt.
    if (fault === 'missing_date' && n === firstAfterSince) continue
    const day = dayText(n)
    const close = krakenDailyClose(currency, day)
    const outlier = fault === 'outlier' ? `9${close}` : close
    candles.push([raw(String(n * 86_400)), outlier, outlier, outlier, outlier, outlier, '42.17735200', raw('5721')])
  }
  return ok({ error: [], result: { [pairKey]: candles, last: raw(String((todayDay - 1) * 86_400)) } })
}

function coingeckoHistory(query: URLSearchParams, fault: RateProviderFault | undefined, todayDay: number): Answer {
  const m = /^(\d{2})-(\d{2})-(\d{4})$/.exec(query.get('date') ?? '')
  if (!m) return { status: 400, body: '{"error":"invalid date"}' }
  const n = Date.UTC(Number(m[3]), Number(m[2]) - 1, Number(m[1])) / msPerDay
  if (todayDay - n > coingeckoDays) {
    return {
      status: 401,
      body: toJson({ error: { status: { timestamp: new Date(todayDay * msPerDay).toISOString(), error_code: raw('10012'),
        error_message: 'Your request exceeds the allowed time range. Public API users are limited to querying ' +
          'historical data within the past 365 days.' } } }),
    }
  }
  const identity = { id: 'bitcoin', symbol: 'btc', name: 'Bitcoin',
    image: { thumb: 'https://example.invalid/thumb.png', small: 'https://example.invalid/small.png' } }
  // A day with no data (in the future, or missing_date) answers 200 with the identity and no market_data.
  if (n > todayDay || fault === 'missing_date') return ok(identity)
  const day = dayText(n)
  const prices: Record<string, Raw> = {}
  for (const c of Object.keys(coingeckoBase)) {
    if (fault === 'missing_currency' && c !== 'usd') continue
    prices[c] = raw(fault === 'outlier' ? `9${coingeckoPrice(c, day)}` : coingeckoPrice(c, day))
  }
  return ok({
    ...identity,
    market_data: { current_price: prices, market_cap: prices, total_volume: prices },
    community_data: { facebook_likes: null, twitter_followers: raw('6543210') },
    public_interest_stats: { alexa_rank: null, bing_matches: null },
  })
}

// JSON with numbers written from their exact text, as the providers do: JSON.stringify would go through a
// double and round away the digits the tests check.
class Raw {
  constructor(readonly text: string) {}
}
const raw = (text: string) => new Raw(text)

function toJson(value: unknown): string {
  if (value instanceof Raw) return value.text
  if (Array.isArray(value)) return `[${value.map(toJson).join(',')}]`
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}:${toJson(v)}`).join(',')}}`
  }
  return JSON.stringify(value)
}

function ok(body: unknown): Answer {
  return { status: 200, body: toJson(body) }
}

function send(res: http.ServerResponse, status: number, body: string, type = 'application/json') {
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) }).end(body)
}

function today(nowMs: number): number {
  return Math.floor(nowMs / msPerDay)
}

function epochDay(day: string): number {
  return Date.UTC(Number(day.slice(0, 4)), Number(day.slice(5, 7)) - 1, Number(day.slice(8, 10))) / msPerDay
}

function dayText(n: number): string {
  return new Date(n * msPerDay).toISOString().slice(0, 10)
}
