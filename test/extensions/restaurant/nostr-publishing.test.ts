// The menu on Nostr, read back by an independent nostr-tools client from the daemon's embedded relay: the NIP-15
// stall and products with ancestor `t` tags and the `path` tag, republishing when a node is renamed or moved or
// an item changes, and NIP-09 deletions with `a`, `e` and `k` tags.
import { suite } from '../../support/suite.js'
import * as assert from 'uvu/assert'
import { SimplePool, useWebSocketImplementation } from 'nostr-tools/pool'
import { verifyEvent, type Event } from 'nostr-tools/pure'
import type { Filter } from 'nostr-tools/filter'
import { WebSocket } from 'ws'
import { buildMenu, eventually, startRestaurantDaemon, type RestaurantDaemon, type TestWallet } from './restaurant-daemon.js'

useWebSocketImplementation(WebSocket)

const nostr = suite('menu items published to Nostr')
let rd: RestaurantDaemon
let owner: TestWallet
let menu: Awaited<ReturnType<typeof buildMenu>>
let pool: SimplePool
let relay: string

nostr.before(async () => {
  rd = await startRestaurantDaemon()
  owner = await rd.wallet()
  menu = await buildMenu(rd, owner)
  pool = new SimplePool()
  relay = rd.relayUrl()
})
nostr.after(async () => {
  pool?.close([relay])
  await rd?.stop()
})

const query = (filter: Filter) => pool.querySync([relay], filter, { maxWait: 2000 })

/** The newest event matching `filter` once `accept` holds for it (publishing is queued, so it may lag a little). */
async function latest(filter: Filter, accept: (event: Event) => boolean = () => true): Promise<Event> {
  let found: Event | undefined
  await eventually(async () => {
    const events = (await query(filter)).sort((a, b) => b.created_at - a.created_at)
    found = events[0]
    return found !== undefined && accept(found)
  }, `an event for ${JSON.stringify(filter)}`)
  return found!
}

const tagValues = (event: Event, name: string) => event.tags.filter(t => t[0] === name).map(t => t[1])

nostr('the restaurant is a NIP-15 stall signed by its own key', async () => {
  const stall = await latest({ kinds: [30017], '#d': [menu.id] })
  assert.ok(verifyEvent(stall))
  assert.equal(JSON.parse(stall.content), { id: menu.id, name: 'The Diner', description: 'Burgers & more', currency: 'sat', shipping: [] })
  const other = await rd.api('POST', '/restaurants', { key: owner.adminKey, body: { name: 'Other', slug: `other-${process.pid}` } })
  const otherStall = await latest({ kinds: [30017], '#d': [other.json.id] })
  assert.is.not(otherStall.pubkey, stall.pubkey, 'each restaurant has its own key')
  // An update republishes the stall.
  await rd.api('PUT', `/restaurants/${menu.id}`, { key: owner.adminKey, body: { description: 'Now with fries' } })
  await latest({ kinds: [30017], '#d': [menu.id] }, e => JSON.parse(e.content).description === 'Now with fries')
})

nostr('an item is a NIP-15 product with its ancestors as t tags and a path tag', async () => {
  const stall = await latest({ kinds: [30017], '#d': [menu.id] })
  const product = await latest({ kinds: [30018], '#d': [menu.burger.id] }, e => JSON.parse(e.content).specs.length === 2)
  assert.ok(verifyEvent(product))
  assert.is(product.pubkey, stall.pubkey)
  assert.equal(tagValues(product, 't'), ['Food', 'Mains', 'Burgers'])
  assert.equal(tagValues(product, 'path'), ['Food/Mains/Burgers'])
  assert.equal(JSON.parse(product.content), {
    id: menu.burger.id,
    stall_id: menu.id,
    name: 'Cheeseburger',
    description: 'Cheeseburger, freshly made',
    images: [],
    currency: 'sat',
    price: 2000,
    quantity: null,
    specs: [
      ['modifiers', 'Extras: Bacon, Onions'],
      ['modifiers', 'Size: Double, Single'],
    ],
  })
  const item = await rd.api('GET', `/menu_items/${menu.burger.id}`)
  assert.is(item.json.published_event_id, product.id, 'the item names its last published event')
})

nostr('renaming a node republishes every item of its subtree with the new names', async () => {
  const renamed = await rd.api('PUT', `/menu_nodes/${menu.mains.id}`, { key: owner.adminKey, body: { name: 'Main dishes' } })
  assert.is(renamed.status, 200, renamed.text)
  const product = await latest({ kinds: [30018], '#d': [menu.burger.id] }, e => tagValues(e, 'path')[0] === 'Food/Main dishes/Burgers')
  assert.equal(tagValues(product, 't'), ['Food', 'Main dishes', 'Burgers'])
  // Only one version per item stays on the relay (addressable events replace each other).
  assert.is((await query({ kinds: [30018], '#d': [menu.burger.id] })).length, 1)
  // A sort change is not a rename: nothing is republished.
  const before = (await rd.api('GET', `/menu_items/${menu.burger.id}`)).json.published_event_id
  await rd.api('PUT', `/menu_nodes/${menu.mains.id}`, { key: owner.adminKey, body: { sort: 5 } })
  assert.is((await rd.api('GET', `/menu_items/${menu.burger.id}`)).json.published_event_id, before)
})

nostr('moving a node republishes its subtree under the new ancestors', async () => {
  const moved = await rd.api('PUT', `/menu_nodes/${menu.burgers.id}/move`, { key: owner.adminKey, body: { new_parent_id: menu.drinks.id } })
  assert.is(moved.status, 200, moved.text)
  const product = await latest({ kinds: [30018], '#d': [menu.burger.id] }, e => tagValues(e, 'path')[0] === 'Drinks/Burgers')
  assert.equal(tagValues(product, 't'), ['Drinks', 'Burgers'])
})

nostr('editing an item or its modifiers republishes it', async () => {
  await rd.api('PUT', `/menu_items/${menu.burger.id}`, { key: owner.adminKey, body: { price: '2100', name: 'Big cheeseburger' } })
  await latest({ kinds: [30018], '#d': [menu.burger.id] }, e => JSON.parse(e.content).price === 2100 && JSON.parse(e.content).name === 'Big cheeseburger')
  await rd.api('DELETE', `/modifiers/${menu.onions.id}`, { key: owner.adminKey })
  await latest({ kinds: [30018], '#d': [menu.burger.id] }, e => JSON.parse(e.content).specs[0][1] === 'Extras: Bacon')
})

nostr('deleting an item sends a NIP-09 deletion with a, e and k tags, and the relay drops the product', async () => {
  const product = await latest({ kinds: [30018], '#d': [menu.cola.id] })
  const item = (await rd.api('GET', `/menu_items/${menu.cola.id}`)).json
  assert.is(item.published_event_id, product.id)
  const deleted = await rd.api('DELETE', `/menu_items/${menu.cola.id}`, { key: owner.adminKey })
  assert.is(deleted.status, 200)
  const deletion = await latest({ kinds: [5], authors: [product.pubkey] }, e => tagValues(e, 'a').includes(`30018:${product.pubkey}:${menu.cola.id}`))
  assert.ok(verifyEvent(deletion))
  assert.equal(tagValues(deletion, 'e'), [product.id])
  assert.equal(tagValues(deletion, 'k'), ['30018'])
  await eventually(async () => (await query({ kinds: [30018], '#d': [menu.cola.id] })).length === 0, 'the relay to drop the product')
})

nostr('cascade-deleting a node republishes its items without ancestor tags', async () => {
  const res = await rd.api('DELETE', `/menu_nodes/${menu.drinks.id}?cascade=true`, { key: owner.adminKey })
  assert.is(res.status, 200, res.text)
  const product = await latest({ kinds: [30018], '#d': [menu.burger.id] }, e => tagValues(e, 'path').length === 0)
  assert.equal(tagValues(product, 't'), [])
})

nostr('with publish_to_nostr off, nothing is published', async () => {
  const admin = { authorization: `Bearer ${rd.daemon.adminToken}` }
  await rd.api('PUT', '/settings', { headers: admin, body: { publish_to_nostr: false } })
  const quiet = await rd.api('POST', '/menu_items', { key: owner.adminKey, body: { restaurant_id: menu.id, name: 'Secret', price: '1' } })
  assert.is(quiet.json.published_event_id, null)
  await new Promise(resolve => setTimeout(resolve, 300))
  assert.equal(await query({ kinds: [30018], '#d': [quiet.json.id] }), [])
  await rd.api('PUT', '/settings', { headers: admin, body: { publish_to_nostr: true } })
})

nostr.run()
