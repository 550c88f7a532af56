// The menu tree over HTTP (docs/restaurant.md, "Menu tree"): depth and path derived from the parent, the
// depth cap on create and move, cycles refused, moves re-deriving a subtree, and deletes with and without cascade.
import { suite } from '../../support/suite.js'
import * as assert from 'uvu/assert'
import { startRestaurantDaemon, type RestaurantDaemon, type TestWallet } from './restaurant-daemon.js'

const tree = suite('the menu tree')
let rd: RestaurantDaemon
let owner: TestWallet
let restaurantId: string

tree.before(async () => {
  rd = await startRestaurantDaemon()
  owner = await rd.wallet()
  const made = await rd.api('POST', '/restaurants', { key: owner.adminKey, body: { name: 'Tree House', slug: `tree-${process.pid}` } })
  assert.is(made.status, 201, made.text)
  restaurantId = made.json.id
})
tree.after(async () => {
  await rd?.stop()
})

async function node(name: string, parent_id?: string | null) {
  return rd.api('POST', '/menu_nodes', { key: owner.adminKey, body: { restaurant_id: restaurantId, name, parent_id } })
}

async function chain(names: string[]) {
  const made: any[] = []
  for (const name of names) {
    const res = await node(name, made.at(-1)?.id)
    assert.is(res.status, 201, res.text)
    made.push(res.json)
  }
  return made
}

tree('depth and path come from the parent; a body that sets them is refused naming them', async () => {
  const [a, b] = await chain(['A', 'B'])
  assert.is(a.depth, 0)
  assert.is(a.path, `/${a.id}`)
  assert.is(a.parent_id, null)
  const forged = await rd.api('POST', '/menu_nodes', {
    key: owner.adminKey,
    body: { restaurant_id: restaurantId, name: 'C', parent_id: b.id, depth: 0, path: '/forged' },
  })
  assert.is(forged.status, 400, forged.text)
  assert.is(forged.json.detail, 'depth: unknown field (also path)')
  const sneaky = await rd.api('POST', '/menu_nodes', { key: owner.adminKey, body: { restaurant_id: restaurantId, name: 'C', parent_id: b.id } })
  assert.is(sneaky.status, 201, sneaky.text)
  assert.is(sneaky.json.depth, 2)
  assert.is(sneaky.json.path, `/${a.id}/${b.id}/${sneaky.json.id}`)
  const read = await rd.api('GET', `/menu_nodes/${sneaky.json.id}`)
  assert.equal(read.json, sneaky.json)
})

tree('a create below the depth cap (3 by default) is a 400', async () => {
  const made = await chain(['L0', 'L1', 'L2', 'L3'])
  assert.is(made[3].depth, 3)
  const tooDeep = await node('L4', made[3].id)
  assert.is(tooDeep.status, 400)
  assert.match(tooDeep.json.detail, /depth cap/)
  // The cap is a host-wide setting.
  const admin = { authorization: `Bearer ${rd.daemon.adminToken}` }
  assert.is((await rd.api('PUT', '/settings', { body: { max_menu_depth: 4 }, headers: admin })).json.max_menu_depth, 4)
  assert.is((await node('L4', made[3].id)).status, 201)
  assert.is((await rd.api('PUT', '/settings', { body: { max_menu_depth: 3 }, headers: admin })).json.max_menu_depth, 3)
})

tree('a move re-derives the whole subtree, and to the root with new_parent_id null', async () => {
  const [x, y, z] = await chain(['X', 'Y', 'Z'])
  const [target] = await chain(['Target'])
  const moved = await rd.api('PUT', `/menu_nodes/${y.id}/move`, { key: owner.adminKey, body: { new_parent_id: target.id } })
  assert.is(moved.status, 200, moved.text)
  assert.is(moved.json.parent_id, target.id)
  assert.is(moved.json.path, `/${target.id}/${y.id}`)
  const zNow = (await rd.api('GET', `/menu_nodes/${z.id}`)).json
  assert.is(zNow.depth, 2)
  assert.is(zNow.path, `/${target.id}/${y.id}/${z.id}`)
  const root = await rd.api('PUT', `/menu_nodes/${y.id}/move`, { key: owner.adminKey, body: { new_parent_id: null } })
  assert.is(root.json.depth, 0)
  assert.is(root.json.path, `/${y.id}`)
  assert.is((await rd.api('GET', `/menu_nodes/${z.id}`)).json.path, `/${y.id}/${z.id}`)
  assert.is((await rd.api('GET', `/menu_nodes/${x.id}`)).json.depth, 0)
  // The key must be there: a forgotten field never uproots a subtree.
  const forgotten = await rd.api('PUT', `/menu_nodes/${z.id}/move`, { key: owner.adminKey, body: {} })
  assert.is(forgotten.status, 400)
  assert.match(forgotten.json.detail, /new_parent_id/)
})

tree('a move that makes a node its own ancestor is a 400', async () => {
  const [p, q, r] = await chain(['P', 'Q', 'R'])
  for (const under of [p.id, r.id]) {
    const res = await rd.api('PUT', `/menu_nodes/${p.id}/move`, { key: owner.adminKey, body: { new_parent_id: under } })
    assert.is(res.status, 400)
    assert.match(res.json.detail, /own ancestor/)
  }
  assert.is((await rd.api('GET', `/menu_nodes/${q.id}`)).json.path, `/${p.id}/${q.id}`, 'nothing moved')
})

tree('a move that would push the subtree past the cap is a 400 and moves nothing', async () => {
  const [deep0, deep1] = await chain(['D0', 'D1', 'D2'])
  const [s0, s1] = await chain(['S0', 'S1'])
  // S0 (height 1) under D1 (depth 1) would put S1 at depth 3: allowed; under D2's level it would be 4.
  const ok = await rd.api('PUT', `/menu_nodes/${s0.id}/move`, { key: owner.adminKey, body: { new_parent_id: deep1.id } })
  assert.is(ok.status, 200, ok.text)
  const d2 = (await rd.api('GET', `/restaurants/${restaurantId}/menu_nodes`)).json.find((n: any) => n.name === 'D2')
  const tooDeep = await rd.api('PUT', `/menu_nodes/${s0.id}/move`, { key: owner.adminKey, body: { new_parent_id: d2.id } })
  assert.is(tooDeep.status, 400)
  assert.match(tooDeep.json.detail, /depth cap/)
  assert.is((await rd.api('GET', `/menu_nodes/${s1.id}`)).json.depth, 3)
  assert.ok(deep0)
})

tree('a node with children or items is not deleted without cascade (409)', async () => {
  const [parent, child] = await chain(['Parent', 'Child'])
  const blocked = await rd.api('DELETE', `/menu_nodes/${parent.id}`, { key: owner.adminKey })
  assert.is(blocked.status, 409)
  assert.match(blocked.json.detail, /1 child node\(s\) and 0 item\(s\)/)
  const item = await rd.api('POST', '/menu_items', { key: owner.adminKey, body: { restaurant_id: restaurantId, node_id: child.id, name: 'Pie', price: '100' } })
  assert.is(item.status, 201)
  const withItem = await rd.api('DELETE', `/menu_nodes/${child.id}?cascade=false`, { key: owner.adminKey })
  assert.is(withItem.status, 409)
  assert.match(withItem.json.detail, /0 child node\(s\) and 1 item\(s\)/)
  const [empty] = await chain(['Empty'])
  const deleted = await rd.api('DELETE', `/menu_nodes/${empty.id}`, { key: owner.adminKey })
  assert.is(deleted.status, 200)
  assert.is((await rd.api('GET', `/menu_nodes/${empty.id}`)).status, 404)
})

tree('cascade deletes the subtree and keeps its items, detached', async () => {
  const [top, middle, bottom] = await chain(['Top', 'Middle', 'Bottom'])
  const put = async (name: string, node_id: string) =>
    (await rd.api('POST', '/menu_items', { key: owner.adminKey, body: { restaurant_id: restaurantId, node_id, name, price: '10' } })).json
  const i1 = await put('Top item', top.id)
  const i3 = await put('Bottom item', bottom.id)
  const res = await rd.api('DELETE', `/menu_nodes/${top.id}?cascade=true`, { key: owner.adminKey })
  assert.is(res.status, 200, res.text)
  for (const n of [top, middle, bottom]) assert.is((await rd.api('GET', `/menu_nodes/${n.id}`)).status, 404)
  for (const i of [i1, i3]) {
    const read = await rd.api('GET', `/menu_items/${i.id}`)
    assert.is(read.status, 200)
    assert.is(read.json.node_id, null)
  }
  const menu = (await rd.api('GET', `/restaurants/${restaurantId}/menu`)).json
  assert.ok(menu.items.some((i: any) => i.id === i3.id), 'still on the menu')
  assert.not.ok(JSON.stringify(menu.tree).includes(middle.id))
})

tree('the nested tree sorts siblings by sort, then name; the flat list has every node', async () => {
  const other = await rd.api('POST', '/restaurants', { key: owner.adminKey, body: { name: 'Sorted', slug: `sorted-${process.pid}` } })
  const id = other.json.id
  const add = (name: string, sort: number) =>
    rd.api('POST', '/menu_nodes', { key: owner.adminKey, body: { restaurant_id: id, name, sort } })
  await add('b', 1)
  await add('a', 1)
  await add('z', 0)
  const menu = (await rd.api('GET', `/restaurants/${id}/menu`)).json
  assert.equal(menu.tree.map((n: any) => n.name), ['z', 'a', 'b'])
  assert.is((await rd.api('GET', `/restaurants/${id}/menu_nodes`)).json.length, 3)
})

tree('a node or item of another restaurant cannot be a parent or a home', async () => {
  const [mine] = await chain(['Mine'])
  const other = await rd.api('POST', '/restaurants', { key: owner.adminKey, body: { name: 'Other', slug: `other-${process.pid}` } })
  const foreign = await rd.api('POST', '/menu_nodes', { key: owner.adminKey, body: { restaurant_id: other.json.id, name: 'Foreign', parent_id: mine.id } })
  assert.is(foreign.status, 400)
  assert.match(foreign.json.detail, /parent_id: .*another restaurant/)
  const item = await rd.api('POST', '/menu_items', { key: owner.adminKey, body: { restaurant_id: other.json.id, node_id: mine.id, name: 'X', price: '1' } })
  assert.is(item.status, 400)
  assert.match(item.json.detail, /node_id: .*another restaurant/)
  const missing = await rd.api('POST', '/menu_nodes', { key: owner.adminKey, body: { restaurant_id: restaurantId, name: 'Orphan', parent_id: 'no-such-node-aaaaaaaaa' } })
  assert.is(missing.status, 404)
})

tree.run()
