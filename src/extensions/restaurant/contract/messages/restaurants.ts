// Messages of the restaurant extension: restaurants and host-wide settings here, the menu in menu.ts,
// orders and print jobs in orders.ts (fields as docs/restaurant.md, "Entities", describes them).
// Validation is strict (400 naming the field): a field of the wrong type is refused, and `null` is accepted only
// where it means something (a root node, a detached item, no image, an unbounded selection). Ids are the
// 22-character url-safe strings the handler generates; timestamps are ISO-8601 UTC strings.
import { bool, boolParam, int, list, message, text } from '../../../../../schema/dsl.js'
import { currencyText, slugText, nameText, descriptionText, imageText, idText, timeZoneText } from './fields.js'

export const IdRequest = message('IdRequest', { id: idText() })

export const Deleted = message('Deleted', { success: bool() })

// Restaurants

/** What anyone may read: the profile without the owner's wallet (upstream's "public" models omit it). */
const restaurantProfileShape = {
  id: text(),
  name: text(),
  slug: text(),
  description: text(),
  currency: text(),
  timezone: text(),
  image: text().nullable(),
  active: bool(),
  created_at: text(),
  updated_at: text(),
}
export const RestaurantProfile = message('RestaurantProfile', restaurantProfileShape)
export const Restaurant = message('Restaurant', { ...restaurantProfileShape, wallet: text() })

export const RestaurantBySlugRequest = message('RestaurantBySlugRequest', { slug: text().min(1) })

export const RestaurantListRequest = message('RestaurantListRequest', {
  /** true: restaurants of every wallet of the key's account; default: the key's wallet only. */
  all_wallets: boolParam().optional(),
})

/**
 * The restaurant's wallet is the wallet whose admin key creates it. LNbits clients also send that wallet's id as
 * `wallet`: taken when it names the key's own wallet, refused otherwise (a key cannot open a restaurant elsewhere).
 */
export const RestaurantCreate = message('RestaurantCreate', {
  wallet: text().max(128).optional(),
  name: nameText(),
  slug: slugText(),
  description: descriptionText().optional(),
  currency: currencyText().optional(),
  timezone: timeZoneText().optional(),
  image: imageText().optional(),
  active: bool().optional(),
})

export const RestaurantUpdate = message('RestaurantUpdate', {
  id: idText(),
  name: nameText().optional(),
  slug: slugText().optional(),
  description: descriptionText().optional(),
  currency: currencyText().optional(),
  timezone: timeZoneText().optional(),
  image: imageText().optional(),
  active: bool().optional(),
})

// Settings (host-wide)

const relayUrl = () => text().regex(/^wss?:\/\/\S+$/, 'must be a ws:// or wss:// relay URL')

export const RestaurantSettings = message('RestaurantSettings', {
  /** Deepest allowed node depth (root = 0). */
  max_menu_depth: int(),
  invoice_expiry_seconds: int(),
  publish_to_nostr: bool(),
  relays: list(text()),
  print_on_paid: bool(),
})

export const RestaurantSettingsUpdate = message('RestaurantSettingsUpdate', {
  max_menu_depth: int().min(0).max(16).optional(),
  /** Short expiries are allowed (a counter that wants quick turnover; tests of the expiry sweep). */
  invoice_expiry_seconds: int().min(1).max(7 * 24 * 3600).optional(),
  publish_to_nostr: bool().optional(),
  relays: list(relayUrl()).optional(),
  print_on_paid: bool().optional(),
})

export const OrderPageRequest = message('OrderPageRequest', { slug: text().min(1) })
