// Menu nodes: public reads, and the owner's create, edit, move and delete (docs/restaurant.md, "Menu tree").
// A rename or a move changes the ancestor tags of every item below the node, so those items are republished.
//
// A change of the tree's shape reads nodes and writes from what it read (depth and path come from the parent, a
// move refuses to make a node its own ancestor), so each is one SERIALIZABLE transaction that reads what it
// depends on itself: on PostgreSQL two moves at once could otherwise each pass the ancestor check against the
// other's old paths and leave a cycle; a conflict there is retried by the store.
import { type Handler, OperationError } from '../../../bus/index.js'
import { sqlErrorKind, type TransactionOptions } from '../../../store/index.js'
import { checkDepth, moveNode, placementUnder, subtreeOf } from '../menu-tree.js'
import type { RestaurantRoom } from '../room.js'
import type { MenuNodeRow, MenuStatements, RestaurantRow } from '../menu-store.js'
import { menuNode } from '../wire.js'
import { notFound, ownedNode, ownedRestaurant, requireRestaurant } from '../access.js'

const treeChange: TransactionOptions = { isolation: 'serializable', retries: 5 }

export function menuNodeHandlers(room: RestaurantRoom) {
  const { store } = room

  /** A parent named in a body: it must exist (404) and hang in the same restaurant's menu (400). */
  async function parentIn(tx: MenuStatements, restaurant: RestaurantRow, parentId: string, field: string): Promise<MenuNodeRow> {
    const parent = (await tx.node(parentId)) ?? notFound('Menu node')
    if (parent.restaurant_id !== restaurant.id) {
      throw new OperationError('invalid_input', `${field}: menu node ${parentId} belongs to another restaurant`, { status: 400 })
    }
    return parent
  }

  /** A tree change; a node deleted under it meanwhile (a foreign key refusing the write) is a 409, not a 500. */
  async function changeTree<T>(work: (tx: MenuStatements) => Promise<T>): Promise<T> {
    try {
      return await store.transaction(work, treeChange)
    } catch (err) {
      if (sqlErrorKind(err) === 'foreign_key') {
        throw new OperationError('conflict', 'the menu changed meanwhile; try again', { status: 409 })
      }
      throw err
    }
  }

  const itemsBelow = async (nodes: readonly MenuNodeRow[]) => {
    const ids: string[] = []
    for (const node of nodes) for (const item of await store.itemsOfNode(node.id)) ids.push(item.id)
    return ids
  }

  const MenuNodeGet: Handler<'MenuNodeGet'> = async input => menuNode((await store.node(input.id)) ?? notFound('Menu node'))

  const MenuNodeList: Handler<'MenuNodeList'> = async input =>
    (await store.nodesOfRestaurant((await requireRestaurant(room, input.id)).id)).map(menuNode)

  const MenuNodeCreate: Handler<'MenuNodeCreate'> = async (input, ctx) => {
    const restaurant = await ownedRestaurant(room, input.restaurant_id, ctx.caller)
    const maxDepth = (await room.settings.get()).max_menu_depth
    const id = room.newId()
    const created = await changeTree(async tx => {
      const parent = input.parent_id ? await parentIn(tx, restaurant, input.parent_id, 'parent_id') : null
      const placement = placementUnder(parent, id)
      checkDepth(placement.depth, maxDepth)
      const now = room.now()
      await tx.insertNode({
        id,
        restaurant_id: restaurant.id,
        ...placement,
        name: input.name,
        description: input.description ?? '',
        sort: input.sort ?? 0,
        image: input.image ?? null,
        created_at: now,
        updated_at: now,
      })
      return (await tx.node(id))!
    })
    return menuNode(created)
  }

  const MenuNodeUpdate: Handler<'MenuNodeUpdate'> = async (input, ctx) => {
    const { node } = await ownedNode(room, input.id, ctx.caller)
    await store.updateNode(node.id, {
      name: input.name,
      description: input.description,
      sort: input.sort,
      image: input.image,
      updated_at: room.now(),
    })
    const after = (await store.node(node.id)) ?? notFound('Menu node')
    // Published items carry their ancestors' names (`t` and `path` tags): a rename re-lists the whole subtree.
    if (after.name !== node.name) await room.publishing.publishItems(await itemsBelow(await subtreeOf(store, after)))
    return menuNode(after)
  }

  const MenuNodeMove: Handler<'MenuNodeMove'> = async (input, ctx) => {
    const { restaurant } = await ownedNode(room, input.id, ctx.caller)
    const maxDepth = (await room.settings.get()).max_menu_depth
    const moved = await changeTree(async tx => {
      const node = (await tx.node(input.id)) ?? notFound('Menu node')
      const parent = input.new_parent_id === null ? null : await parentIn(tx, restaurant, input.new_parent_id, 'new_parent_id')
      return moveNode(tx, node, parent, maxDepth, room.now())
    })
    await room.publishing.publishItems(await itemsBelow(moved))
    return menuNode(moved[0]!)
  }

  const MenuNodeDelete: Handler<'MenuNodeDelete'> = async (input, ctx) => {
    const { node } = await ownedNode(room, input.id, ctx.caller)
    if (!input.cascade) {
      await changeTree(async tx => {
        const children = (await tx.childCount(node.id))!.n
        const items = (await tx.itemCountOfNode(node.id))!.n
        if (children > 0 || items > 0) {
          throw new OperationError(
            'conflict',
            `menu node ${node.id} has ${children} child node(s) and ${items} item(s); move or delete them, or delete with cascade=true`,
            { status: 409 },
          )
        }
        await tx.deleteNode(node.id)
      })
      return { success: true }
    }
    // Cascade: the items of the whole subtree stay (detached, still listed, no ancestor tags); the nodes go.
    const detached = await changeTree(async tx => {
      const current = (await tx.node(node.id)) ?? notFound('Menu node')
      const subtree = await subtreeOf(tx, current)
      const itemIds: string[] = []
      for (const member of subtree) for (const item of await tx.itemsOfNode(member.id)) itemIds.push(item.id)
      const now = room.now()
      for (const itemId of itemIds) await tx.detachItem(now, itemId)
      for (const member of [...subtree].sort((a, b) => b.depth - a.depth)) await tx.deleteNode(member.id)
      return itemIds
    })
    await room.publishing.publishItems(detached)
    return { success: true }
  }

  return { MenuNodeGet, MenuNodeList, MenuNodeCreate, MenuNodeUpdate, MenuNodeMove, MenuNodeDelete }
}
