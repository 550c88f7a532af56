// The current BTC rate: several providers on loopback, failures dropped, outliers trimmed, median taken, and a
// missing rate is an error naming the currency, never a made-up number (lnbits/tpos#52).
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { OperationError } from '../../src/bus/errors.js'
import { RateUnavailable } from '../../src/rates/index.js'
import { trimmedMedian } from '../../src/rates/trimmed-median.js'
import { fakeRateProviders } from '../support/rate-providers.js'
import { rejection, startRatesFixture, type RatesFixture } from './fixture.js'

const now = '2025-06-15T12:00:00Z'
let f: RatesFixture

const median = suite('the spot rate is the median of the providers that agree')
median.after.each(async () => f.close())

median('six providers quoting USD give the median of all six', async () => {
  f = await startRatesFixture({ now })
  const quote = await f.rates.spot('USD')
  // 59990.5, 60000.12, 60001.5, 60002, 60005, 60010.1 → the middle pair averaged, exactly
  assert.equal(quote, {
    currency: 'USD',
    btcRate: '60001.75',
    source: 'spot',
    providers: ['coinbase', 'kraken', 'bitstamp', 'binance', 'bitfinex', 'yadio'],
  })
})

median('a provider far off the others is left out of the median', async () => {
  f = await startRatesFixture({ now })
  f.providers.fault('bitstamp', 'outlier') // 960005 instead of 60005
  const quote = await f.rates.spot('USD')
  assert.is(quote.btcRate, '60001.5') // untrimmed, the median of six would still be 60001.75
  assert.not.ok(quote.providers!.includes('bitstamp'))
  assert.is(quote.providers!.length, 5)
})

median('one provider down still answers from the others', async () => {
  f = await startRatesFixture({ now })
  f.providers.fault('coinbase', 'down')
  const quote = await f.rates.spot('USD')
  assert.is(quote.btcRate, '60002') // 59990.5, 60001.5, 60002, 60005, 60010.1
  assert.is(f.providers.requests('coinbase'), 1)
})

median('a provider that hangs is given up after the timeout and the others answer', async () => {
  f = await startRatesFixture({ now, timeoutMs: 200 })
  f.providers.fault('kraken', 'slow')
  const started = Date.now()
  const quote = await f.rates.spot('USD')
  assert.ok(Date.now() - started < 1_500, 'answered soon after the timeout')
  assert.is(quote.btcRate, '60001.5') // 59990.5, 60000.12, 60001.5, 60002, 60005
  assert.not.ok(quote.providers!.includes('kraken'))
})

median('a currency only two providers price is their exact mean, and exchanges without it are not asked', async () => {
  f = await startRatesFixture({ now })
  const quote = await f.rates.spot('NGN')
  assert.is(quote.btcRate, '98767716.1115') // (98765432.10 + 98770000.123) / 2; yadio's JSON number kept exact
  assert.equal(quote.providers, ['coinbase', 'yadio'])
  for (const exchange of ['kraken', 'bitstamp', 'binance', 'bitfinex'] as const) {
    assert.is(f.providers.requests(exchange), 0, `${exchange} was asked for NGN`)
  }
})

median('a provider switched off in the configuration is never asked', async () => {
  f = await startRatesFixture({ now, providers: { coinbase: false } })
  const quote = await f.rates.spot('USD')
  assert.is(f.providers.requests('coinbase'), 0)
  assert.is(quote.btcRate, '60002')
})
median.run()

const cache = suite('a spot rate is reused for a minute')
cache.after.each(async () => f.close())

cache('a second quote within the minute asks no provider; after it, they are asked again', async () => {
  f = await startRatesFixture({ now })
  await f.rates.spot('EUR')
  const asked = f.providers.requests()
  assert.is(asked, 6)
  f.clock.advance(59_000)
  assert.is((await f.rates.spot('EUR')).btcRate, '55001.875')
  assert.is(f.providers.requests(), asked)
  f.clock.advance(2_000)
  await f.rates.spot('EUR')
  assert.is(f.providers.requests(), asked * 2)
})

cache('concurrent quotes of one currency share one round of requests', async () => {
  f = await startRatesFixture({ now })
  const [a, b] = await Promise.all([f.rates.spot('GBP'), f.rates.spot('GBP')])
  assert.equal(a, b)
  assert.is(a.btcRate, '47000.25') // coinbase 47000.25, kraken 47005.1, bitstamp 46990
  // Asked once each: coinbase, kraken, bitstamp and bitfinex trade GBP; yadio prices everything in one answer.
  assert.is(f.providers.requests(), 5)
})
cache.run()

const none = suite('no rate is an error naming the currency')
none.after.each(async () => f.close())

none('every provider down: upstream_failed naming USD and each reason', async () => {
  f = await startRatesFixture({ now })
  for (const p of fakeRateProviders) f.providers.fault(p, 'down')
  const err = await rejection(f.rates.spot('USD'))
  assert.instance(err, OperationError)
  assert.instance(err, RateUnavailable)
  assert.is((err as OperationError).code, 'upstream_failed')
  assert.is(
    err.message,
    'no BTC rate for USD: coinbase: HTTP 500; kraken: HTTP 500; bitstamp: HTTP 500; binance: HTTP 500; ' +
      'bitfinex: HTTP 500; yadio: HTTP 500',
  )
})

none('the providers that price NGN lacking it or hanging: the error says so per provider', async () => {
  f = await startRatesFixture({ now, timeoutMs: 100 })
  f.providers.fault('coinbase', 'missing_currency')
  f.providers.fault('yadio', 'slow')
  const err = await rejection(f.rates.spot('NGN'))
  assert.is(err.message, 'no BTC rate for NGN: coinbase: no NGN price in the answer; yadio: timed out after 100 ms')
})

none('a failure is not remembered: the next quote asks again and succeeds', async () => {
  f = await startRatesFixture({ now })
  for (const p of fakeRateProviders) f.providers.fault(p, 'down')
  await rejection(f.rates.spot('EUR'))
  for (const p of fakeRateProviders) f.providers.fault(p, undefined)
  assert.is((await f.rates.spot('EUR')).btcRate, '55001.875')
})

none('a code that is not a currency is refused without asking anyone', async () => {
  f = await startRatesFixture({ now })
  for (const code of ['XYZ', 'eur', 'sat']) {
    const err = await rejection(f.rates.spot(code))
    assert.is((err as OperationError).code, 'invalid_input')
    assert.is(err.message, `no BTC rate for ${code}: ${code} is not a currency relaypay knows`)
    assert.is(f.rates.knownCurrency(code), false)
  }
  assert.is(f.rates.knownCurrency('EUR'), true)
  assert.is(f.providers.requests(), 0)
})
none.run()

const trimming = suite('outlier trimming, case by case')
for (const c of [
  { because: 'two quotes are averaged, nothing to vote with', prices: ['100', '300'], rate: '200', dropped: [] },
  { because: 'one far quote among three is dropped', prices: ['100', '100.5', '150'], rate: '100.25', dropped: ['c'] },
  { because: 'exactly 1 % off the median is kept', prices: ['99', '100', '101'], rate: '100', dropped: [] },
  { because: 'just over 1 % off the median is dropped', prices: ['98.99', '100', '100.5'], rate: '100.25', dropped: ['a'] },
  { because: 'no two agree: the quote nearest the median is taken', prices: ['100', '130', '200'], rate: '130', dropped: ['a', 'c'] },
]) {
  trimming(c.because, () => {
    const result = trimmedMedian(c.prices.map((price, i) => ({ provider: 'abc'[i], price })))
    assert.is(result.btcRate, c.rate)
    assert.equal(result.dropped, c.dropped)
  })
}
trimming.run()
