// Serves the customer ordering page of a restaurant, found by its slug.
import type { Handler } from '../../../bus/index.js'
import { nestedTree } from '../menu-tree.js'
import { orderPageHeaders, renderOrderPage } from '../order-page-html.js'
import type { RestaurantRoom } from '../room.js'
import { menuItemDetail, restaurantProfile } from '../wire.js'
import { notFound } from '../access.js'

export const apiBase = '/restaurant/api/v1'

export function orderPageHandlers(room: RestaurantRoom) {
  const { store } = room
  const RestaurantOrderPage: Handler<'RestaurantOrderPage'> = async input => {
    const restaurant = (await store.restaurantBySlug(input.slug)) ?? notFound('Restaurant')
    const active = (await store.itemsOfRestaurant(restaurant.id)).filter(item => item.active === 1)
    const items = await Promise.all(active.map(item => menuItemDetail(store, item)))
    return {
      contentType: 'text/html; charset=utf-8',
      headers: orderPageHeaders(),
      body: renderOrderPage({
        restaurant: restaurantProfile(restaurant),
        tree: nestedTree(await store.nodesOfRestaurant(restaurant.id)),
        items,
        now: room.now(),
        apiBase,
      }),
    }
  }
  return { RestaurantOrderPage }
}
