// Menu items: the public read and the owner's create, update and delete. Every create and update publishes the
// item; a delete sends a NIP-09 deletion for its published listing.
import { type Handler, OperationError } from '../../../bus/index.js'
import { sqlErrorKind } from '../../../store/index.js'
import { priceForCurrency } from '../pricing.js'
import type { RestaurantRoom } from '../room.js'
import type { RestaurantRow } from '../menu-store.js'
import { menuItem } from '../wire.js'
import { notFound, ownedItem, ownedRestaurant, requireItem } from '../access.js'

export function menuItemHandlers(room: RestaurantRoom) {
  const { store } = room

  /** A node named by an item: it must exist (404) and belong to the item's restaurant (400). */
  async function nodeIn(restaurant: RestaurantRow, nodeId: string | null | undefined): Promise<string | null | undefined> {
    if (nodeId === undefined || nodeId === null) return nodeId
    const node = (await store.node(nodeId)) ?? notFound('Menu node')
    if (node.restaurant_id !== restaurant.id) {
      throw new OperationError('invalid_input', `node_id: menu node ${nodeId} belongs to another restaurant`, { status: 400 })
    }
    return node.id
  }

  /** The node checked by nodeIn may be deleted before the write: its foreign key refuses, and so does this. */
  async function placed<T>(write: () => Promise<T>): Promise<T> {
    try {
      return await write()
    } catch (err) {
      if (sqlErrorKind(err) === 'foreign_key') notFound('Menu node')
      throw err
    }
  }

  const MenuItemGet: Handler<'MenuItemGet'> = async input => menuItem(await requireItem(room, input.id))

  const MenuItemCreate: Handler<'MenuItemCreate'> = async (input, ctx) => {
    const restaurant = await ownedRestaurant(room, input.restaurant_id, ctx.caller)
    const now = room.now()
    const id = room.newId()
    const nodeId = (await nodeIn(restaurant, input.node_id)) ?? null
    await placed(() => store.insertItem({
      id,
      restaurant_id: restaurant.id,
      node_id: nodeId,
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
    }))
    await room.publishing.publishItems([id])
    return menuItem((await store.item(id)) ?? notFound('Menu item'))
  }

  const MenuItemUpdate: Handler<'MenuItemUpdate'> = async (input, ctx) => {
    const { item, restaurant } = await ownedItem(room, input.id, ctx.caller)
    const nodeId = await nodeIn(restaurant, input.node_id)
    // Absent fields stay; `null` is written (node_id: null detaches the item, image: null removes the picture).
    await placed(() => store.updateItem(item.id, {
      node_id: nodeId,
      name: input.name,
      description: input.description,
      price: input.price === undefined ? undefined : priceForCurrency(input.price, restaurant.currency, 'price'),
      image: input.image,
      sort: input.sort,
      active: input.active === undefined ? undefined : input.active ? 1 : 0,
      sold_out: input.sold_out === undefined ? undefined : input.sold_out ? 1 : 0,
      updated_at: room.now(),
    }))
    await room.publishing.publishItems([item.id])
    return menuItem((await store.item(item.id)) ?? notFound('Menu item'))
  }

  const MenuItemDelete: Handler<'MenuItemDelete'> = async (input, ctx) => {
    const { item, restaurant } = await ownedItem(room, input.id, ctx.caller)
    // Its modifier groups, modifiers and windows go with it (ON DELETE CASCADE), in the one statement.
    await store.deleteItem(item.id)
    await room.publishing.publishDeletion((await store.restaurant(restaurant.id)) ?? restaurant, [item], false)
    return { success: true }
  }

  return { MenuItemGet, MenuItemCreate, MenuItemUpdate, MenuItemDelete }
}
