// Fiat contracts priced from the fake rate providers on loopback (docs/payroll.md, "Paying a period", step 1): a
// past payday takes that day's rate from the exchange series, or from the aggregator for a currency the exchange
// does not quote; beyond reach the period fails naming the date and currency, and never falls back to today's rate.
import { suite } from '../../support/suite.js'
import * as assert from 'uvu/assert'
import { coingeckoPrice, krakenDailyClose, spotFixture, startRateProviders, type RateProvidersFake } from '../../support/rate-providers.js'
import { contractBody, dayFromToday, expectedMsat, monthsFromToday, startPayrollDaemon, type PayrollDaemon, type TestWallet } from './payroll-daemon.js'

let payroll: PayrollDaemon
let providers: RateProvidersFake
let employee: TestWallet
let source: TestWallet

/** Kraken writes one-decimal closes; the rates room keeps canonical decimals ("37714.0" → "37714"). */
const canonical = (decimal: string) => decimal.replace(/\.0+$/, '')
/** The median of the two spot providers configured (coinbase and kraken), as the rates room takes it. */
const eurSpot = '55005.25'

const pricing = suite('a fiat period is priced by its mode, and the ledger names the rate and its source')
pricing.before(async () => {
  providers = await startRateProviders({ clock: { now: () => Date.now() } })
  const { kraken, coingecko, coinbase } = providers.urls
  payroll = await startPayrollDaemon({
    config: `[rates]\nproviders = { kraken = "${kraken}", coingecko = "${coingecko}", coinbase = "${coinbase}" }\n`,
  })
  employee = await payroll.wallet({ enable: true })
  source = await payroll.wallet()
  await payroll.fund(source, 100_000_000)
})
pricing.after(async () => {
  await payroll.stop()
  await providers.close()
})

/** Creates a one-period contract and pays it with pay-now; returns the ledger row. */
async function payOnce(overrides: Record<string, unknown>, payNowBody: Record<string, unknown> = {}) {
  const created = await payroll.op('POST', '/contracts', contractBody(employee, source, { total_periods: 1, ...overrides }))
  assert.is(created.status, 201, created.text)
  const reply = await payroll.op('POST', `/contracts/${created.json.id}/pay-now`, payNowBody)
  assert.is(reply.status, 200, reply.text)
  return reply.json
}

pricing('a payday 18 months ago in EUR takes the exchange close of that day', async () => {
  const payday = monthsFromToday(-18)
  const row = await payOnce({ currency: 'EUR', amount: '1500.50', start_date: payday })
  const rate = canonical(krakenDailyClose('EUR', payday))
  assert.is(row.status, 'paid', row.detail)
  assert.is(row.rate_source, 'kraken')
  assert.is(row.rate, rate)
  assert.is(row.amount_msat, expectedMsat('1500.50', rate))
  assert.is(row.memo, `Alice salary - ${payday} . 1500.50 EUR @ ${rate} EUR/BTC`)
})

pricing('a payday 6 months ago in ARS, which the exchange does not quote, takes the aggregator price of that date', async () => {
  const payday = monthsFromToday(-6)
  const row = await payOnce({ currency: 'ARS', amount: '250000', start_date: payday })
  const rate = coingeckoPrice('ARS', payday)
  assert.is(row.status, 'paid', row.detail)
  assert.is(row.rate_source, 'coingecko')
  assert.is(row.rate, rate)
  assert.is(row.amount_msat, expectedMsat('250000', rate))
})

pricing('a payday 18 months ago in ARS is beyond reach: the period fails naming the date and the currency', async () => {
  const payday = monthsFromToday(-18)
  const row = await payOnce({ currency: 'ARS', start_date: payday })
  assert.is(row.status, 'failed')
  assert.ok(row.detail.startsWith(`no BTC rate for ARS on ${payday}: `), row.detail)
  assert.is(row.rate, null)
  assert.is(row.amount_msat, null)
})

pricing('a payday more than 2 years ago is beyond reach even for EUR', async () => {
  const payday = monthsFromToday(-25)
  const row = await payOnce({ currency: 'EUR', start_date: payday })
  assert.is(row.status, 'failed')
  assert.ok(row.detail.startsWith(`no BTC rate for EUR on ${payday}: `), row.detail)
})

pricing('a payday today or later is priced at the current rate, and so is `current` for a past payday', async () => {
  const today = await payOnce({ currency: 'EUR', start_date: dayFromToday(0) })
  assert.equal([today.rate_source, today.rate], ['spot', eurSpot])
  const current = await payOnce({ currency: 'EUR', start_date: monthsFromToday(-3), pricing_mode: 'current' })
  assert.equal([current.rate_source, current.rate], ['spot', eurSpot])
  assert.is(current.amount_msat, expectedMsat('1000', eurSpot))
  assert.is(spotFixture.coinbase.EUR, '55000.50') // the fixture the expected median comes from
})

pricing('manual pricing applies the stated rate to any payday; pay-now may override mode and rate for one payout', async () => {
  const manual = await payOnce({ currency: 'EUR', start_date: monthsFromToday(-30), pricing_mode: 'manual', manual_rate: '65000' })
  assert.equal([manual.status, manual.rate_source, manual.rate], ['paid', 'manual', '65000'])
  assert.is(manual.amount_msat, expectedMsat('1000', '65000'))
  assert.is(manual.memo, `Alice salary - ${monthsFromToday(-30)} . 1000 EUR @ 65000 EUR/BTC`)
  const override = await payOnce({ currency: 'EUR', start_date: monthsFromToday(-30) }, { pricing_mode: 'manual', manual_rate: '70000.5' })
  assert.equal([override.status, override.rate_source, override.rate], ['paid', 'manual', '70000.5'])
})

pricing('a contract back-dated 3 years with backfill fails its first period every tick and pauses on the fifth', async () => {
  const start = monthsFromToday(-36)
  const created = await payroll.op('POST', '/contracts', contractBody(employee, source, {
    currency: 'EUR', start_date: start, total_periods: 48, backfill: true,
  }))
  const id = created.json.id
  for (let tick = 1; tick <= 5; tick++) {
    const rows = (await payroll.tick()).json.payouts.filter((row: any) => row.contract_id === id)
    // The failure halts the backlog: nothing after period 0 is tried.
    assert.equal(rows.map((row: any) => [row.period, row.status]), [[0, 'failed']], `tick ${tick}`)
  }
  const paused = (await payroll.op('GET', `/contracts/${id}`)).json
  assert.is(paused.status, 'paused')
  assert.match(paused.paused_reason, new RegExp(`^period 0 \\(${start}\\) failed 5 times: no BTC rate for EUR on ${start}: `))
  // An explicit catch_up false writes off every payday before today, though payroll made the pause.
  const resumed = await payroll.op('POST', `/contracts/${id}/resume`, { catch_up: false })
  const preview = await payroll.op('POST', '/schedule/preview', { start_date: start, frequency: 'monthly', total_periods: 48 })
  const missed = preview.json.paydays.filter((p: any) => p.payday < dayFromToday(0)).length
  assert.ok(missed >= 36, String(missed))
  assert.is(resumed.json.periods_done, missed)
  assert.is(resumed.json.status, 'active')
  assert.ok(resumed.json.next_payday >= dayFromToday(0))
})

pricing('a failing spot provider set fails a current-mode period naming today and the currency', async () => {
  providers.fault('coinbase', 'down')
  providers.fault('kraken', 'down')
  try {
    const row = await payOnce({ currency: 'GBP', start_date: dayFromToday(0), pricing_mode: 'current' })
    assert.is(row.status, 'failed')
    assert.ok(row.detail.startsWith(`no BTC rate for GBP on ${dayFromToday(0)}: `), row.detail)
  } finally {
    providers.fault('coinbase', undefined)
    providers.fault('kraken', undefined)
  }
})

pricing.run()
