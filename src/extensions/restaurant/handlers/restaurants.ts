// Restaurants: public profile and menu reads, and the owner's list, create, update and delete. Creating or
// updating a restaurant publishes its stall; deleting one withdraws the stall and every published item.
import { type Handler, OperationError } from '../../../bus/index.js'
import { sqlErrorKind } from '../../../store/index.js'
import { newNostrSecretKey } from '../ids.js'
import { nestedTree } from '../menu-tree.js'
import { isWholeAmount } from '../pricing.js'
import type { RestaurantRoom } from '../room.js'
import type { MenuStatements, RestaurantRow } from '../menu-store.js'
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

  async function checkSlugFree(tx: MenuStatements, slug: string, ownId?: string): Promise<void> {
    const holder = await tx.restaurantBySlug(slug)
    if (holder && holder.id !== ownId) refuse(`slug: "${slug}" is already taken`)
  }

  /**
   * Checks the slug and writes in one transaction. On PostgreSQL two requests may both find a slug free; the
   * UNIQUE column refuses the second, which gets the same answer as if it had seen the first.
   */
  async function withFreeSlug(slug: string | undefined, ownId: string | undefined, write: (tx: MenuStatements) => Promise<void>) {
    try {
      await store.transaction(async tx => {
        if (slug !== undefined) await checkSlugFree(tx, slug, ownId)
        await write(tx)
      })
    } catch (err) {
      if (slug !== undefined && sqlErrorKind(err) === 'unique') refuse(`slug: "${slug}" is already taken`)
      throw err
    }
  }

  const RestaurantGet: Handler<'RestaurantGet'> = async input => restaurantProfile(await requireRestaurant(room, input.id))

  const RestaurantGetBySlug: Handler<'RestaurantGetBySlug'> = async input =>
    restaurantProfile((await store.restaurantBySlug(input.slug)) ?? notFound('Restaurant'))

  const RestaurantMenu: Handler<'RestaurantMenu'> = async input => {
    const restaurant = await requireRestaurant(room, input.id)
    const items = await store.itemsOfRestaurant(restaurant.id)
    return {
      restaurant: restaurantProfile(restaurant),
      tree: nestedTree(await store.nodesOfRestaurant(restaurant.id)),
      items: await Promise.all(items.map(item => menuItemDetail(store, item))),
    }
  }

  const RestaurantList: Handler<'RestaurantList'> = async (input, ctx) => {
    const rows = input.all_wallets
      ? await store.restaurantsOfAccount(ctx.caller.accountId)
      : await store.restaurantsOfWallet(ctx.caller.walletId)
    return rows.map(restaurantMessage)
  }

  const RestaurantCreate: Handler<'RestaurantCreate'> = async (input, ctx) => {
    if (input.wallet !== undefined && input.wallet !== ctx.caller.walletId) {
      throw new OperationError(
        'forbidden',
        `wallet: a restaurant is opened on the wallet whose admin key creates it, and this key's wallet is ` +
          `${ctx.caller.walletId}: leave wallet out, or send the request with the admin key of ${input.wallet.slice(0, 128)}`,
      )
    }
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
    await withFreeSlug(row.slug, undefined, tx => tx.insertRestaurant(row))
    await room.publishing.publishStall(row)
    return restaurantMessage((await store.restaurant(row.id))!)
  }

  const RestaurantUpdate: Handler<'RestaurantUpdate'> = async (input, ctx) => {
    const before = await ownedRestaurant(room, input.id, ctx.caller)
    const toSats = input.currency === 'sat' && before.currency !== 'sat'
    if (input.currency !== undefined && input.currency !== before.currency) checkCurrency(input.currency)
    await withFreeSlug(input.slug, before.id, async tx => {
      // In the transaction that changes the currency, so no price read here changes before it commits on SQLite.
      if (toSats) await refuseFractionalPrices(tx, before)
      await tx.updateRestaurant(before.id, {
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
    const after = (await store.restaurant(before.id))!
    await room.publishing.publishStall(after)
    // Products carry the currency, so a currency change re-lists the whole menu.
    if (after.currency !== before.currency) {
      await room.publishing.publishItems((await store.itemsOfRestaurant(after.id)).map(i => i.id))
    }
    return restaurantMessage((await store.restaurant(after.id))!)
  }

  /** Whole sats only: a menu with cents cannot silently become a menu in sats. */
  async function refuseFractionalPrices(tx: MenuStatements, restaurant: RestaurantRow): Promise<void> {
    for (const item of await tx.itemsOfRestaurant(restaurant.id)) {
      if (!isWholeAmount(item.price)) refuse(`currency: item "${item.name}" costs ${item.price}, not a whole number of sats`)
      for (const modifier of await tx.modifiersOfItem(item.id)) {
        if (!isWholeAmount(modifier.price_delta)) {
          refuse(`currency: modifier "${modifier.name}" adds ${modifier.price_delta}, not a whole number of sats`)
        }
      }
    }
  }

  const RestaurantDelete: Handler<'RestaurantDelete'> = async (input, ctx) => {
    const restaurant = await ownedRestaurant(room, input.id, ctx.caller)
    const items = await store.transaction(async tx => {
      const listed = await tx.itemsOfRestaurant(restaurant.id)
      await tx.deleteRestaurant(restaurant.id)
      return listed
    })
    await room.publishing.publishDeletion(restaurant, items, true)
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
