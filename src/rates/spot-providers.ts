// The spot price providers: lnbits' default list minus the two without a plain JSON
// price — Blockchain answers formatted text ("60,123.45") and Exir only lists rial pairs — plus where each one
// keeps the price in its answer. Each provider is asked only for the currencies it trades: asking an exchange
// for a pair it lacks earns 4xx answers, log noise and, at volume, IP bans (lnbits/lnbits#2116, #2600).
import { krakenFiat } from './currencies.js'
import { pick, ProviderFailure } from './provider-request.js'

export type SpotProviderName = 'coinbase' | 'kraken' | 'bitstamp' | 'binance' | 'bitfinex' | 'yadio'

export interface SpotProvider {
  name: SpotProviderName
  /** Currencies this provider is asked about; undefined when it prices every currency in one answer. */
  quotes?: ReadonlySet<string>
  /** The ticker URL under the provider's base URL, for an upper-case currency. */
  path(currency: string): string
  /** The price (fiat per BTC) as the literal text the provider sent; throws ProviderFailure when absent. */
  read(body: unknown, currency: string): string
}

export const spotProviders: readonly SpotProvider[] = [
  {
    // {"data":{"currency":"BTC","rates":{"USD":"60000.12",…}}} — every currency in one answer.
    name: 'coinbase',
    path: () => '/v2/exchange-rates?currency=BTC',
    read: (body, currency) => priceText(pick(body, 'data', 'rates', currency), currency),
  },
  {
    // {"error":[],"result":{"XXBTZUSD":{"c":["60010.10000","0.005"],…}}}; the result key is Kraken's internal
    // pair name (XXBTZUSD, but XBTCHF for newer pairs), so read the one key rather than guess it.
    name: 'kraken',
    quotes: krakenFiat,
    path: currency => `/0/public/Ticker?pair=XBT${currency}`,
    read: (body, currency) => {
      const result = krakenResult(body)
      const [pairKey] = Object.keys(result)
      return priceText(pick(result, pairKey ?? '', 'c', 0), currency)
    },
  },
  {
    // {"last":"60005","bid":…,"ask":…,"timestamp":"…"}
    name: 'bitstamp',
    quotes: new Set(['USD', 'EUR', 'GBP']),
    path: currency => `/api/v2/ticker/btc${currency.toLowerCase()}/`,
    read: (body, currency) => priceText(pick(body, 'last'), currency),
  },
  {
    // {"symbol":"BTCUSDT","price":"59990.50000000"}; Binance has no USD book, lnbits reads USDT for USD.
    name: 'binance',
    quotes: new Set(['USD', 'EUR', 'TRY', 'BRL', 'JPY', 'PLN', 'ZAR', 'ARS', 'MXN', 'UAH']),
    path: currency => `/api/v3/ticker/price?symbol=BTC${currency === 'USD' ? 'USDT' : currency}`,
    read: (body, currency) => priceText(pick(body, 'price'), currency),
  },
  {
    // {"mid":…,"bid":…,"ask":…,"last_price":"60002.0",…}
    name: 'bitfinex',
    quotes: new Set(['USD', 'EUR', 'GBP', 'JPY']),
    path: currency => `/v1/pubticker/btc${currency.toLowerCase()}`,
    read: (body, currency) => priceText(pick(body, 'last_price'), currency),
  },
  {
    // {"BTC":{"USD":60001.5,"ARS":…},"base":"BTC","timestamp":…} — JSON numbers, kept exact by the reader.
    name: 'yadio',
    path: () => '/exrates/BTC',
    read: (body, currency) => priceText(pick(body, 'BTC', currency), currency),
  },
]

/** Kraken answers HTTP 200 with a non-empty `error` list for unknown pairs and throttling. */
export function krakenResult(body: unknown): Record<string, unknown> {
  const errors = pick(body, 'error')
  if (Array.isArray(errors) && errors.length > 0) throw new ProviderFailure(errors.map(String).join(', '))
  const result = pick(body, 'result')
  if (typeof result !== 'object' || result === null) throw new ProviderFailure('answer has no result')
  return result as Record<string, unknown>
}

function priceText(value: unknown, currency: string): string {
  if (typeof value !== 'string' || value === '') throw new ProviderFailure(`no ${currency} price in the answer`)
  return value
}
