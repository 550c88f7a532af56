// Who may do what, and every error status the extension answers (400, 403, 404, 409, 500) with its `{"detail"}`
// body: public reads without keys, owner operations with the restaurant wallet's admin key only, the invoice
// key for listing orders and print jobs, settings for the operator, the extension gate, the removed category
// endpoints, validation of carts, and a generic 500 that leaks nothing.
import { suite } from '../../support/suite.js'
import * as assert from 'uvu/assert'
import { withBooks } from '../../support/books.js'
import { buildMenu, startRestaurantDaemon, type RestaurantDaemon, type TestWallet } from './restaurant-daemon.js'

const access = suite('access rules and errors')
let rd: RestaurantDaemon
let owner: TestWallet
let stranger: TestWallet
let menu: Awaited<ReturnType<typeof buildMenu>>

access.before(async () => {
  rd = await startRestaurantDaemon()
  owner = await rd.wallet()
  stranger = await rd.wallet()
  menu = await buildMenu(rd, owner)
})
access.after(async () => {
  await rd?.stop()
})

const operator = () => ({ authorization: `Bearer ${rd.daemon.adminToken}` })

access('public reads need no credentials', async () => {
  const reads = [
    `/restaurants/${menu.id}`,
    `/restaurants/by-slug/${menu.slug}`,
    `/restaurants/${menu.id}/menu`,
    `/menu_items/${menu.burger.id}`,
    `/menu_nodes/${menu.food.id}`,
    `/restaurants/${menu.id}/menu_nodes`,
    `/menu_items/${menu.burger.id}/modifier_groups`,
    `/modifier_groups/${menu.size.id}/modifiers`,
    `/menu_items/${menu.burger.id}/availability_windows`,
  ]
  for (const read of reads) {
    const res = await rd.api('GET', read)
    assert.is(res.status, 200, `${read}: ${res.text}`)
  }
  const bySlug = await rd.api('GET', `/restaurants/by-slug/${menu.slug}`)
  assert.is(bySlug.json.id, menu.id)
  assert.not.ok('wallet' in bySlug.json)
})

access('missing entities are 404 with a detail', async () => {
  const missing = [
    '/restaurants/nope',
    '/restaurants/by-slug/no-such-slug',
    '/restaurants/nope/menu',
    '/menu_items/nope',
    '/menu_nodes/nope',
    '/restaurants/nope/menu_nodes',
    '/menu_items/nope/modifier_groups',
    '/modifier_groups/nope/modifiers',
    '/menu_items/nope/availability_windows',
    '/orders/nope',
  ]
  for (const read of missing) {
    const res = await rd.api('GET', read)
    assert.is(res.status, 404, read)
    assert.match(res.json.detail, /not found\.$/, read)
  }
  assert.is((await rd.api('PUT', '/print_jobs/nope/ack', { key: owner.adminKey })).status, 404)
  assert.is((await rd.api('DELETE', '/modifiers/nope', { key: owner.adminKey })).status, 404)
  assert.is((await rd.daemon.request('GET', '/restaurant/r/no-such-slug')).status, 404)
})

access('the removed category and subcategory endpoints answer 404', async () => {
  for (const [method, route] of [
    ['GET', '/categories'],
    ['GET', `/categories/${menu.food.id}`],
    ['POST', '/categories'],
    ['GET', '/subcategories'],
    ['DELETE', `/subcategories/${menu.mains.id}`],
    ['GET', `/restaurants/${menu.id}/categories`],
  ] as const) {
    const res = await rd.api(method, route, { key: owner.adminKey, ...(method === 'POST' ? { body: { name: 'x' } } : {}) })
    assert.is(res.status, 404, `${method} ${route}`)
    assert.ok(typeof res.json.detail === 'string')
  }
})

access('owner operations: no key 401, unknown key 404, invoice key 403, another wallet 403', async () => {
  const update = (key?: string) => rd.api('PUT', `/restaurants/${menu.id}`, { key, body: { name: 'Renamed' } })
  const none = await update()
  assert.is(none.status, 401)
  assert.is(none.json.detail, 'No Api Key provided.')
  const unknown = await update('0'.repeat(64))
  assert.is(unknown.status, 404)
  assert.is(unknown.json.detail, 'Wallet not found.')
  const invoiceKey = await update(owner.invoiceKey)
  assert.is(invoiceKey.status, 403)
  assert.is(invoiceKey.json.detail, 'Invalid adminkey.')
  for (const attempt of [
    update(stranger.adminKey),
    rd.api('DELETE', `/restaurants/${menu.id}`, { key: stranger.adminKey }),
    rd.api('POST', '/menu_nodes', { key: stranger.adminKey, body: { restaurant_id: menu.id, name: 'Mine now' } }),
    rd.api('PUT', `/menu_nodes/${menu.food.id}`, { key: stranger.adminKey, body: { name: 'Mine' } }),
    rd.api('PUT', `/menu_nodes/${menu.mains.id}/move`, { key: stranger.adminKey, body: { new_parent_id: null } }),
    rd.api('DELETE', `/menu_nodes/${menu.drinks.id}?cascade=true`, { key: stranger.adminKey }),
    rd.api('POST', '/menu_items', { key: stranger.adminKey, body: { restaurant_id: menu.id, name: 'X', price: '1' } }),
    rd.api('PUT', `/menu_items/${menu.cola.id}`, { key: stranger.adminKey, body: { price: '1' } }),
    rd.api('DELETE', `/menu_items/${menu.cola.id}`, { key: stranger.adminKey }),
    rd.api('POST', '/modifier_groups', { key: stranger.adminKey, body: { item_id: menu.cola.id, name: 'Ice' } }),
    rd.api('DELETE', `/modifier_groups/${menu.size.id}`, { key: stranger.adminKey }),
    rd.api('POST', '/modifiers', { key: stranger.adminKey, body: { group_id: menu.size.id, name: 'Triple' } }),
    rd.api('DELETE', `/modifiers/${menu.single.id}`, { key: stranger.adminKey }),
    rd.api('POST', '/availability_windows', { key: stranger.adminKey, body: { item_id: menu.cola.id, days: ['mon'], start: '10:00', end: '11:00' } }),
    rd.api('GET', `/restaurants/${menu.id}/orders`, { key: stranger.invoiceKey }),
    rd.api('GET', `/restaurants/${menu.id}/print_jobs`, { key: stranger.invoiceKey }),
  ]) {
    const res = await attempt
    assert.is(res.status, 403, res.text)
    assert.is(res.json.detail, 'Not your restaurant.')
  }
  assert.is((await rd.api('GET', `/menu_items/${menu.cola.id}`)).json.price, '500', 'nothing changed')
})

access('an invoice key lists orders and print jobs but cannot change them', async () => {
  assert.is((await rd.api('GET', `/restaurants/${menu.id}/orders`, { key: owner.invoiceKey })).status, 200)
  assert.is((await rd.api('GET', `/restaurants/${menu.id}/print_jobs?status=pending`, { key: owner.invoiceKey })).status, 200)
  const placed = await rd.api('POST', '/orders', { body: { restaurant_id: menu.id, items: [{ item_id: menu.cola.id, quantity: 1 }] } })
  const move = await rd.api('PUT', `/orders/${placed.json.order.id}/status/canceled`, { key: owner.invoiceKey })
  assert.is(move.status, 403)
  assert.is((await rd.api('GET', `/restaurants/${menu.id}/orders?statuses=bogus`, { key: owner.invoiceKey })).status, 400)
})

access('the extension gate: an account that has not enabled restaurant gets 403', async () => {
  const newcomer = await rd.wallet({ enable: false })
  const res = await rd.api('POST', '/restaurants', { key: newcomer.adminKey, body: { name: 'Nope', slug: 'nope-gate' } })
  assert.is(res.status, 403)
  assert.is(res.json.detail, "Extension 'restaurant' not enabled.")
  // Public routes are not gated, and a customer's key on the quote is only the payer's.
  assert.is((await rd.api('GET', `/restaurants/${menu.id}`, { key: newcomer.adminKey })).status, 200)
})

access('all_wallets lists the restaurants of every wallet of the account', async () => {
  const second = await rd.daemon.request('POST', '/api/v1/wallet', { body: { name: 'second' }, headers: { 'x-api-key': owner.adminKey } })
  assert.ok([200, 201].includes(second.status), second.text)
  const made = await rd.api('POST', '/restaurants', { key: second.json.adminkey, body: { name: 'Second', slug: `second-${process.pid}` } })
  assert.is(made.status, 201, made.text)
  assert.is(made.json.wallet, second.json.id)
  const own = await rd.api('GET', '/restaurants', { key: owner.adminKey })
  assert.equal(own.json.map((r: any) => r.id), [menu.id])
  const all = await rd.api('GET', '/restaurants?all_wallets=true', { key: owner.adminKey })
  assert.equal(all.json.map((r: any) => r.id).sort(), [menu.id, made.json.id].sort())
  assert.equal((await rd.api('GET', '/restaurants?all_wallets=true', { key: stranger.adminKey })).json, [])
})

access('settings are for host administrators only', async () => {
  const wallet = await rd.api('GET', '/settings', { key: owner.adminKey })
  assert.ok([401, 403].includes(wallet.status), wallet.text)
  assert.is((await rd.api('PUT', '/settings', { key: owner.adminKey, body: { print_on_paid: false } })).status, wallet.status)
  const read = await rd.api('GET', '/settings', { headers: operator() })
  assert.is(read.status, 200)
  assert.equal(
    { ...read.json, relays: read.json.relays.length },
    { max_menu_depth: 3, invoice_expiry_seconds: 900, publish_to_nostr: true, relays: 1, print_on_paid: true },
  )
  const bad = await rd.api('PUT', '/settings', { headers: operator(), body: { max_menu_depth: 'deep' } })
  assert.is(bad.status, 400)
  assert.match(bad.json.detail, /^max_menu_depth/)
})

access('restaurant validation: slug shape, a taken slug, currency, whole sats', async () => {
  const create = (body: object) => rd.api('POST', '/restaurants', { key: owner.adminKey, body })
  const cases: [object, RegExp][] = [
    [{ name: 'A', slug: 'Has Spaces' }, /^slug/],
    [{ name: 'A', slug: menu.slug }, /^slug: .*already taken/],
    [{ name: 'A', slug: 'xyz-cur', currency: 'XYZ' }, /^currency: XYZ/],
    [{ name: 'A', slug: 'xyz-tz', timezone: 'Mars/Olympus' }, /^timezone/],
    [{ slug: 'no-name' }, /^name/],
  ]
  for (const [body, detail] of cases) {
    const res = await create(body)
    assert.is(res.status, 400, JSON.stringify(body))
    assert.match(res.json.detail, detail)
  }
  const fractional = await rd.api('POST', '/menu_items', { key: owner.adminKey, body: { restaurant_id: menu.id, name: 'Half', price: '10.5' } })
  assert.is(fractional.status, 400)
  assert.is(fractional.json.detail, 'price: must be a whole number of sats')
  const negative = await rd.api('POST', '/menu_items', { key: owner.adminKey, body: { restaurant_id: menu.id, name: 'Neg', price: '-1' } })
  assert.is(negative.status, 400)
})

access("a wallet field (as LNbits clients send it) is taken when it names the key's wallet, refused otherwise", async () => {
  const own = await rd.api('POST', '/restaurants', { key: owner.adminKey, body: { wallet: owner.walletId, name: 'Named', slug: `named-${process.pid}` } })
  assert.is(own.status, 201, own.text)
  assert.is(own.json.wallet, owner.walletId, "opened on the key's own wallet")
  const elsewhere = await rd.api('POST', '/restaurants', { key: owner.adminKey, body: { wallet: stranger.walletId, name: 'Theirs', slug: `theirs-${process.pid}` } })
  assert.is(elsewhere.status, 403)
  assert.is(
    elsewhere.json.detail,
    `wallet: a restaurant is opened on the wallet whose admin key creates it, and this key's wallet is ${owner.walletId}: ` +
      `leave wallet out, or send the request with the admin key of ${stranger.walletId}`,
  )
  assert.is((await rd.api('GET', `/restaurants/by-slug/theirs-${process.pid}`)).status, 404, 'nor anywhere')
})

access('carts are refused with a 400 naming the item', async () => {
  const otherPlace = await rd.api('POST', '/restaurants', { key: owner.adminKey, body: { name: 'Elsewhere', slug: `elsewhere-${process.pid}` } })
  const foreign = await rd.api('POST', '/menu_items', { key: owner.adminKey, body: { restaurant_id: otherPlace.json.id, name: 'Foreign', price: '5' } })
  const inactive = await rd.api('POST', '/menu_items', { key: owner.adminKey, body: { restaurant_id: menu.id, name: 'Retired', price: '5', active: false } })
  const soldOut = await rd.api('POST', '/menu_items', { key: owner.adminKey, body: { restaurant_id: menu.id, name: 'Gone', price: '5', sold_out: true } })
  const burger = (modifier_ids: string[]) => ({ item_id: menu.burger.id, quantity: 1, modifier_ids })
  const cases: [unknown, RegExp][] = [
    [[], /^items: the order has no items/],
    [[{ item_id: menu.cola.id, quantity: 0 }], /^items\.0\.quantity/],
    [[{ item_id: 'no-such-item', quantity: 1 }], /^item no-such-item: no such menu item/],
    [[{ item_id: menu.cola.id, quantity: 1 }, { item_id: foreign.json.id, quantity: 1 }], /\("Foreign"\): belongs to another restaurant/],
    [[{ item_id: inactive.json.id, quantity: 1 }], /\("Retired"\): is not on sale/],
    [[{ item_id: soldOut.json.id, quantity: 1 }], /\("Gone"\): is sold out/],
    [[burger([])], /choose exactly 1 of "Size" \(0 chosen\)/],
    [[burger([menu.single.id, menu.double.id])], /choose exactly 1 of "Size" \(2 chosen\)/],
    [[burger([menu.single.id, menu.single.id])], /a modifier is chosen twice/],
    [[burger([menu.single.id, 'alien'])], /modifier alien does not belong to this item/],
    [{ items: 'not a list' }, /^items/],
  ]
  for (const [body, detail] of cases) {
    const res = await rd.api('POST', '/orders/quote', { body })
    assert.is(res.status, 400, JSON.stringify(body))
    assert.match(res.json.detail, detail)
  }
  const wrongRestaurant = await rd.api('POST', '/orders', { body: { restaurant_id: otherPlace.json.id, items: [{ item_id: menu.cola.id, quantity: 1 }] } })
  assert.is(wrongRestaurant.status, 400)
  assert.match(wrongRestaurant.json.detail, /\("Cola"\): belongs to another restaurant/)
  const noRestaurant = await rd.api('POST', '/orders', { body: { restaurant_id: 'gone', items: [{ item_id: menu.cola.id, quantity: 1 }] } })
  assert.is(noRestaurant.status, 404)
})

access('a server-side failure is a 500 with a generic detail', async () => {
  const placed = await rd.api('POST', '/orders', { body: { restaurant_id: menu.id, items: [{ item_id: menu.cola.id, quantity: 1 }] } })
  // A row damaged behind the daemon's back (a disk error, a bad manual edit) is the server's failure, not the caller's.
  await withBooks(rd.daemon.dataDir, async books => {
    const broken = await books.run('UPDATE restaurant_orders SET items = ? WHERE id = ?', ['{broken', placed.json.order.id])
    assert.is(broken.changes, 1, `the order's row in ${books.where}`)
  })
  const res = await rd.api('GET', `/orders/${placed.json.order.id}`)
  assert.is(res.status, 500)
  assert.match(res.json.detail, /^internal error \(id [0-9a-f]{8}\)$/)
  assert.not.match(res.text, /JSON|SyntaxError|at /)
})

access('deleting a restaurant removes its menu; its orders stay readable', async () => {
  const doomed = await rd.api('POST', '/restaurants', { key: owner.adminKey, body: { name: 'Doomed', slug: `doomed-${process.pid}` } })
  const id = doomed.json.id
  const node = await rd.api('POST', '/menu_nodes', { key: owner.adminKey, body: { restaurant_id: id, name: 'N' } })
  const child = await rd.api('POST', '/menu_nodes', { key: owner.adminKey, body: { restaurant_id: id, name: 'C', parent_id: node.json.id } })
  const item = await rd.api('POST', '/menu_items', { key: owner.adminKey, body: { restaurant_id: id, node_id: child.json.id, name: 'I', price: '7' } })
  const order = await rd.api('POST', '/orders', { body: { restaurant_id: id, items: [{ item_id: item.json.id, quantity: 1 }] } })
  assert.is(order.status, 201, order.text)
  const res = await rd.api('DELETE', `/restaurants/${id}`, { key: owner.adminKey })
  assert.is(res.status, 200, res.text)
  assert.equal(res.json, { success: true })
  assert.is((await rd.api('GET', `/restaurants/${id}`)).status, 404)
  assert.is((await rd.api('GET', `/menu_items/${item.json.id}`)).status, 404)
  assert.is((await rd.api('GET', `/menu_nodes/${child.json.id}`)).status, 404)
  assert.is((await rd.api('GET', `/orders/${order.json.order.id}`)).status, 200)
})

access.run()
