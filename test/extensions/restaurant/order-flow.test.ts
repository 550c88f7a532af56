// The whole restaurant flow over HTTP, as an owner, a customer and a kitchen printer meet it: the owner builds a
// 3-level menu with modifiers and availability; a customer quotes and orders without any key; another wallet of
// the daemon pays the invoice; the order turns paid once; a print job appears, is polled and acknowledged; the
// owner moves the order through its statuses, and refused moves are 400s naming both statuses.
import { suite } from '../../support/suite.js'
import * as assert from 'uvu/assert'
import bolt11 from 'bolt11'
import { withBooks } from '../../support/books.js'
import { buildMenu, eventually, startRestaurantDaemon, type RestaurantDaemon, type TestWallet } from './restaurant-daemon.js'

const flow = suite('ordering, paying, printing and status moves')
let rd: RestaurantDaemon
let owner: TestWallet
let customer: TestWallet
let menu: Awaited<ReturnType<typeof buildMenu>>

flow.before(async () => {
  rd = await startRestaurantDaemon()
  owner = await rd.wallet()
  // The customer never enables the extension: ordering is public, and paying is an ordinary payment.
  customer = await rd.wallet({ enable: false })
  menu = await buildMenu(rd, owner)
})
flow.after(async () => {
  await rd?.stop()
})

const burgerLine = () => ({ item_id: menu.burger.id, quantity: 2, modifier_ids: [menu.double.id, menu.bacon.id], note: 'no pickles' })
const colaLine = () => ({ item_id: menu.cola.id, quantity: 1 })

flow('the menu holds the tree, the items with their options, and no categories', async () => {
  const res = await rd.api('GET', `/restaurants/${menu.id}/menu`)
  assert.is(res.status, 200)
  assert.equal(Object.keys(res.json).sort(), ['items', 'restaurant', 'tree'])
  assert.not.ok(res.text.includes('categories'))
  assert.equal(res.json.tree.map((n: any) => n.name), ['Food', 'Drinks'])
  const burgers = res.json.tree[0].children[0].children[0]
  assert.is(burgers.name, 'Burgers')
  assert.is(burgers.depth, 2)
  assert.is(burgers.path, `/${menu.food.id}/${menu.mains.id}/${menu.burgers.id}`)
  const burger = res.json.items.find((i: any) => i.id === menu.burger.id)
  assert.equal(burger.modifier_groups.map((g: any) => [g.name, g.modifiers.map((m: any) => m.name)]), [
    ['Extras', ['Bacon', 'Onions']],
    ['Size', ['Double', 'Single']],
  ])
  assert.is(burger.availability_windows.length, 1)
  assert.not.ok('wallet' in res.json.restaurant, 'the public menu does not name the wallet')
})

flow('a quote without credentials prices modifiers and quantities exactly', async () => {
  const res = await rd.api('POST', '/orders/quote', { body: [burgerLine(), colaLine()] })
  assert.is(res.status, 200, res.text)
  // (2000 + 1000 + 300) × 2 + 500 = 7100 sat
  assert.equal(res.json, { required_msat: 7_100_000 })
})

flow('a quote with the paying wallet key checks its balance first', async () => {
  const poor = await rd.api('POST', '/orders/quote', { body: [colaLine()], key: customer.invoiceKey })
  assert.is(poor.status, 400)
  assert.is(poor.json.detail, 'insufficient balance: 0 msat available, 500000 msat required')
  await rd.fund(customer, 10_000)
  const rich = await rd.api('POST', '/orders/quote', { body: [colaLine()], key: customer.invoiceKey })
  assert.is(rich.status, 200, rich.text)
  assert.is(rich.json.required_msat, 500_000)
  const unknown = await rd.api('POST', '/orders/quote', { body: [colaLine()], key: 'f'.repeat(64) })
  assert.is(unknown.status, 404)
})

flow('an order is paid by another wallet, turns paid once and prints one kitchen ticket', async () => {
  const placed = await rd.api('POST', '/orders', {
    body: { restaurant_id: menu.id, items: [burgerLine(), colaLine()], table: '12', customer_note: 'window seat' },
  })
  assert.is(placed.status, 201, placed.text)
  const { order, invoice } = placed.json
  assert.is(order.status, 'pending')
  assert.is(order.required_msat, 7_100_000)
  assert.is(order.subtotal, '7100')
  assert.is(order.currency, 'sat')
  assert.is(order.exchange_rate, null)
  assert.is(order.table, '12')
  assert.is(order.items[0].line_total, '6600')
  assert.equal(order.items[0].modifiers.map((m: any) => m.name), ['Double', 'Bacon'])
  assert.match(order.id, /^[A-Za-z0-9_-]{22}$/)
  const decoded = bolt11.decode(invoice.payment_request)
  assert.is(decoded.millisatoshis, '7100000')
  assert.is(invoice.payment_hash, decoded.tagsObject.payment_hash)

  // Paid from another wallet of this daemon (an internal payment).
  const paid = await rd.pay(customer, invoice.payment_request)
  assert.is(paid.json?.status, 'OK', paid.text)
  await eventually(async () => (await rd.api('GET', `/orders/${order.id}`)).json.status === 'paid', 'the order to turn paid')
  const read = (await rd.api('GET', `/orders/${order.id}`)).json
  assert.ok(Math.abs(Date.parse(read.paid_at) - Date.now()) < 60_000, `paid_at ${read.paid_at} is now`)
  assert.is(await rd.balanceMsat(owner), 7_100_000)

  // The printer polls with the invoice key.
  const pending = await rd.api('GET', `/restaurants/${menu.id}/print_jobs?status=pending`, { key: owner.invoiceKey })
  assert.is(pending.status, 200, pending.text)
  assert.is(pending.json.length, 1)
  const job = pending.json[0]
  assert.is(job.order_id, order.id)
  assert.is(job.status, 'pending')
  assert.match(job.text, /2 x Cheeseburger/)
  assert.match(job.text, /\+ Double/)
  assert.match(job.text, /note: no pickles/)
  assert.match(job.text, /Table 12/)

  // Acknowledging needs the admin key; a second ack changes nothing.
  assert.is((await rd.api('PUT', `/print_jobs/${job.id}/ack`, { key: owner.invoiceKey })).status, 403)
  const acked = await rd.api('PUT', `/print_jobs/${job.id}/ack`, { key: owner.adminKey })
  assert.is(acked.status, 200, acked.text)
  assert.is(acked.json.status, 'printed')
  assert.ok(acked.json.printed_at)
  const again = await rd.api('PUT', `/print_jobs/${job.id}/ack`, { key: owner.adminKey })
  assert.is(again.status, 200)
  assert.is(again.json.printed_at, acked.json.printed_at)
  assert.is((await rd.api('GET', `/restaurants/${menu.id}/print_jobs?status=pending`, { key: owner.invoiceKey })).json.length, 0)
  assert.is((await rd.api('GET', `/restaurants/${menu.id}/print_jobs`, { key: owner.invoiceKey })).json.length, 1)

  // A repeated payment notice (the node's mock control tells it again) neither re-pays nor re-prints.
  await rd.daemon.request('POST', '/api/node/mock/invoice/paid', { body: { invoice: invoice.payment_request, amount: 0 } })
  await new Promise(resolve => setTimeout(resolve, 200))
  assert.is((await rd.api('GET', `/restaurants/${menu.id}/print_jobs`, { key: owner.invoiceKey })).json.length, 1)
  assert.is((await rd.api('GET', `/orders/${order.id}`)).json.paid_at, read.paid_at)

  // Allowed moves, then refused ones naming both statuses.
  const move = (status: string, key = owner.adminKey) => rd.api('PUT', `/orders/${order.id}/status/${status}`, { key })
  assert.is((await move('ready')).json.detail, `cannot move order ${order.id} from "paid" to "ready"`)
  assert.is((await move('accepted', owner.invoiceKey)).status, 403)
  for (const status of ['accepted', 'ready', 'completed']) {
    const res = await move(status)
    assert.is(res.status, 200, res.text)
    assert.is(res.json.status, status)
  }
  const back = await move('accepted')
  assert.is(back.status, 400)
  assert.is(back.json.detail, `cannot move order ${order.id} from "completed" to "accepted"`)
  const bogus = await move('paid')
  assert.is(bogus.status, 400)
  assert.match(bogus.json.detail, /from "completed" to "paid"/)
  assert.is((await move('refunded')).json.status, 'refunded')
  assert.is((await move('canceled')).status, 400)
})

flow('an order paid from outside over the node turns paid and is listed by status', async () => {
  const placed = await rd.api('POST', '/orders', { body: { restaurant_id: menu.id, items: [colaLine()] } })
  assert.is(placed.status, 201, placed.text)
  const { order, invoice } = placed.json
  const mock = await rd.daemon.request('POST', '/api/node/mock/invoice/paid', { body: { invoice: invoice.payment_request, amount: 0 } })
  assert.is(mock.json?.status, 'OK', mock.text)
  await eventually(async () => (await rd.api('GET', `/orders/${order.id}`)).json.status === 'paid', 'the order to turn paid')
  const paidAt = (await rd.api('GET', `/orders/${order.id}`)).json.paid_at
  assert.ok(Math.abs(Date.parse(paidAt) - Date.now()) < 60_000, `paid_at ${paidAt} is now`)
  const paidList = await rd.api('GET', `/restaurants/${menu.id}/orders?statuses=paid`, { key: owner.invoiceKey })
  assert.is(paidList.status, 200, paidList.text)
  assert.equal(paidList.json.map((o: any) => o.id), [order.id])
  const several = await rd.api('GET', `/restaurants/${menu.id}/orders?statuses=paid&statuses=refunded&limit=1`, { key: owner.invoiceKey })
  assert.equal(several.json.map((o: any) => o.id), [order.id], 'newest first, limited')
})

flow('payment notices and status moves of one order at once: paid once, one ticket, exactly one move applies', async () => {
  const placed = await rd.api('POST', '/orders', { body: { restaurant_id: menu.id, items: [colaLine()] } })
  assert.is(placed.status, 201, placed.text)
  const { order, invoice } = placed.json
  const notices = await Promise.all(
    Array.from({ length: 5 }, () => rd.daemon.request('POST', '/api/node/mock/invoice/paid', { body: { invoice: invoice.payment_request, amount: 0 } })),
  )
  assert.ok(notices.some(n => n.json?.status === 'OK'), notices.map(n => n.text).join(' | '))
  await eventually(async () => (await rd.api('GET', `/orders/${order.id}`)).json.status === 'paid', 'the order to turn paid')
  const tickets = (await rd.api('GET', `/restaurants/${menu.id}/print_jobs`, { key: owner.invoiceKey })).json
  assert.is(tickets.filter((job: any) => job.order_id === order.id).length, 1)

  // Both targets end the order, so after the first applies every other is refused, by the table or as a conflict.
  const moves = await Promise.all(
    ['canceled', 'refunded', 'canceled', 'refunded', 'canceled', 'refunded'].map(status =>
      rd.api('PUT', `/orders/${order.id}/status/${status}`, { key: owner.adminKey }),
    ),
  )
  const applied = moves.filter(m => m.status === 200)
  assert.is(applied.length, 1, moves.map(m => `${m.status} ${m.text}`).join(' | '))
  assert.ok(moves.every(m => m.status === 200 || m.status === 400 || m.status === 409), moves.map(m => m.status).join(','))
  assert.is((await rd.api('GET', `/orders/${order.id}`)).json.status, applied[0]!.json.status)
})

flow('a pending order can be canceled; a later payment leaves it canceled', async () => {
  const placed = await rd.api('POST', '/orders', { body: { restaurant_id: menu.id, items: [colaLine()] } })
  const { order, invoice } = placed.json
  const canceled = await rd.api('PUT', `/orders/${order.id}/status/canceled`, { key: owner.adminKey })
  assert.is(canceled.json.status, 'canceled')
  await rd.daemon.request('POST', '/api/node/mock/invoice/paid', { body: { invoice: invoice.payment_request, amount: 0 } })
  await eventually(() => rd.daemon.logs().includes('an order was paid after it was canceled or expired'), 'the late payment to be logged')
  assert.is((await rd.api('GET', `/orders/${order.id}`)).json.status, 'canceled')
})

flow('after a crash, a payment whose listener never finished is applied at start, once', async () => {
  const placed = await rd.api('POST', '/orders', { body: { restaurant_id: menu.id, items: [colaLine()] } })
  const { order, invoice } = placed.json
  await rd.daemon.request('POST', '/api/node/mock/invoice/paid', { body: { invoice: invoice.payment_request, amount: 0 } })
  await eventually(async () => (await rd.api('GET', `/orders/${order.id}`)).json.status === 'paid', 'the order to turn paid')
  const otherPlaced = await rd.api('POST', '/orders', { body: { restaurant_id: menu.id, items: [colaLine()] } })
  const other = otherPlaced.json
  await rd.daemon.request('POST', '/api/node/mock/invoice/paid', { body: { invoice: other.invoice.payment_request, amount: 0 } })
  await eventually(async () => (await rd.api('GET', `/orders/${other.order.id}`)).json.status === 'paid', 'the second order to turn paid')
  const paidAt = (await rd.api('GET', `/orders/${order.id}`)).json.paid_at

  // The daemon dies. On disk, the first payment looks as if the crash came after the wallet's commit and
  // before the restaurant's (order still pending, no ticket, not delivered); the second as if it came after
  // the restaurant's commit but before the delivery was recorded. Both are delivered again at start.
  await rd.restart({
    kill: true,
    beforeStart: dataDir => withBooks(dataDir, async books => {
      await books.run("UPDATE restaurant_orders SET status = 'pending', paid_at = NULL WHERE id = ?", [order.id])
      await books.run('DELETE FROM restaurant_print_jobs WHERE order_id = ?', [order.id])
      const undelivered = (hash: string) => books.run("DELETE FROM extension_deliveries WHERE extension = 'restaurant' AND payment_hash = ?", [hash])
      assert.is((await undelivered(invoice.payment_hash)).changes, 1)
      assert.is((await undelivered(other.invoice.payment_hash)).changes, 1)
    }),
  })
  const read = (await rd.api('GET', `/orders/${order.id}`)).json
  assert.is(read.status, 'paid')
  assert.is(read.paid_at, paidAt, 'paid_at is the payment time, not the restart time')
  const jobs = (await rd.api('GET', `/restaurants/${menu.id}/print_jobs`, { key: owner.invoiceKey })).json
  assert.is(jobs.filter((j: any) => j.order_id === order.id).length, 1)
  assert.is(jobs.filter((j: any) => j.order_id === other.order.id).length, 1, 'the re-delivered payment printed nothing twice')
})

flow('an unpaid order expires with its invoice', async () => {
  const set = await rd.api('PUT', '/settings', { body: { invoice_expiry_seconds: 1 }, headers: { authorization: `Bearer ${rd.daemon.adminToken}` } })
  assert.is(set.status, 200, set.text)
  const placed = await rd.api('POST', '/orders', { body: { restaurant_id: menu.id, items: [colaLine()] } })
  assert.is(placed.json.order.status, 'pending')
  assert.ok(bolt11.decode(placed.json.invoice.payment_request).timeExpireDate! - bolt11.decode(placed.json.invoice.payment_request).timestamp! <= 1)
  await new Promise(resolve => setTimeout(resolve, 1200))
  const read = await rd.api('GET', `/orders/${placed.json.order.id}`)
  assert.is(read.json.status, 'expired')
  const move = await rd.api('PUT', `/orders/${placed.json.order.id}/status/canceled`, { key: owner.adminKey })
  assert.is(move.json.detail, `cannot move order ${placed.json.order.id} from "expired" to "canceled"`)
  await rd.api('PUT', '/settings', { body: { invoice_expiry_seconds: 900 }, headers: { authorization: `Bearer ${rd.daemon.adminToken}` } })
})

flow.run()
