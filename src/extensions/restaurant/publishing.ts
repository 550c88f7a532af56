// Menus on Nostr (docs/restaurant.md, "Publishing to Nostr"): each restaurant signs with its own key a NIP-15 stall
// (kind 30017) and one product (kind 30018) per item, whose `t` and `path` tags name the item's ancestor nodes.
// Deleting an item sends a NIP-09 deletion. Events go through the host's queued publisher, so a relay outage never
// fails or slows the HTTP call that caused them.
import type { Logger } from 'pino'
import { getPublicKey } from 'nostr-tools/pure'
import type { Clock } from '../../bus/index.js'
import type { NostrPublisher } from '../host/index.js'
import type { MenuItemRow, MenuStore, RestaurantRow } from './menu-store.js'
import type { Settings } from './settings-store.js'
import { ancestry } from './menu-tree.js'
import { unixSeconds } from '../../units/index.js'

export const stallKind = 30017
export const productKind = 30018
export const deletionKind = 5

export interface PublishingDeps {
  store: MenuStore
  settings: Settings
  nostr: NostrPublisher
  clock: Clock
  log: Logger
}

const secretKeyOf = (restaurant: RestaurantRow) => Uint8Array.from(Buffer.from(restaurant.nostr_secret_key, 'hex'))

export function restaurantPubkey(restaurant: RestaurantRow): string {
  return getPublicKey(secretKeyOf(restaurant))
}

export function menuPublishing(deps: PublishingDeps) {
  const { store } = deps
  const enabled = async () => (await deps.settings.get()).publish_to_nostr
  /**
   * Addressable events replace each other by created_at, and a relay keeps the lower id on a tie: an edit in
   * the same second as the previous version must still win, so each version is dated after the last one.
   */
  const nextCreatedAt = (last: number | null) => Math.max(unixSeconds(deps.clock.now()), (last ?? 0) + 1)

  function publish(restaurant: RestaurantRow, template: { kind: number; content: string; tags: string[][]; created_at: number }) {
    const id = deps.nostr.publish(template, secretKeyOf(restaurant))
    deps.log.debug({ eventId: id, kind: template.kind, restaurant: restaurant.id }, 'queued a menu event')
    return id
  }

  async function publishStall(restaurant: RestaurantRow): Promise<void> {
    if (!(await enabled())) return
    const createdAt = nextCreatedAt(restaurant.stall_created_at)
    publish(restaurant, {
      kind: stallKind,
      created_at: createdAt,
      tags: [['d', restaurant.id]],
      content: JSON.stringify({
        id: restaurant.id,
        name: restaurant.name,
        description: restaurant.description,
        currency: restaurant.currency,
        shipping: [],
      }),
    })
    await store.setStallCreatedAt(createdAt, restaurant.id)
  }

  async function productEvent(restaurant: RestaurantRow, item: MenuItemRow) {
    const ancestors = await ancestry(store, item.node_id)
    const specs: string[][] = []
    for (const group of await store.groupsOfItem(item.id)) {
      specs.push(['modifiers', `${group.name}: ${(await store.modifiersOfGroup(group.id)).map(m => m.name).join(', ')}`])
    }
    const tags = [['d', item.id], ...ancestors.map(node => ['t', node.name])]
    if (ancestors.length > 0) tags.push(['path', ancestors.map(node => node.name).join('/')])
    return {
      kind: productKind,
      created_at: nextCreatedAt(item.published_created_at),
      tags,
      content: JSON.stringify({
        id: item.id,
        stall_id: restaurant.id,
        name: item.name,
        description: item.description,
        images: item.image ? [item.image] : [],
        currency: restaurant.currency,
        // NIP-15 prices are JSON numbers; this is a listing for display, the invoice is computed exactly.
        price: Number(item.price),
        quantity: null,
        specs,
      }),
    }
  }

  /** Publishes the current state of each item (after a create, an edit, or a change to its ancestors). */
  async function publishItems(itemIds: readonly string[]): Promise<void> {
    if (!(await enabled())) return
    for (const id of itemIds) {
      const item = await store.item(id)
      const restaurant = item && (await store.restaurant(item.restaurant_id))
      if (!item || !restaurant) continue
      const event = await productEvent(restaurant, item)
      const eventId = publish(restaurant, event)
      await store.setItemPublished(eventId, event.created_at, item.id)
    }
  }

  /** A NIP-09 deletion of the items' products (and of the stall, when the restaurant itself goes). */
  async function publishDeletion(restaurant: RestaurantRow, items: readonly MenuItemRow[], withStall: boolean): Promise<void> {
    if (!(await enabled())) return
    const pubkey = restaurantPubkey(restaurant)
    const published = items.filter(item => item.published_event_id !== null)
    if (published.length === 0 && !(withStall && restaurant.stall_created_at !== null)) return
    const tags: string[][] = []
    for (const item of published) {
      tags.push(['a', `${productKind}:${pubkey}:${item.id}`], ['e', item.published_event_id!])
    }
    if (withStall && restaurant.stall_created_at !== null) tags.push(['a', `${stallKind}:${pubkey}:${restaurant.id}`])
    if (published.length > 0) tags.push(['k', String(productKind)])
    if (withStall && restaurant.stall_created_at !== null) tags.push(['k', String(stallKind)])
    // An `a` deletion removes the versions dated up to its own created_at, so it must not predate the last one.
    const latest = Math.max(restaurant.stall_created_at ?? 0, ...published.map(item => item.published_created_at ?? 0))
    publish(restaurant, {
      kind: deletionKind,
      created_at: Math.max(unixSeconds(deps.clock.now()), latest),
      tags,
      content: withStall ? 'restaurant closed' : 'menu item removed',
    })
  }

  return { publishStall, publishItems, publishDeletion }
}

export type MenuPublishing = ReturnType<typeof menuPublishing>
