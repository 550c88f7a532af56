// Menu nodes: public reads, and the owner's create, edit, move and delete (reference/restaurant.md, "Menu tree").
// A rename or a move changes the ancestor tags of every item below the node, so those items are republished.
import { type Handler, OperationError } from '../../../bus/index.js'
import { checkDepth, moveNode, placementUnder, subtreeOf } from '../menu-tree.js'
import type { RestaurantRoom } from '../room.js'
import type { MenuNodeRow, RestaurantRow } from '../store.js'
import { menuNode } from '../wire.js'
import { notFound, ownedNode, ownedRestaurant, requireRestaurant } from '../access.js'

export function menuNodeHandlers(room: RestaurantRoom) {
  const { store } = room

  /** A parent named in a body: it must exist (404) and hang in the same restaurant's menu (400). */
  function parentIn(restaurant: RestaurantRow, parentId: string, field: string): MenuNodeRow {
    const parent = store.node(parentId) ?? notFound('Menu node')
    if (parent.restaurant_id !== restaurant.id) {
      throw new OperationError('invalid_input', `${field}: menu node ${parentId} belongs to another restaurant`, { status: 400 })
    }
    return parent
  }

  const itemsBelow = (nodes: readonly MenuNodeRow[]) => nodes.flatMap(node => store.itemsOfNode(node.id).map(item => item.id))

  const MenuNodeGet: Handler<'MenuNodeGet'> = async input => menuNode(store.node(input.id) ?? notFound('Menu node'))

  const MenuNodeList: Handler<'MenuNodeList'> = async input =>
    store.nodesOfRestaurant(requireRestaurant(room, input.id).id).map(menuNode)

  const MenuNodeCreate: Handler<'MenuNodeCreate'> = async (input, ctx) => {
    const restaurant = ownedRestaurant(room, input.restaurant_id, ctx.caller)
    const parent = input.parent_id ? parentIn(restaurant, input.parent_id, 'parent_id') : null
    const id = room.newId()
    const placement = placementUnder(parent, id)
    checkDepth(placement.depth, room.settings.get().max_menu_depth)
    const now = room.now()
    store.insertNode({
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
    return menuNode(store.node(id)!)
  }

  const MenuNodeUpdate: Handler<'MenuNodeUpdate'> = async (input, ctx) => {
    const { node } = ownedNode(room, input.id, ctx.caller)
    store.updateNode(node.id, {
      name: input.name,
      description: input.description,
      sort: input.sort,
      image: input.image,
      updated_at: room.now(),
    })
    const after = store.node(node.id)!
    // Published items carry their ancestors' names (`t` and `path` tags): a rename re-lists the whole subtree.
    if (after.name !== node.name) room.publishing.publishItems(itemsBelow(subtreeOf(store, after)))
    return menuNode(after)
  }

  const MenuNodeMove: Handler<'MenuNodeMove'> = async (input, ctx) => {
    const { node, restaurant } = ownedNode(room, input.id, ctx.caller)
    const parent = input.new_parent_id === null ? null : parentIn(restaurant, input.new_parent_id, 'new_parent_id')
    const maxDepth = room.settings.get().max_menu_depth
    const moved = store.transaction(() => moveNode(store, node, parent, maxDepth, room.now()))
    room.publishing.publishItems(itemsBelow(moved))
    return menuNode(moved[0]!)
  }

  const MenuNodeDelete: Handler<'MenuNodeDelete'> = async (input, ctx) => {
    const { node } = ownedNode(room, input.id, ctx.caller)
    if (!input.cascade) {
      store.transaction(() => {
        const children = store.childCount(node.id)!.n
        const items = store.itemCountOfNode(node.id)!.n
        if (children > 0 || items > 0) {
          throw new OperationError(
            'conflict',
            `menu node ${node.id} has ${children} child node(s) and ${items} item(s); move or delete them, or delete with cascade=true`,
            { status: 409 },
          )
        }
        store.deleteNode(node.id)
      })
      return { success: true }
    }
    // Cascade: the items of the whole subtree stay (detached, still listed, no ancestor tags); the nodes go.
    const subtree = subtreeOf(store, node)
    const detached = itemsBelow(subtree)
    store.transaction(() => {
      const now = room.now()
      for (const itemId of detached) store.detachItem(now, itemId)
      for (const member of [...subtree].sort((a, b) => b.depth - a.depth)) store.deleteNode(member.id)
    })
    room.publishing.publishItems(detached)
    return { success: true }
  }

  return { MenuNodeGet, MenuNodeList, MenuNodeCreate, MenuNodeUpdate, MenuNodeMove, MenuNodeDelete }
}
