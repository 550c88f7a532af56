// Historical BTC rates by their reach (docs/payroll.md, "Paying a period"): Kraken's daily close for the currencies it
// quotes, CoinGecko by date for the others under one year, and otherwise the exact failure payroll records,
// `no BTC rate for <CUR> on <YYYY-MM-DD>: <reason>` — never today's rate in a past day's place.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { OperationError } from '../../src/bus/errors.js'
import { coingeckoPrice, fakeRateProviders, krakenDailyClose } from '../support/rate-providers.js'
import { rejection, startRatesFixture, type RatesFixture } from './fixture.js'

// Today is 2025-06-15 (UTC): one year back is 2024-06-15, two years back 2023-06-15.
const now = '2025-06-15T12:00:00Z'
let f: RatesFixture

const sources = suite('each currency and age goes to the source the reach table names')
sources.after.each(async () => f.close())

sources('USD three months ago is Kraken’s daily close of that day, digit for digit', async () => {
  f = await startRatesFixture({ now })
  const quote = await f.rates.historical('USD', '2025-03-01')
  assert.equal(quote, { currency: 'USD', btcRate: '41036.8', source: 'kraken', date: '2025-03-01' })
  assert.is(krakenDailyClose('USD', '2025-03-01'), '41036.8')
  const [request] = f.providers.requestLog()
  // 2025-03-01T00:00:00Z is 1740787200: `since` one second before it, daily candles
  assert.is(request, '/kraken/0/public/OHLC?pair=XBTUSD&interval=1440&since=1740787199')
  assert.is(f.providers.requests('coingecko'), 0)
})

sources('a Kraken currency between one and two years old still comes from Kraken', async () => {
  f = await startRatesFixture({ now })
  const quote = await f.rates.historical('EUR', '2024-01-10')
  assert.equal(quote, { currency: 'EUR', btcRate: krakenDailyClose('EUR', '2024-01-10'), source: 'kraken', date: '2024-01-10' })
})

sources('CHF, whose Kraken pair key is XBTCHF rather than XXBTZCHF, is read too', async () => {
  f = await startRatesFixture({ now })
  const quote = await f.rates.historical('CHF', '2025-05-01')
  assert.is(quote.btcRate, krakenDailyClose('CHF', '2025-05-01'))
  assert.is(quote.source, 'kraken')
})

sources('NGN, which Kraken does not quote, comes from CoinGecko by date with all 17 digits', async () => {
  f = await startRatesFixture({ now })
  const quote = await f.rates.historical('NGN', '2025-01-10')
  // A double would have made this 90001274.15833308.
  assert.equal(quote, { currency: 'NGN', btcRate: '90001274.158333074', source: 'coingecko', date: '2025-01-10' })
  assert.is(coingeckoPrice('NGN', '2025-01-10'), '90001274.158333074')
  assert.equal(f.providers.requestLog(), ['/coingecko/api/v3/coins/bitcoin/history?date=10-01-2025&localization=false'])
  assert.is(f.providers.requests('kraken'), 0)
})

sources('ARS one day short of a year old still comes from CoinGecko', async () => {
  f = await startRatesFixture({ now })
  const quote = await f.rates.historical('ARS', '2024-06-16')
  assert.equal(quote, { currency: 'ARS', btcRate: coingeckoPrice('ARS', '2024-06-16'), source: 'coingecko', date: '2024-06-16' })
})
sources.run()

const reach = suite('beyond the reach table the rate is unavailable, with the exact message')
reach.after.each(async () => f.close())
for (const c of [
  {
    because: 'NGN exactly one year old',
    currency: 'NGN',
    day: '2024-06-15',
    message: 'no BTC rate for NGN on 2024-06-15: older than 1 year; Kraken does not quote NGN and the aggregator reaches back 1 year',
  },
  {
    because: 'ARS a year and a half old',
    currency: 'ARS',
    day: '2023-12-01',
    message: 'no BTC rate for ARS on 2023-12-01: older than 1 year; Kraken does not quote ARS and the aggregator reaches back 1 year',
  },
  {
    because: 'USD over two years old',
    currency: 'USD',
    day: '2023-06-14',
    message: 'no BTC rate for USD on 2023-06-14: older than 2 years, beyond the reach of historical rates',
  },
  {
    because: 'NGN over two years old',
    currency: 'NGN',
    day: '2020-02-29',
    message: 'no BTC rate for NGN on 2020-02-29: older than 2 years, beyond the reach of historical rates',
  },
]) {
  reach(c.because, async () => {
    f = await startRatesFixture({ now })
    const err = await rejection(f.rates.historical(c.currency, c.day))
    assert.instance(err, OperationError)
    assert.is(err.message, c.message)
    assert.is(f.providers.requests(), 0, 'no provider is asked for a day out of reach')
  })
}

reach('USD within two years but older than Kraken’s 720 candles: Kraken’s reach is said, not a guess', async () => {
  f = await startRatesFixture({ now })
  const err = await rejection(f.rates.historical('USD', '2023-06-20')) // 726 days ago
  assert.is(err.message, 'no BTC rate for USD on 2023-06-20: kraken: the daily series does not reach back that far')
})
reach.run()

const failures = suite('a provider failure fails the day, naming it, and never falls back to another rate')
failures.after.each(async () => f.close())
for (const c of [
  { because: 'Kraken down', provider: 'kraken', fault: 'down', currency: 'USD', reason: 'kraken: HTTP 500' },
  { because: 'Kraken without the day', provider: 'kraken', fault: 'missing_date', currency: 'USD', reason: 'kraken: no daily candle for that day' },
  { because: 'CoinGecko down', provider: 'coingecko', fault: 'down', currency: 'NGN', reason: 'coingecko: HTTP 500' },
  { because: 'CoinGecko without the day', provider: 'coingecko', fault: 'missing_date', currency: 'NGN', reason: 'coingecko: no market data for that day' },
  { because: 'CoinGecko without the currency', provider: 'coingecko', fault: 'missing_currency', currency: 'NGN', reason: 'coingecko: no NGN price for that day' },
] as const) {
  failures(c.because, async () => {
    f = await startRatesFixture({ now })
    f.providers.fault(c.provider, c.fault)
    const err = await rejection(f.rates.historical(c.currency, '2025-03-01'))
    assert.is(err.message, `no BTC rate for ${c.currency} on 2025-03-01: ${c.reason}`)
    assert.is((err as OperationError).code, 'upstream_failed')
    const other = c.provider === 'kraken' ? 'coingecko' : 'kraken'
    assert.is(f.providers.requests(other), 0, `fell back to ${other}`)
    const spotProviders = fakeRateProviders.filter(p => p !== 'kraken' && p !== 'coingecko')
    assert.is(spotProviders.reduce((n, p) => n + f.providers.requests(p), 0), 0, 'fell back to a spot rate')
    assert.is(storedDays("date = '2025-03-01'"), 0, 'the failed day was stored')
  })
}

failures('a Kraken pair that comes back unknown names Kraken’s own error', async () => {
  f = await startRatesFixture({ now })
  f.providers.fault('kraken', 'missing_currency')
  const err = await rejection(f.rates.historical('JPY', '2025-03-01'))
  assert.is(err.message, 'no BTC rate for JPY on 2025-03-01: kraken: EQuery:Unknown asset pair')
})

failures('a day Kraken still shows as its open candle is refused and not stored', async () => {
  // Kraken's clock a day behind ours: for it, yesterday is still the current, unfinished candle.
  const lagging = { now: () => Date.parse(now) - 86_400_000 }
  f = await startRatesFixture({ now, providerClock: lagging })
  const err = await rejection(f.rates.historical('USD', '2025-06-14'))
  assert.is(err.message, "no BTC rate for USD on 2025-06-14: kraken: the day's candle has not closed yet")
  assert.is(storedDays("date >= '2025-06-14'"), 0)
})

failures('an unknown currency or a malformed day is the caller’s mistake', async () => {
  f = await startRatesFixture({ now })
  const unknown = await rejection(f.rates.historical('XBT', '2025-03-01'))
  assert.is((unknown as OperationError).code, 'invalid_input')
  assert.is(unknown.message, 'no BTC rate for XBT on 2025-03-01: XBT is not a currency relaypay knows')
  for (const day of ['2025-02-30', '01-03-2025', '2025-3-1']) {
    const bad = await rejection(f.rates.historical('USD', day))
    assert.is((bad as OperationError).code, 'invalid_input')
    assert.is(bad.message, `not a YYYY-MM-DD day: ${day}`)
  }
  assert.is(f.providers.requests(), 0)
})
failures.run()

const cached = suite('closed days are cached per currency and day, in SQLite')
cached.after.each(async () => f.close())

cached('a second request for the day makes no HTTP request, nor does another day of the same answer', async () => {
  f = await startRatesFixture({ now })
  const first = await f.rates.historical('USD', '2025-03-01')
  assert.is(f.providers.requests(), 1)
  assert.equal(await f.rates.historical('USD', '2025-03-01'), first)
  // The one OHLC answer carried every closed day since 2025-03-01.
  assert.equal(await f.rates.historical('USD', '2025-06-14'), {
    currency: 'USD',
    btcRate: krakenDailyClose('USD', '2025-06-14'),
    source: 'kraken',
    date: '2025-06-14',
  })
  assert.is(f.providers.requests(), 1)
  // An earlier day was not in that answer: Kraken is asked again.
  await f.rates.historical('USD', '2025-02-28')
  assert.is(f.providers.requests(), 2)
})

cached('after a restart the rate is read from SQLite, with its source, while every provider is down', async () => {
  f = await startRatesFixture({ now })
  await f.rates.historical('NGN', '2025-01-10')
  await f.rates.historical('USD', '2025-03-01')
  f.restart()
  for (const p of fakeRateProviders) f.providers.fault(p, 'down')
  const asked = f.providers.requests()
  assert.equal(await f.rates.historical('NGN', '2025-01-10'), {
    currency: 'NGN',
    btcRate: '90001274.158333074',
    source: 'coingecko',
    date: '2025-01-10',
  })
  assert.equal(await f.rates.historical('USD', '2025-03-01'), {
    currency: 'USD',
    btcRate: '41036.8',
    source: 'kraken',
    date: '2025-03-01',
  })
  assert.is(f.providers.requests(), asked)
})

cached('concurrent requests for one day share one request', async () => {
  f = await startRatesFixture({ now })
  await Promise.all([f.rates.historical('NGN', '2025-01-10'), f.rates.historical('NGN', '2025-01-10')])
  assert.is(f.providers.requests(), 1)
})
cached.run()

const today = suite('today and later days have no closed rate: the current rate answers, and is not stored')
today.after.each(async () => f.close())

today('today answers the spot rate, without a date, and leaves no row for today', async () => {
  f = await startRatesFixture({ now })
  const quote = await f.rates.historical('USD', '2025-06-15')
  assert.equal(quote, {
    currency: 'USD',
    btcRate: '60001.75',
    source: 'spot',
    providers: ['coinbase', 'kraken', 'bitstamp', 'binance', 'bitfinex', 'yadio'],
  })
  assert.is(f.providers.requests('coingecko'), 0)
  assert.not.ok(f.providers.requestLog().some(path => path.includes('/OHLC')), 'asked for a daily series')
  assert.is(storedDays(), 0)
})

today('Kraken’s open candle for today is never stored, even when a past day’s answer carries it', async () => {
  f = await startRatesFixture({ now })
  await f.rates.historical('USD', '2025-06-10')
  const days = f.store.db.prepare("SELECT date FROM rate_history WHERE currency = 'USD' ORDER BY date").all()
  assert.equal(
    days.map(row => (row as { date: string }).date),
    ['2025-06-10', '2025-06-11', '2025-06-12', '2025-06-13', '2025-06-14'],
  )
})

today('today is not stored even when Kraken’s clock, a day ahead, already shows it closed', async () => {
  const ahead = { now: () => Date.parse(now) + 86_400_000 }
  f = await startRatesFixture({ now, providerClock: ahead })
  await f.rates.historical('USD', '2025-06-13')
  const days = f.store.db.prepare("SELECT date FROM rate_history WHERE currency = 'USD' ORDER BY date").all()
  assert.equal(days.map(row => (row as { date: string }).date), ['2025-06-13', '2025-06-14'])
})

today('the day after midnight, yesterday becomes a closed day with its own daily rate', async () => {
  f = await startRatesFixture({ now })
  const live = await f.rates.historical('USD', '2025-06-15')
  assert.is(live.source, 'spot')
  f.clock.advance(12 * 3_600_000 + 1) // 2025-06-16T00:00:00.001Z
  const closed = await f.rates.historical('USD', '2025-06-15')
  assert.equal(closed, { currency: 'USD', btcRate: krakenDailyClose('USD', '2025-06-15'), source: 'kraken', date: '2025-06-15' })
})

today('a future day with every spot provider down fails naming that day', async () => {
  f = await startRatesFixture({ now })
  for (const p of fakeRateProviders) f.providers.fault(p, 'down')
  const err = await rejection(f.rates.historical('EUR', '2025-07-01'))
  assert.is((err as OperationError).code, 'upstream_failed')
  assert.match(err.message, /^no BTC rate for EUR on 2025-07-01: coinbase: HTTP 500; kraken: HTTP 500; /)
})
today.run()

/** Rows of rate_history, optionally those matching a condition written by the test. */
function storedDays(where = '1 = 1'): number {
  return (f.store.db.prepare(`SELECT count(*) AS n FROM rate_history WHERE ${where}`).get() as { n: number }).n
}
