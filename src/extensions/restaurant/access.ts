// Who may touch what (seed 001 part A, "Authentication"): the wallet of the key must be the restaurant's wallet,
// otherwise 403; anything missing is a 404 first, so a stranger learns only what a public read would tell.
import { OperationError } from '../../bus/index.js'
import type { RestaurantRoom } from './room.js'
import type { MenuItemRow, ModifierGroupRow, RestaurantRow } from './store.js'

export interface WalletCaller {
  walletId: string
}

export const notFound = (what: string): never => {
  throw new OperationError('not_found', `${what} not found.`, { status: 404 })
}

export function requireRestaurant(room: RestaurantRoom, id: string): RestaurantRow {
  return room.store.restaurant(id) ?? notFound('Restaurant')
}

export function requireOwner(restaurant: RestaurantRow, caller: WalletCaller): RestaurantRow {
  if (restaurant.wallet !== caller.walletId) {
    throw new OperationError('forbidden', 'Not your restaurant.', { status: 403 })
  }
  return restaurant
}

export function ownedRestaurant(room: RestaurantRoom, id: string, caller: WalletCaller): RestaurantRow {
  return requireOwner(requireRestaurant(room, id), caller)
}

export function ownedNode(room: RestaurantRoom, id: string, caller: WalletCaller) {
  const node = room.store.node(id) ?? notFound('Menu node')
  return { node, restaurant: ownedRestaurant(room, node.restaurant_id, caller) }
}

export function requireItem(room: RestaurantRoom, id: string): MenuItemRow {
  return room.store.item(id) ?? notFound('Menu item')
}

export function ownedItem(room: RestaurantRoom, id: string, caller: WalletCaller) {
  const item = requireItem(room, id)
  return { item, restaurant: ownedRestaurant(room, item.restaurant_id, caller) }
}

export function requireGroup(room: RestaurantRoom, id: string): ModifierGroupRow {
  return room.store.group(id) ?? notFound('Modifier group')
}

export function ownedGroup(room: RestaurantRoom, id: string, caller: WalletCaller) {
  const group = requireGroup(room, id)
  return { group, ...ownedItem(room, group.item_id, caller) }
}
