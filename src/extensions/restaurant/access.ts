// Who may touch what (docs/restaurant.md, "Who may call"): the wallet of the key must be the restaurant's wallet,
// otherwise 403; anything missing is a 404 first, so a stranger learns only what a public read would tell.
import { OperationError } from '../../bus/index.js'
import type { RestaurantRoom } from './room.js'
import type { MenuItemRow, ModifierGroupRow, RestaurantRow } from './menu-store.js'

export interface WalletCaller {
  walletId: string
}

export const notFound = (what: string): never => {
  throw new OperationError('not_found', `${what} not found.`, { status: 404 })
}

export async function requireRestaurant(room: RestaurantRoom, id: string): Promise<RestaurantRow> {
  return (await room.store.restaurant(id)) ?? notFound('Restaurant')
}

export function requireOwner(restaurant: RestaurantRow, caller: WalletCaller): RestaurantRow {
  if (restaurant.wallet !== caller.walletId) {
    throw new OperationError('forbidden', 'Not your restaurant.', { status: 403 })
  }
  return restaurant
}

export async function ownedRestaurant(room: RestaurantRoom, id: string, caller: WalletCaller): Promise<RestaurantRow> {
  return requireOwner(await requireRestaurant(room, id), caller)
}

export async function ownedNode(room: RestaurantRoom, id: string, caller: WalletCaller) {
  const node = (await room.store.node(id)) ?? notFound('Menu node')
  return { node, restaurant: await ownedRestaurant(room, node.restaurant_id, caller) }
}

export async function requireItem(room: RestaurantRoom, id: string): Promise<MenuItemRow> {
  return (await room.store.item(id)) ?? notFound('Menu item')
}

export async function ownedItem(room: RestaurantRoom, id: string, caller: WalletCaller) {
  const item = await requireItem(room, id)
  return { item, restaurant: await ownedRestaurant(room, item.restaurant_id, caller) }
}

export async function requireGroup(room: RestaurantRoom, id: string): Promise<ModifierGroupRow> {
  return (await room.store.group(id)) ?? notFound('Modifier group')
}

export async function ownedGroup(room: RestaurantRoom, id: string, caller: WalletCaller) {
  const group = await requireGroup(room, id)
  return { group, ...(await ownedItem(room, group.item_id, caller)) }
}
