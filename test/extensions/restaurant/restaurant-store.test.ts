// The restaurant's storage on both engines: restaurants and menus, orders, print jobs and settings, the
// same cases on SQLite and on a real PostgreSQL 15, through the room's storage interfaces. Besides each method,
// the guarded writes that keep concurrent changes apart on PostgreSQL's separate sessions: payment notices of one
// order racing (it becomes paid once, with one ticket), status moves racing (exactly one applies), two menu moves
// that would make a cycle (one is refused), and a slug taken twice at once (the UNIQUE column refuses one).
import { pino } from 'pino'
import { suite } from '../../support/suite.js'
import * as assert from 'uvu/assert'
import { moveNode, placementUnder, subtreeOf, ancestry } from '../../../src/extensions/restaurant/menu-tree.js'
import { menuStore, type MenuItemRow, type MenuNodeRow, type MenuStore, type RestaurantRow } from '../../../src/extensions/restaurant/menu-store.js'
import { orderBook, type OrderRow } from '../../../src/extensions/restaurant/order-book.js'
import { orderStore } from '../../../src/extensions/restaurant/order-store.js'
import { printJobStore } from '../../../src/extensions/restaurant/print-job-store.js'
import { restaurantSettings } from '../../../src/extensions/restaurant/settings-store.js'
import { sqlErrorKind, type SqlStore } from '../../../src/store/index.js'
import { logPostgresSkipped, openEngines } from '../../support/sql-engines.js'

const both = await openEngines()
logPostgresSkipped(both.postgresSkipped)

const tables = [
  'restaurant_print_jobs', 'restaurant_orders', 'restaurant_settings', 'restaurant_availability_windows',
  'restaurant_modifiers', 'restaurant_modifier_groups', 'restaurant_menu_items', 'restaurant_menu_nodes',
  'restaurant_restaurants',
]

const restaurantRow = (id: string, over: Partial<RestaurantRow> = {}): RestaurantRow => ({
  id,
  wallet: 'w1',
  account_id: 'a1',
  name: `Diner ${id}`,
  slug: `diner-${id}`,
  description: '',
  currency: 'sat',
  timezone: 'UTC',
  image: null,
  active: 1,
  nostr_secret_key: '11'.repeat(32),
  stall_created_at: null,
  created_at: 1_750_000_000_000,
  updated_at: 1_750_000_000_000,
  ...over,
})

const nodeRow = (id: string, parent: MenuNodeRow | null, over: Partial<MenuNodeRow> = {}): MenuNodeRow => ({
  id,
  restaurant_id: 'r1',
  ...placementUnder(parent, id),
  name: id,
  description: '',
  sort: 0,
  image: null,
  created_at: 1_000,
  updated_at: 1_000,
  ...over,
})

const itemRow = (id: string, nodeId: string | null, over: Partial<MenuItemRow> = {}): MenuItemRow => ({
  id,
  restaurant_id: 'r1',
  node_id: nodeId,
  name: id,
  description: '',
  price: '100',
  image: null,
  sort: 0,
  active: 1,
  sold_out: 0,
  published_event_id: null,
  published_created_at: null,
  created_at: 1_000,
  updated_at: 1_000,
  ...over,
})

const orderRow = (id: string, over: Partial<OrderRow> = {}): OrderRow => ({
  id,
  restaurant_id: 'r1',
  status: 'pending',
  items: JSON.stringify([{ item_id: 'i1', name: 'Soup', unit_price: '100', quantity: 2, modifiers: [], note: null, line_total: '200' }]),
  subtotal: '200',
  currency: 'sat',
  exchange_rate: null,
  required_msat: 200_000,
  payment_hash: id.padEnd(64, '0'),
  payment_request: `lnbc-${id}`,
  customer_note: null,
  table_label: '7',
  expires_at: 10_000,
  created_at: 1_000,
  paid_at: null,
  updated_at: 1_000,
  ...over,
})

for (const engine of both.engines) {
  const test = suite(`restaurant storage on ${engine.engine}`)
  let sql: SqlStore
  let close: () => Promise<void>
  let menu: MenuStore
  test.before(async () => {
    ;({ store: sql, close } = await engine.open())
    menu = menuStore(sql)
  })
  test.before.each(async () => {
    await sql.run('UPDATE restaurant_menu_items SET node_id = NULL')
    await sql.run('UPDATE restaurant_menu_nodes SET parent_id = NULL')
    for (const table of tables) await sql.run(`DELETE FROM ${table}`)
    await menu.insertRestaurant(restaurantRow('r1'))
  })
  test.after(async () => {
    await close?.()
    if (engine === both.engines.at(-1)) await both.close() // suites run after this loop: the last one closes
  })

  test('restaurants: read by id, slug, wallet and account; updated by named columns; stall time set', async () => {
    await menu.insertRestaurant(restaurantRow('r2', { wallet: 'w2', created_at: 1_750_000_000_001 }))
    assert.equal(await menu.restaurant('r1'), restaurantRow('r1'))
    assert.equal((await menu.restaurantBySlug('diner-r2'))?.id, 'r2')
    assert.is(await menu.restaurant('nope'), undefined)
    assert.equal((await menu.restaurantsOfWallet('w2')).map(r => r.id), ['r2'])
    assert.equal((await menu.restaurantsOfAccount('a1')).map(r => r.id), ['r1', 'r2'])
    await menu.updateRestaurant('r1', { name: 'Renamed', active: 0, image: null, description: undefined, updated_at: 5 })
    const updated = (await menu.restaurant('r1'))!
    assert.equal([updated.name, updated.active, updated.description, updated.updated_at], ['Renamed', 0, '', 5])
    const refused = await menu.updateRestaurant('r1', { wallet: 'stolen' }).catch(e => e)
    assert.match(refused.message, /not updatable/)
    assert.is(await menu.setStallCreatedAt(1_750_000_123, 'r1'), 1)
    assert.is((await menu.restaurant('r1'))!.stall_created_at, 1_750_000_123)
  })

  test('a slug taken twice at once: the UNIQUE column refuses one', async () => {
    const results = await Promise.allSettled(
      [3, 4, 5, 6].map(k => menu.transaction(async tx => {
        if (await tx.restaurantBySlug('same')) throw new Error('taken')
        await tx.insertRestaurant(restaurantRow(`r${k}`, { slug: 'same' }))
      })),
    )
    assert.is(results.filter(r => r.status === 'fulfilled').length, 1)
    for (const r of results) {
      if (r.status === 'rejected') assert.ok(r.reason.message === 'taken' || sqlErrorKind(r.reason) === 'unique', String(r.reason))
    }
  })

  test('nodes: tree reads, subtree by path prefix (ids with _ and %), counts, update, delete', async () => {
    const root = nodeRow('a_%', null)
    const child = nodeRow('b', root, { sort: 2 })
    const other = nodeRow('ab', null, { name: 'zz' })
    for (const node of [root, child, other]) await menu.insertNode(node)
    await menu.insertItem(itemRow('i1', 'b'))
    assert.equal(await menu.node('b'), child)
    assert.equal((await menu.nodesOfRestaurant('r1')).map(n => n.id), ['a_%', 'ab', 'b'])
    assert.equal((await subtreeOf(menu, root)).map(n => n.id), ['a_%', 'b'], 'no LIKE wildcard matches ab')
    assert.is((await menu.childCount('a_%'))!.n, 1)
    assert.is((await menu.itemCountOfNode('b'))!.n, 1)
    assert.is((await menu.itemCountOfNode('a_%'))!.n, 0)
    assert.equal((await ancestry(menu, 'b')).map(n => n.id), ['a_%', 'b'])
    assert.equal(await ancestry(menu, null), [])
    await menu.updateNode('b', { name: 'Drinks', sort: 5, updated_at: 7 })
    assert.equal([(await menu.node('b'))!.name, (await menu.node('b'))!.sort], ['Drinks', 5])
    assert.is(await menu.deleteNode('ab'), 1)
    assert.is(await menu.node('ab'), undefined)
  })

  test('a node with children or items cannot be deleted: the foreign keys refuse on both engines', async () => {
    const root = nodeRow('n1', null)
    await menu.insertNode(root)
    await menu.insertNode(nodeRow('n2', root))
    const err = await menu.deleteNode('n1').catch(e => e)
    assert.is(sqlErrorKind(err), 'foreign_key')
    await menu.insertItem(itemRow('i1', 'n2'))
    assert.is(sqlErrorKind(await menu.deleteNode('n2').catch(e => e)), 'foreign_key')
    assert.is(sqlErrorKind(await menu.insertItem(itemRow('i2', 'gone')).catch(e => e)), 'foreign_key')
  })

  test('a move re-derives the subtree in one transaction; a failed one changes nothing', async () => {
    const a = nodeRow('a', null)
    const b = nodeRow('b', a)
    const c = nodeRow('c', null)
    for (const node of [a, b, c]) await menu.insertNode(node)
    const moved = await menu.transaction(tx => moveNode(tx, a, c, 3, 2_000))
    assert.equal(moved.map(n => [n.id, n.depth, n.path]), [['a', 1, '/c/a'], ['b', 2, '/c/a/b']])
    assert.is((await menu.node('a'))!.updated_at, 2_000)
    const fresh = (await menu.node('a'))!
    const err = await menu.transaction(tx => moveNode(tx, fresh, fresh, 3, 3_000)).catch(e => e)
    assert.match(err.message, /own ancestor/)
    await menu.insertNode(nodeRow('d', null))
    const tooDeep = await menu.transaction(async tx => moveNode(tx, c, (await tx.node('d'))!, 2, 3_000)).catch(e => e)
    assert.match(tooDeep.message, /depth cap exceeded/)
    assert.equal((await menu.node('b'))!.path, '/c/a/b', 'nothing moved')
  })

  test('two moves that together would make a cycle: one is refused, the tree stays a tree', async () => {
    await menu.insertNode(nodeRow('x', null))
    await menu.insertNode(nodeRow('y', null))
    const move = (id: string, under: string) =>
      menu.transaction(
        async tx => moveNode(tx, (await tx.node(id))!, (await tx.node(under))!, 5, 2_000),
        { isolation: 'serializable', retries: 5 },
      )
    const results = await Promise.allSettled([move('x', 'y'), move('y', 'x')])
    assert.is(results.filter(r => r.status === 'fulfilled').length, 1, JSON.stringify(results.map(r => r.status)))
    const paths = (await menu.nodesOfRestaurant('r1')).map(n => n.path).sort()
    assert.ok(JSON.stringify(paths) === '["/x","/x/y"]' || JSON.stringify(paths) === '["/y","/y/x"]', JSON.stringify(paths))
  })

  test('items, modifier groups, modifiers and windows: read, listed in order, updated, detached, deleted with cascade', async () => {
    await menu.insertNode(nodeRow('n1', null))
    await menu.insertItem(itemRow('i1', 'n1', { sort: 2 }))
    await menu.insertItem(itemRow('i2', 'n1', { sort: 1, price: '12.50' }))
    assert.equal((await menu.itemsOfRestaurant('r1')).map(i => i.id), ['i2', 'i1'])
    assert.equal((await menu.itemsOfNode('n1')).map(i => i.id), ['i2', 'i1'])
    assert.equal(await menu.item('i1'), itemRow('i1', 'n1', { sort: 2 }))
    await menu.updateItem('i1', { sold_out: 1, node_id: null, updated_at: 9 })
    assert.equal([(await menu.item('i1'))!.sold_out, (await menu.item('i1'))!.node_id], [1, null])
    assert.is(await menu.detachItem(10, 'i2'), 1)
    assert.is((await menu.item('i2'))!.node_id, null)
    assert.is(await menu.setItemPublished('e'.repeat(64), 1_750_000_000, 'i2'), 1)
    assert.equal([(await menu.item('i2'))!.published_event_id, (await menu.item('i2'))!.published_created_at], ['e'.repeat(64), 1_750_000_000])

    await menu.insertGroup({ id: 'g1', item_id: 'i1', name: 'Size', min_select: 1, max_select: 1, sort: 0 })
    await menu.insertGroup({ id: 'g2', item_id: 'i1', name: 'Extras', min_select: 0, max_select: null, sort: 1 })
    await menu.insertModifier({ id: 'm1', group_id: 'g1', name: 'Large', price_delta: '50', sort: 1 })
    await menu.insertModifier({ id: 'm2', group_id: 'g1', name: 'Small', price_delta: '0', sort: 0 })
    await menu.insertModifier({ id: 'm3', group_id: 'g2', name: 'Cheese', price_delta: '20', sort: 0 })
    await menu.insertWindow({ id: 'w1', item_id: 'i1', days: '["mon"]', start_time: '18:00', end_time: '02:00' })
    await menu.insertWindow({ id: 'w2', item_id: 'i1', days: '["tue"]', start_time: '08:00', end_time: '10:00' })
    assert.equal(await menu.group('g2'), { id: 'g2', item_id: 'i1', name: 'Extras', min_select: 0, max_select: null, sort: 1 })
    assert.equal((await menu.groupsOfItem('i1')).map(g => g.id), ['g1', 'g2'])
    assert.equal(await menu.modifier('m1'), { id: 'm1', group_id: 'g1', name: 'Large', price_delta: '50', sort: 1 })
    assert.equal((await menu.modifiersOfGroup('g1')).map(m => m.id), ['m2', 'm1'])
    assert.equal((await menu.modifiersOfItem('i1')).map(m => m.id), ['m3', 'm2', 'm1'], 'by sort, then name')
    assert.equal(await menu.window('w1'), { id: 'w1', item_id: 'i1', days: '["mon"]', start_time: '18:00', end_time: '02:00' })
    assert.equal((await menu.windowsOfItem('i1')).map(w => w.id), ['w2', 'w1'])
    assert.is(await menu.deleteModifier('m3'), 1)
    assert.is(await menu.deleteGroup('g2'), 1)
    assert.is(await menu.deleteWindow('w2'), 1)
    assert.equal((await menu.modifiersOfItem('i1')).map(m => m.id), ['m2', 'm1'])
    assert.is(await menu.deleteItem('i1'), 1)
    assert.equal([await menu.group('g1'), await menu.modifier('m1'), await menu.window('w1')], [undefined, undefined, undefined])
  })

  test('deleting a restaurant removes its whole menu in one transaction', async () => {
    const root = nodeRow('n1', null)
    await menu.insertNode(root)
    await menu.insertNode(nodeRow('n2', root))
    await menu.insertItem(itemRow('i1', 'n2'))
    await menu.insertGroup({ id: 'g1', item_id: 'i1', name: 'Size', min_select: 0, max_select: null, sort: 0 })
    await menu.transaction(tx => tx.deleteRestaurant('r1'))
    assert.is(await menu.restaurant('r1'), undefined)
    assert.equal([await menu.node('n2'), await menu.item('i1'), await menu.group('g1')], [undefined, undefined, undefined])
  })

  test('orders: inserted whole, listed newest first by status with a limit, counted, expired, purged unless paid', async () => {
    const orders = orderStore(sql)
    await orders.insert(orderRow('o1'))
    await orders.insert(orderRow('o2', { created_at: 2_000, expires_at: 20_000 }))
    await orders.insert(orderRow('o3', { restaurant_id: 'r9', created_at: 3_000 }))
    assert.equal(await orders.get('o1'), orderRow('o1'))
    assert.is(await orders.get('nope'), undefined)
    assert.equal((await orders.list('r1', undefined, 50)).map(o => o.id), ['o2', 'o1'])
    assert.equal((await orders.list('r1', undefined, 1)).map(o => o.id), ['o2'])
    assert.is(await orders.unpaidCount('r1'), 2)
    assert.is(await orders.expireDue(10_000), 2, 'o1 and o3 expire at 10 000')
    assert.equal((await orders.list('r1', ['expired', 'expired'], 50)).map(o => o.id), ['o1'])
    assert.equal((await orders.list('r1', ['pending'], 50)).map(o => o.id), ['o2'])
    assert.is(await orders.unpaidCount('r1'), 1)
    assert.is(await orders.setStatus('o2', 'pending', 'canceled', 11_000), true)
    assert.equal((await orders.endedUnpaid(20_000, 10)).map(o => o.id), ['o1', 'o3', 'o2'])
    assert.equal(await orders.endedUnpaid(10_000, 1), [{ id: 'o1', payment_hash: orderRow('o1').payment_hash }])
    assert.is(await orders.deleteUnpaid('o1'), true)
    assert.is(await orders.get('o1'), undefined)
  })

  test('orders: paid once (pending, or expired but paid before its expiry); a paid order is never purged', async () => {
    const orders = orderStore(sql)
    await orders.insert(orderRow('o1'))
    assert.is(await orders.setPaid('o1', 5_000, 5_001), true)
    assert.is(await orders.setPaid('o1', 5_000, 5_002), false)
    const paid = (await orders.get('o1'))!
    assert.equal([paid.status, paid.paid_at, paid.updated_at], ['paid', 5_000, 5_001])
    assert.is(await orders.deleteUnpaid('o1'), false)

    await orders.insert(orderRow('o2'))
    await orders.expireDue(10_000)
    assert.is(await orders.setPaid('o2', 10_001, 10_002), false, 'paid after its invoice expired: stays expired')
    assert.is(await orders.setPaid('o2', 9_999, 10_002), true, 'paid in time, told late')
    await orders.insert(orderRow('o3'))
    await orders.setStatus('o3', 'pending', 'canceled', 2_000)
    assert.is(await orders.setPaid('o3', 3_000, 3_000), false, 'a canceled order stays canceled')
  })

  test('status moves of one order racing: exactly one applies', async () => {
    const orders = orderStore(sql)
    await orders.insert(orderRow('o1', { status: 'paid', paid_at: 2_000 }))
    const moves = await Promise.all(
      (['accepted', 'canceled', 'refunded', 'accepted', 'canceled', 'refunded'] as const).map((to, k) => orders.setStatus('o1', 'paid', to, 3_000 + k)),
    )
    assert.is(moves.filter(Boolean).length, 1)
  })

  test('the order book: payment notices of one order racing make it paid once, with one kitchen ticket', async () => {
    let ids = 0
    const book = orderBook({
      sql,
      printOnPaid: async on => (await restaurantSettings(sql, []).getOn(on)).print_on_paid,
      newId: () => `job-${++ids}`,
      now: () => 6_000,
      log: pino({ level: 'silent' }),
    })
    await book.insert(orderRow('o1'))
    const paid = { walletId: 'w1', paymentHash: orderRow('o1').payment_hash, amountMsat: 200_000, extra: { order_id: 'o1' }, paidAt: 5_000, internal: false }
    await Promise.all(Array.from({ length: 8 }, () => book.markPaid(paid)))
    const order = (await book.get('o1'))!
    assert.equal([order.status, order.paid_at], ['paid', 5_000])
    const jobs = await printJobStore(sql).list('r1')
    assert.is(jobs.length, 1)
    assert.match(jobs[0]!.text, /2 x Soup/)
    assert.match(jobs[0]!.text, /Table 7/)
    await book.markPaid({ ...paid, paymentHash: 'f'.repeat(64) })
    assert.is((await printJobStore(sql).list('r1')).length, 1, 'a notice with another hash changes nothing')

    const moved = await Promise.allSettled([book.move(order, 'canceled'), book.move(order, 'refunded')])
    assert.is(moved.filter(r => r.status === 'fulfilled').length, 1, JSON.stringify(moved.map(r => r.status)))
    const refused = moved.find(r => r.status === 'rejected') as PromiseRejectedResult
    assert.ok(['conflict', 'invalid_input'].includes(refused.reason.code), refused.reason.message)
  })

  test('the order book purges ended unpaid orders whose invoices the wallet let go, and keeps the others', async () => {
    const book = orderBook({ sql, printOnPaid: async () => false, newId: () => 'x', now: () => 100_000, log: pino({ level: 'silent' }) })
    await book.insert(orderRow('o1'))
    await book.insert(orderRow('o2'))
    await book.insert(orderRow('o3', { expires_at: 99_000 }))
    assert.is(await book.expireDue(), 3)
    const kept = orderRow('o2').payment_hash
    assert.is(await book.purgeEnded(50_000, async hash => hash !== kept), 1, 'o3 ended too recently; o2 is kept by the wallet')
    assert.equal((await book.list('r1', undefined, undefined)).map(o => o.id).sort(), ['o2', 'o3'])
  })

  test('print jobs: one per order however often created, listed by status, acknowledged once', async () => {
    const jobs = printJobStore(sql)
    const job = { id: 'p1', restaurant_id: 'r1', order_id: 'o1', text: 'ticket', created_at: 1_000 }
    const created = await Promise.all(Array.from({ length: 5 }, (_, k) => jobs.create({ ...job, id: `p${k + 1}` })))
    assert.is(created.filter(Boolean).length, 1)
    await jobs.create({ id: 'q1', restaurant_id: 'r1', order_id: 'o2', text: 'ticket 2', created_at: 2_000 })
    const first = (await jobs.list('r1'))[0]!
    assert.equal({ ...first, id: '' }, { id: '', restaurant_id: 'r1', order_id: 'o1', status: 'pending', text: 'ticket', created_at: 1_000, printed_at: null })
    await jobs.ack(first.id, 3_000)
    await jobs.ack(first.id, 4_000)
    assert.equal([(await jobs.get(first.id))!.status, (await jobs.get(first.id))!.printed_at], ['printed', 3_000])
    assert.equal((await jobs.list('r1', 'pending')).map(j => j.id), ['q1'])
    assert.equal((await jobs.list('r1', 'printed')).map(j => j.id), [first.id])
    assert.equal(await jobs.list('r2'), [])
  })

  test('settings: defaults until set, updated in one transaction, read inside a transaction', async () => {
    const settings = restaurantSettings(sql, ['ws://127.0.0.1:1'])
    assert.equal(await settings.get(), {
      max_menu_depth: 3, invoice_expiry_seconds: 900, publish_to_nostr: true, relays: ['ws://127.0.0.1:1'], print_on_paid: true,
    })
    const updated = await settings.update({ max_menu_depth: 5, print_on_paid: false, relays: undefined })
    assert.equal([updated.max_menu_depth, updated.print_on_paid, updated.relays], [5, false, ['ws://127.0.0.1:1']])
    await settings.update({ max_menu_depth: 4 })
    assert.is((await sql.transaction(tx => settings.getOn(tx))).max_menu_depth, 4)
    await Promise.all([1, 2, 3, 4].map(depth => settings.update({ max_menu_depth: depth })))
    const rows = await sql.many<{ n: number }>("SELECT count(*) AS n FROM restaurant_settings WHERE key = 'max_menu_depth'")
    assert.is(rows[0]!.n, 1)
  })

  test.run()
}
