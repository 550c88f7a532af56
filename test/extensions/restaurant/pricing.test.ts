// Prices in fiat through the rates module (several loopback providers, the current spot rate, never a made-up
// rate) and availability windows in the restaurant's timezone, including windows that cross midnight.
import { suite } from '../../support/suite.js'
import * as assert from 'uvu/assert'
import { startRateProviders, type RateProvidersFake } from '../../support/rate-providers.js'
import { buildMenu, startRestaurantDaemon, type RestaurantDaemon, type TestWallet } from './restaurant-daemon.js'

const pricing = suite('fiat prices and availability windows')
let rd: RestaurantDaemon
let providers: RateProvidersFake
let owner: TestWallet
let menu: Awaited<ReturnType<typeof buildMenu>>

pricing.before(async () => {
  providers = await startRateProviders({ clock: { now: () => Date.now() } })
  const { coinbase, kraken, bitstamp } = providers.urls
  rd = await startRestaurantDaemon({
    config: `[rates]\nproviders = { coinbase = "${coinbase}", kraken = "${kraken}", bitstamp = "${bitstamp}" }\n`,
  })
  owner = await rd.wallet()
  menu = await buildMenu(rd, owner, { currency: 'EUR' })
})
pricing.after(async () => {
  await rd?.stop()
  await providers?.close()
})

/** ceil(amount × 10^8 / rate) for decimal strings, exactly. */
function satsFor(amount: string, btcRate: string): bigint {
  const units = (text: string) => {
    const [whole, fraction = ''] = text.split('.')
    return { n: BigInt(whole + fraction), scale: fraction.length }
  }
  const a = units(amount)
  const r = units(btcRate)
  const numerator = a.n * 10n ** BigInt(8 + r.scale)
  const denominator = r.n * 10n ** BigInt(a.scale)
  return (numerator + denominator - 1n) / denominator
}

pricing('a EUR cart is priced at the median spot rate of the providers, rounded up to whole sats', async () => {
  const items = [
    { item_id: menu.burger.id, quantity: 2, modifier_ids: [menu.double.id, menu.bacon.id] },
    { item_id: menu.cola.id, quantity: 1 },
  ]
  // (9.50 + 3.25 + 1.10) × 2 + 2.25 = 29.95 EUR; EUR quotes 55000.50, 55010.00, 54995 → median 55000.5.
  const expectedMsat = Number(satsFor('29.95', '55000.5')) * 1000
  const quote = await rd.api('POST', '/orders/quote', { body: items })
  assert.is(quote.status, 200, quote.text)
  assert.is(quote.json.required_msat, expectedMsat)
  const placed = await rd.api('POST', '/orders', { body: { restaurant_id: menu.id, items } })
  assert.is(placed.status, 201, placed.text)
  const { order } = placed.json
  assert.is(order.subtotal, '29.95')
  assert.is(order.currency, 'EUR')
  assert.is(order.items[0].unit_price, '9.50')
  assert.is(order.items[0].line_total, '27.70')
  assert.is(order.required_msat, expectedMsat)
  // Sats per euro, for the record: 10^8 / 55000.5.
  assert.is(order.exchange_rate, '1818.16528941')
  assert.ok(providers.requests('kraken') > 0 && providers.requests('bitstamp') > 0, 'several providers asked')
})

pricing('a currency no provider quotes is a 400 naming it, never an invoice', async () => {
  const yen = await rd.api('POST', '/restaurants', { key: owner.adminKey, body: { name: 'Yen bar', slug: `yen-${process.pid}`, currency: 'JPY' } })
  assert.is(yen.status, 201, yen.text)
  const item = await rd.api('POST', '/menu_items', { key: owner.adminKey, body: { restaurant_id: yen.json.id, name: 'Ramen', price: '1200' } })
  const quote = await rd.api('POST', '/orders/quote', { body: [{ item_id: item.json.id, quantity: 1 }] })
  assert.is(quote.status, 400)
  assert.match(quote.json.detail, /^no BTC rate for JPY/)
  const order = await rd.api('POST', '/orders', { body: { restaurant_id: yen.json.id, items: [{ item_id: item.json.id, quantity: 1 }] } })
  assert.is(order.status, 400)
  assert.match(order.json.detail, /JPY/)
  const list = await rd.api('GET', `/restaurants/${yen.json.id}/orders`, { key: owner.invoiceKey })
  assert.equal(list.json, [], 'no order was stored')
})

pricing('a restaurant with cents cannot switch to sats; a whole-priced one can', async () => {
  const res = await rd.api('PUT', `/restaurants/${menu.id}`, { key: owner.adminKey, body: { currency: 'sat' } })
  assert.is(res.status, 400)
  assert.match(res.json.detail, /^currency: item "Cheeseburger" costs 9.50/)
})

/** An `Etc/GMT…` zone where the local time is now 01:xx, and the local weekday there and the day before. */
function zoneAtOneAm(): { zone: string; offset: number; today: string; yesterday: string } {
  const utcHour = new Date().getUTCHours()
  let offset = (1 - utcHour + 24) % 24 // hours east of UTC
  if (offset > 14) offset -= 24
  // POSIX-style names: Etc/GMT-3 is three hours east of UTC.
  const zone = offset === 0 ? 'Etc/GMT' : `Etc/GMT${offset > 0 ? '-' : '+'}${Math.abs(offset)}`
  const weekday = (ms: number) =>
    new Intl.DateTimeFormat('en-US', { timeZone: zone, weekday: 'short' }).format(new Date(ms)).toLowerCase().slice(0, 3)
  return { zone, offset, today: weekday(Date.now()), yesterday: weekday(Date.now() - 86_400_000) }
}

pricing('availability windows are read in the restaurant timezone and may cross midnight', async () => {
  const { zone, offset, today, yesterday } = zoneAtOneAm()
  const place = await rd.api('POST', '/restaurants', { key: owner.adminKey, body: { name: 'Night owl', slug: `owl-${process.pid}`, timezone: zone } })
  assert.is(place.status, 201, place.text)
  const id = place.json.id
  const item = async (name: string, window?: { days: string[]; start: string; end: string }) => {
    const made = await rd.api('POST', '/menu_items', { key: owner.adminKey, body: { restaurant_id: id, name, price: '100' } })
    if (window) {
      const res = await rd.api('POST', '/availability_windows', { key: owner.adminKey, body: { item_id: made.json.id, ...window } })
      assert.is(res.status, 201, res.text)
    }
    return made.json.id as string
  }
  const quote = (itemId: string) => rd.api('POST', '/orders/quote', { body: [{ item_id: itemId, quantity: 1 }] })
  // It is 01:xx here. Yesterday's 22:00–03:00 runs until 03:00 today; today's starts tonight.
  const lateYesterday = await item('Late snack', { days: [yesterday], start: '22:00', end: '03:00' })
  const lateToday = await item('Tonight only', { days: [today], start: '22:00', end: '03:00' })
  const always = await item('Always')
  const breakfast = await item('Breakfast', { days: [today], start: '06:00', end: '11:00' })
  const early = await item('Early', { days: [today], start: '00:30', end: '02:30' })
  assert.is((await quote(lateYesterday)).status, 200, `yesterday's window covers 01:xx in ${zone}`)
  assert.is((await quote(always)).status, 200)
  assert.is((await quote(early)).status, 200)
  for (const refused of [lateToday, breakfast]) {
    const res = await quote(refused)
    assert.is(res.status, 400)
    assert.match(res.json.detail, new RegExp(`is not available at this time \\(${zone.replace('+', '\\+')}\\)`))
  }
  // Read on UTC wall clocks (two hours or more away from 01:xx), the same window no longer covers now.
  if (Math.abs(offset) >= 2) {
    await rd.api('PUT', `/restaurants/${id}`, { key: owner.adminKey, body: { timezone: 'UTC' } })
    assert.is((await quote(early)).status, 400)
  }
  // Windows are listed and can be removed; without any, the item is always available.
  const windows = await rd.api('GET', `/menu_items/${breakfast}/availability_windows`)
  assert.equal(windows.json.map((w: any) => [w.days, w.start, w.end]), [[[today], '06:00', '11:00']])
  assert.is((await rd.api('DELETE', `/availability_windows/${windows.json[0].id}`, { key: owner.adminKey })).status, 200)
  assert.is((await quote(breakfast)).status, 200)
})

pricing.run()
