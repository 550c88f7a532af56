// Restaurants: public profile and menu reads, and the owner's list, create, update and delete. Creating or
// updating a restaurant publishes its stall; deleting one withdraws the stall and every published item.
import { type Handler, OperationError } from '../../../bus/index.js'
import { newNostrSecretKey } from '../ids.js'
import { nestedTree } from '../menu-tree.js'
import { isWholeAmount } from '../pricing.js'
import type { RestaurantRoom } from '../room.js'
import type { RestaurantRow } from '../store.js'
import { menuItemDetail, restaurant as restaurantMessage, restaurantProfile } from '../wire.js'
import { notFound, ownedRestaurant, requireRestaurant } from '../access.js'

const refuse = (message: string): never => {
  throw new OperationError('invalid_input', message, { status: 400 })
}

export function restaurantHandlers(room: RestaurantRoom) {
  const { store } = room

  function checkCurrency(currency: string): void {
    if (currency !== 'sat' && !room.host.rates.knownCurrency(currency)) {
      refuse(`currency: ${currency} is not a currency the rates module can price`)
    }
  }

  function checkSlugFree(slug: string, ownId?: string): void {
    const holder = store.restaurantBySlug(slug)
    if (holder && holder.id !== ownId) refuse(`slug: "${slug}" is already taken`)
  }

  const RestaurantGet: Handler<'RestaurantGet'> = async input => restaurantProfile(requireRestaurant(room, input.id))

  const RestaurantGetBySlug: Handler<'RestaurantGetBySlug'> = async input =>
    restaurantProfile(store.restaurantBySlug(input.slug) ?? notFound('Restaurant'))

  const RestaurantMenu: Handler<'RestaurantMenu'> = async input => {
    const restaurant = requireRestaurant(room, input.id)
    return {
      restaurant: restaurantProfile(restaurant),
      tree: nestedTree(store.nodesOfRestaurant(restaurant.id)),
      items: store.itemsOfRestaurant(restaurant.id).map(item => menuItemDetail(store, item)),
    }
  }

  const RestaurantList: Handler<'RestaurantList'> = async (input, ctx) => {
    const rows = input.all_wallets
      ? store.restaurantsOfAccount(ctx.caller.accountId)
      : store.restaurantsOfWallet(ctx.caller.walletId)
    return rows.map(restaurantMessage)
  }

  const RestaurantCreate: Handler<'RestaurantCreate'> = async (input, ctx) => {
    const currency = input.currency ?? 'sat'
    checkCurrency(currency)
    const now = room.now()
    const row: RestaurantRow = {
      id: room.newId(),
      wallet: ctx.caller.walletId,
      account_id: ctx.caller.accountId,
      name: input.name,
      slug: input.slug,
      description: input.description ?? '',
      currency,
      timezone: input.timezone ?? 'UTC',
      image: input.image ?? null,
      active: input.active === false ? 0 : 1,
      nostr_secret_key: Buffer.from(newNostrSecretKey(bytes => room.host.random(bytes))).toString('hex'),
      stall_created_at: null,
      created_at: now,
      updated_at: now,
    }
    store.transaction(() => {
      checkSlugFree(row.slug)
      store.insertRestaurant(row)
    })
    room.publishing.publishStall(row)
    return restaurantMessage(store.restaurant(row.id)!)
  }

  const RestaurantUpdate: Handler<'RestaurantUpdate'> = async (input, ctx) => {
    const before = ownedRestaurant(room, input.id, ctx.caller)
    if (input.currency !== undefined && input.currency !== before.currency) {
      checkCurrency(input.currency)
      if (input.currency === 'sat') refuseFractionalPrices(before)
    }
    store.transaction(() => {
      if (input.slug !== undefined) checkSlugFree(input.slug, before.id)
      store.updateRestaurant(before.id, {
        name: input.name,
        slug: input.slug,
        description: input.description,
        currency: input.currency,
        timezone: input.timezone,
        image: input.image,
        active: input.active === undefined ? undefined : input.active ? 1 : 0,
        updated_at: room.now(),
      })
    })
    const after = store.restaurant(before.id)!
    room.publishing.publishStall(after)
    // Products carry the currency, so a currency change re-lists the whole menu.
    if (after.currency !== before.currency) room.publishing.publishItems(store.itemsOfRestaurant(after.id).map(i => i.id))
    return restaurantMessage(store.restaurant(after.id)!)
  }

  /** Whole sats only: a menu with cents cannot silently become a menu in sats. */
  function refuseFractionalPrices(restaurant: RestaurantRow): void {
    for (const item of store.itemsOfRestaurant(restaurant.id)) {
      if (!isWholeAmount(item.price)) refuse(`currency: item "${item.name}" costs ${item.price}, not a whole number of sats`)
      for (const modifier of store.modifiersOfItem(item.id)) {
        if (!isWholeAmount(modifier.price_delta)) {
          refuse(`currency: modifier "${modifier.name}" adds ${modifier.price_delta}, not a whole number of sats`)
        }
      }
    }
  }

  const RestaurantDelete: Handler<'RestaurantDelete'> = async (input, ctx) => {
    const restaurant = ownedRestaurant(room, input.id, ctx.caller)
    const items = store.itemsOfRestaurant(restaurant.id)
    store.transaction(() => store.deleteRestaurant(restaurant.id))
    room.publishing.publishDeletion(restaurant, items, true)
    return { success: true }
  }

  return {
    RestaurantGet,
    RestaurantGetBySlug,
    RestaurantMenu,
    RestaurantList,
    RestaurantCreate,
    RestaurantUpdate,
    RestaurantDelete,
  }
}
