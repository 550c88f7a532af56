// Guest work is bounded (docs/exposing.md, "Guest routes and payments"): what a customer with no credentials may
// ask of the restaurant. A cart over a size cap is a 400 naming the cap, a body over the guest limit a 413, too
// many orders or quotes from one address (or at one restaurant, or unpaid at once) a 429 with Retry-After; unpaid
// orders expire and are deleted with their invoices; and the flood that grew the database by 106 MB in 10 s now
// grows it by less than 1 MB while health keeps answering.
import { suite } from '../../support/suite.js'
import * as assert from 'uvu/assert'
import path from 'node:path'
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { buildMenu, eventually, startRestaurantDaemon, type RestaurantDaemon, type TestWallet } from './restaurant-daemon.js'
import { assertAuditClean } from '../../support/money.js'
import { booksBytes, withBooks } from '../../support/books.js'

const run = promisify(execFile)
const here = path.dirname(fileURLToPath(import.meta.url))
type Menu = Awaited<ReturnType<typeof buildMenu>>
const adminHeaders = (rd: RestaurantDaemon) => ({ authorization: `Bearer ${rd.daemon.adminToken}` })
const cola = (menu: Menu, extra: object = {}) => ({ item_id: menu.cola.id, quantity: 1, ...extra })
const order = (rd: RestaurantDaemon, menu: Menu, body: object = {}) =>
  rd.api('POST', '/orders', { body: { restaurant_id: menu.id, items: [cola(menu)], ...body } })

// ---------------------------------------------------------------------------------------------------------------

const caps = suite('the size of a guest cart')
let sized: RestaurantDaemon
let sizedMenu: Menu

caps.before(async () => {
  // Rates out of the way: here every refusal must come from a size cap.
  sized = await startRestaurantDaemon({ config: '[restaurant]\norders_burst = 1000\nquotes_burst = 1000\n' })
  sizedMenu = await buildMenu(sized, await sized.wallet())
})
caps.after(async () => {
  await sized?.stop()
})

caps('an order or quote over a cap is a 400 naming it; one at every cap is taken', async () => {
  const m = sizedMenu
  const refusals: [object, string][] = [
    [{ items: Array.from({ length: 51 }, () => cola(m)) }, 'items: at most 50 lines per order (51 sent)'],
    [{ items: [cola(m, { quantity: 101 })] }, 'items.0.quantity: at most 100 per line'],
    [{ items: [cola(m, { modifier_ids: Array.from({ length: 11 }, (_, i) => `m${i}`) })] }, 'items.0.modifier_ids: at most 10 modifiers per line'],
    [{ items: [cola(m, { note: 'n'.repeat(201) })] }, 'items.0.note: at most 200 characters'],
    [{ customer_note: 'c'.repeat(501) }, 'customer_note: at most 500 characters'],
  ]
  for (const [body, detail] of refusals) {
    const res = await order(sized, m, body)
    assert.is(res.status, 400, res.text)
    assert.is(res.json.detail, detail)
    if ('items' in body) {
      const quote = await sized.api('POST', '/orders/quote', { body: (body as { items: object[] }).items })
      assert.is(quote.status, 400)
      assert.is(quote.json.detail, detail)
    }
  }
  const atCaps = await order(sized, m, {
    items: Array.from({ length: 50 }, () => cola(m, { quantity: 100, note: 'n'.repeat(200) })),
    customer_note: 'c'.repeat(500),
  })
  assert.is(atCaps.status, 201, atCaps.text)
  assert.is(atCaps.json.order.required_msat, 50 * 100 * 500_000)
})

caps('a body over the guest limit (64 KiB) is a 413, refused before it is read', async () => {
  const items = Array.from({ length: 18_000 }, () => cola(sizedMenu))
  const res = await order(sized, sizedMenu, { items })
  assert.is(res.status, 413)
  assert.is(res.json.detail, 'request body too large: the limit is 65536 bytes')
  const quote = await sized.api('POST', '/orders/quote', { body: items })
  assert.is(quote.status, 413)
})

caps.run()

// ---------------------------------------------------------------------------------------------------------------

const rates = suite('orders and quotes per address, per restaurant, and unpaid at once')

/**
 * Sends until the budget refuses: the first `granted` (the burst) must pass, and no more than the bucket can have
 * refilled meanwhile at `perMinute` (on a busy machine 31 quotes take long enough for a token to come back, so "the
 * 31st is refused" would be a guess about speed).
 */
async function refusedAfter(send: () => Promise<{ status: number }>, granted: number, perMinute: number, what: string): Promise<any> {
  const started = Date.now()
  let passed = 0
  let refused: any
  for (;;) {
    const res = (await send()) as any
    if (res.status === 429 && passed >= granted) {
      refused = res
      break
    }
    assert.ok(res.status === 200 || res.status === 201, `${what} ${passed + 1} (the burst is ${granted}): ${res.status}`)
    passed++
    const refilled = Math.floor(((Date.now() - started) * perMinute) / 60_000) + 1
    assert.ok(passed <= granted + refilled, `${what}: ${passed} passed, more than ${granted} at once and ${perMinute} a minute allow`)
  }
  const retryAfter = Number(refused.headers.get('retry-after'))
  assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`)
  return refused
}

rates('the defaults: 10 orders at once from one address, then 429 with Retry-After', async () => {
  const rd = await startRestaurantDaemon()
  try {
    const menu = await buildMenu(rd, await rd.wallet())
    const refused = await refusedAfter(() => order(rd, menu), 10, 4, 'order')
    assert.match(refused.json.detail, /^too many requests: orders from this address; try again in \d+ s$/)
    // 30 quotes at once; a quote made with a wallet key is not limited.
    const customer: TestWallet = await rd.wallet({ enable: false })
    await rd.fund(customer, 1000)
    const quote = () => rd.api('POST', '/orders/quote', { body: [cola(menu)] })
    const quoteRefused = await refusedAfter(quote, 30, 60, 'quote')
    assert.match(quoteRefused.json.detail, /^too many requests: quotes from this address/)
    const keyed = await rd.api('POST', '/orders/quote', { body: [cola(menu)], key: customer.invoiceKey })
    assert.is(keyed.status, 200, keyed.text)
    // LNURL callbacks: 10 at once from one address (each refused for its unknown key until the budget is gone).
    const callback = () => rd.daemon.request('GET', `/api/guest/lnurl_pay/handle?k1=${'ab'.repeat(32)}&amount=1000`)
    for (let i = 0; i < 10; i++) assert.not.match((await callback()).json.reason, /too many requests/)
    const lnurlRefused = await callback()
    assert.match(lnurlRefused.json.reason, /^too many requests: LNURL callbacks from this address/)
    assert.ok(Number(lnurlRefused.headers.get('retry-after')) >= 1)
  } finally {
    await rd.stop()
  }
})

rates('a restaurant takes so many orders a minute from everyone, and holds so many unpaid', async () => {
  const rd = await startRestaurantDaemon({ config: '[restaurant]\norders_burst = 1000\nrestaurant_orders_per_minute = 6\nmax_unpaid_orders = 3\n' })
  try {
    const owner = await rd.wallet()
    const menu = await buildMenu(rd, owner)
    const other = await buildMenu(rd, owner)
    const payer = await rd.wallet({ enable: false })
    await rd.fund(payer, 10_000)

    const placed: any[] = []
    for (let i = 0; i < 3; i++) placed.push((await order(rd, menu)).json)
    const full = await order(rd, menu)
    assert.is(full.status, 429)
    assert.is(full.json.detail, 'this restaurant holds 3 unpaid orders, its limit; try again once some are paid or expire')
    assert.ok(Number(full.headers.get('retry-after')) >= 1)
    // Another restaurant is not held up; paying an order frees a place.
    assert.is((await order(rd, other)).status, 201)
    assert.is((await rd.pay(payer, placed[0].invoice.payment_request)).json.status, 'OK')
    await eventually(async () => (await rd.api('GET', `/orders/${placed[0].order.id}`)).json.status === 'paid', 'the order paid')
    assert.is((await order(rd, menu)).status, 201)
    // Five tokens of the restaurant's six are gone (the order refused for the unpaid cap took one too; a token
    // comes back every 10 s): one more order is taken, the next is refused for the rate.
    await rd.pay(payer, (await rd.api('GET', `/orders/${placed[1].order.id}`)).json.payment_request)
    await eventually(async () => (await rd.api('GET', `/orders/${placed[1].order.id}`)).json.status === 'paid', 'the second order paid')
    assert.is((await order(rd, menu)).status, 201)
    const rate = await order(rd, menu)
    assert.is(rate.status, 429)
    assert.match(rate.json.detail, /^too many requests: orders at this restaurant/)
    await assertAuditClean(rd.daemon.dataDir)
  } finally {
    await rd.stop()
  }
})

rates.run()

// ---------------------------------------------------------------------------------------------------------------

const purge = suite('unpaid orders expire and are deleted with their invoices')

purge('an expired unpaid order and its invoice are gone after the retention; a paid order stays', async () => {
  const rd = await startRestaurantDaemon({ config: '[restaurant]\npurge_expired_after_seconds = 1\nsweep_seconds = 1\n' })
  try {
    const menu = await buildMenu(rd, await rd.wallet())
    const payer = await rd.wallet({ enable: false })
    await rd.fund(payer, 10_000)
    // The paid order first, under the default invoice expiry: with a 1 s one, a loaded machine could let its invoice
    // expire before it is paid (seen once on PostgreSQL in .ci/run).
    const paid = (await order(rd, menu)).json
    const payment = (await rd.pay(payer, paid.invoice.payment_request)).json
    assert.is(payment.status, 'OK', JSON.stringify(payment))
    const set = await rd.api('PUT', '/settings', { body: { invoice_expiry_seconds: 1 }, headers: adminHeaders(rd) })
    assert.is(set.status, 200, set.text)
    const unpaid = (await order(rd, menu)).json

    await eventually(async () => (await rd.api('GET', `/orders/${unpaid.order.id}`)).status === 404, 'the unpaid order purged', 10_000)
    await eventually(() => /old unpaid orders deleted with their invoices/.test(rd.daemon.logs()), 'the purge logged')
    const kept = await rd.api('GET', `/orders/${paid.order.id}`)
    assert.is(kept.json.status, 'paid')
    await withBooks(rd.daemon.dataDir, async books => {
      const invoices = async (hash: string) => (await books.one<{ n: number }>('SELECT COUNT(*) AS n FROM invoices WHERE payment_hash = ?', [hash]))!.n
      assert.is(await invoices(unpaid.invoice.payment_hash), 0)
      assert.is(await invoices(paid.invoice.payment_hash), 1)
    }, { readonly: true })
    await assertAuditClean(rd.daemon.dataDir)
  } finally {
    await rd.stop()
  }
})

purge.run()

// ---------------------------------------------------------------------------------------------------------------

const flood = suite('the guest-order flood, from another process')

flood('16 loops of huge and largest-allowed orders for 8 s: the database grows < 1 MB and health keeps answering', async () => {
  const rd = await startRestaurantDaemon()
  try {
    const menu = await buildMenu(rd, await rd.wallet())
    const before = await booksBytes(rd.daemon.dataDir)
    const attacker = run(process.execPath, [path.join(here, 'guest-flood.js'), rd.daemon.url, menu.id, menu.cola.id, '16', '8'], { timeout: 60_000 })
    // Health, once every 250 ms while the flood runs: every one must be answered (OK), none may hang.
    const health: number[] = []
    let flooding = true
    void attacker.finally(() => (flooding = false))
    while (flooding) {
      const res = await fetch(`${rd.daemon.url}/api/health`, { signal: AbortSignal.timeout(10_000) })
      health.push(res.status)
      await res.arrayBuffer()
      await new Promise(resolve => setTimeout(resolve, 250))
    }
    const statuses = JSON.parse((await attacker).stdout) as Record<string, number>
    const grown = (await booksBytes(rd.daemon.dataDir)) - before
    console.log(`flood answers ${JSON.stringify(statuses)}; database grew ${grown} bytes; ${health.length} health samples`)
    assert.ok(health.length >= 10, `${health.length} health samples`)
    assert.ok(health.every(status => status === 200), `health answers: ${health.join(',')}`)
    assert.ok((statuses['201'] ?? 0) <= 10, `orders taken: ${statuses['201']}`)
    assert.ok((statuses['429'] ?? 0) > 0, 'the rate refusals')
    assert.ok((statuses['413'] ?? 0) + (statuses.cut ?? 0) > 0, 'the size refusals')
    assert.ok(grown < 1024 * 1024, `the database grew ${grown} bytes`)
  } finally {
    await rd.stop()
  }
})

flood.run()
