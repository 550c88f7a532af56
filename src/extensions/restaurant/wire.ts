// Rows as callers see them (contract/messages/): ISO-8601 UTC times, real booleans, parsed lists.
// Secrets (the restaurant's Nostr key) and bookkeeping columns never leave through here.
import type { OutputOf } from '../../bus/index.js'
import type {
  AvailabilityWindowRow,
  MenuItemRow,
  MenuNodeRow,
  ModifierGroupRow,
  ModifierRow,
  MenuStatements,
  RestaurantRow,
} from './menu-store.js'

export const isoTime = (ms: number): string => new Date(ms).toISOString()
export const isoTimeOrNull = (ms: number | null): string | null => (ms === null ? null : isoTime(ms))

export function restaurantProfile(row: RestaurantRow): OutputOf<'RestaurantGet'> {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    description: row.description,
    currency: row.currency,
    timezone: row.timezone,
    image: row.image,
    active: row.active === 1,
    created_at: isoTime(row.created_at),
    updated_at: isoTime(row.updated_at),
  }
}

/** The owner's view adds the wallet. */
export function restaurant(row: RestaurantRow): OutputOf<'RestaurantCreate'> {
  return { ...restaurantProfile(row), wallet: row.wallet }
}

export function menuNode(row: MenuNodeRow): OutputOf<'MenuNodeGet'> {
  return {
    id: row.id,
    restaurant_id: row.restaurant_id,
    parent_id: row.parent_id,
    name: row.name,
    description: row.description,
    sort: row.sort,
    image: row.image,
    depth: row.depth,
    path: row.path,
    created_at: isoTime(row.created_at),
    updated_at: isoTime(row.updated_at),
  }
}

export function menuItem(row: MenuItemRow): OutputOf<'MenuItemGet'> {
  return {
    id: row.id,
    restaurant_id: row.restaurant_id,
    node_id: row.node_id,
    name: row.name,
    description: row.description,
    price: row.price,
    image: row.image,
    sort: row.sort,
    active: row.active === 1,
    sold_out: row.sold_out === 1,
    created_at: isoTime(row.created_at),
    updated_at: isoTime(row.updated_at),
    published_event_id: row.published_event_id,
  }
}

export function modifierGroup(row: ModifierGroupRow): OutputOf<'ModifierGroupCreate'> {
  return { id: row.id, item_id: row.item_id, name: row.name, min_select: row.min_select, max_select: row.max_select, sort: row.sort }
}

export function modifier(row: ModifierRow): OutputOf<'ModifierCreate'> {
  return { id: row.id, group_id: row.group_id, name: row.name, price_delta: row.price_delta, sort: row.sort }
}

export function availabilityWindow(row: AvailabilityWindowRow): OutputOf<'AvailabilityWindowCreate'> {
  return {
    id: row.id,
    item_id: row.item_id,
    days: JSON.parse(row.days) as OutputOf<'AvailabilityWindowCreate'>['days'],
    start: row.start_time,
    end: row.end_time,
  }
}

/** An item as the menu shows it, with its modifier groups (and their modifiers) and availability windows. */
export async function menuItemDetail(store: MenuStatements, row: MenuItemRow) {
  const groups = await store.groupsOfItem(row.id)
  return {
    ...menuItem(row),
    modifier_groups: await Promise.all(
      groups.map(async group => ({
        ...modifierGroup(group),
        modifiers: (await store.modifiersOfGroup(group.id)).map(modifier),
      })),
    ),
    availability_windows: (await store.windowsOfItem(row.id)).map(availabilityWindow),
  }
}
