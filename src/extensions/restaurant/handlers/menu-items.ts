// Menu items: the public read and the owner's create, update and delete. Every create and update publishes the
// item; a delete sends a NIP-09 deletion for its published listing.
import { type Handler, OperationError } from '../../../bus/index.js'
import { priceForCurrency } from '../pricing.js'
import type { RestaurantRoom } from '../room.js'
import type { RestaurantRow } from '../store.js'
import { menuItem } from '../wire.js'
import { notFound, ownedItem, ownedRestaurant, requireItem } from '../access.js'

export function menuItemHandlers(room: RestaurantRoom) {
  const { store } = room

  /** A node named by an item: it must exist (404) and belong to the item's restaurant (400). */
  function nodeIn(restaurant: RestaurantRow, nodeId: string | null | undefined): string | null | undefined {
    if (nodeId === undefined || nodeId === null) return nodeId
    const node = store.node(nodeId) ?? notFound('Menu node')
    if (node.restaurant_id !== restaurant.id) {
      throw new OperationError('invalid_input', `node_id: menu node ${nodeId} belongs to another restaurant`, { status: 400 })
    }
    return node.id
  }

  const MenuItemGet: Handler<'MenuItemGet'> = async input => menuItem(requireItem(room, input.id))

  const MenuItemCreate: Handler<'MenuItemCreate'> = async (input, ctx) => {
    const restaurant = ownedRestaurant(room, input.restaurant_id, ctx.caller)
    const now = room.now()
    const id = room.newId()
    store.insertItem({
      id,
      restaurant_id: restaurant.id,
      node_id: nodeIn(restaurant, input.node_id) ?? null,
      name: input.name,
      description: input.description ?? '',
      price: priceForCurrency(input.price, restaurant.currency, 'price'),
      image: input.image ?? null,
      sort: input.sort ?? 0,
      active: input.active === false ? 0 : 1,
      sold_out: input.sold_out ? 1 : 0,
      published_event_id: null,
      published_created_at: null,
      created_at: now,
      updated_at: now,
    })
    room.publishing.publishItems([id])
    return menuItem(store.item(id)!)
  }

  const MenuItemUpdate: Handler<'MenuItemUpdate'> = async (input, ctx) => {
    const { item, restaurant } = ownedItem(room, input.id, ctx.caller)
    // Absent fields stay; `null` is written (node_id: null detaches the item, image: null removes the picture).
    store.updateItem(item.id, {
      node_id: nodeIn(restaurant, input.node_id),
      name: input.name,
      description: input.description,
      price: input.price === undefined ? undefined : priceForCurrency(input.price, restaurant.currency, 'price'),
      image: input.image,
      sort: input.sort,
      active: input.active === undefined ? undefined : input.active ? 1 : 0,
      sold_out: input.sold_out === undefined ? undefined : input.sold_out ? 1 : 0,
      updated_at: room.now(),
    })
    room.publishing.publishItems([item.id])
    return menuItem(store.item(item.id)!)
  }

  const MenuItemDelete: Handler<'MenuItemDelete'> = async (input, ctx) => {
    const { item, restaurant } = ownedItem(room, input.id, ctx.caller)
    store.transaction(() => store.deleteItem(item.id))
    room.publishing.publishDeletion(store.restaurant(restaurant.id)!, [item], false)
    return { success: true }
  }

  return { MenuItemGet, MenuItemCreate, MenuItemUpdate, MenuItemDelete }
}
