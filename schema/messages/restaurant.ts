// Messages of the restaurant extension (seed 001 part A; fields from reference/restaurant.md, "Entities").
// Validation is strict (400 naming the field): a field of the wrong type is refused, and `null` is accepted only
// where it means something (a root node, a detached item, no image, an unbounded selection). Ids are the
// 22-character url-safe strings the handler generates; timestamps are ISO-8601 UTC strings.
import { bool, boolParam, decimal, enumOf, int, intParam, list, message, text, z } from '../dsl.js'
import { paymentHashText } from './host.js'

/** `sat` or an ISO-4217 code. */
const currencyText = () => text().regex(/^(sat|[A-Z]{3})$/, 'must be "sat" or an ISO-4217 code such as "EUR"')
const slugText = () => text().regex(/^[a-z0-9-]{1,64}$/, 'must be 1-64 characters of a-z, 0-9 and -')
const timeOfDayText = () => text().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be a time of day HH:MM')
const nameText = () => text().trim().min(1).max(100)
const descriptionText = () => text().max(2000)
const imageText = () => text().max(2048).nullable()
const idText = () => text().min(1)

function isIanaTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone })
    return true
  } catch {
    return false // RangeError is how Intl says the zone is unknown
  }
}
const timeZoneText = () => text().refine(isIanaTimeZone, 'must be an IANA time zone such as "Europe/Berlin"')

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

/** The restaurant's wallet is the wallet whose admin key creates it. */
export const RestaurantCreate = message('RestaurantCreate', {
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

// Menu tree

const menuNodeShape = {
  id: text(),
  restaurant_id: text(),
  parent_id: text().nullable(),
  name: text(),
  description: text(),
  sort: int(),
  image: text().nullable(),
  /** Root = 0. */
  depth: int(),
  /** `/<root id>/…/<own id>` */
  path: text(),
  created_at: text(),
  updated_at: text(),
}
export const MenuNode = message('MenuNode', menuNodeShape)

type MenuTreeNodeShape = z.output<typeof MenuNode> & { children: MenuTreeNodeShape[] }

/** A node of the menu's nested tree, children sorted by `sort` then name. */
export const MenuTreeNode: z.ZodType<MenuTreeNodeShape, MenuTreeNodeShape> = message('MenuTreeNode', {
  ...menuNodeShape,
  children: z.lazy(() => list(MenuTreeNode)),
})

export const MenuNodeCreate = message('MenuNodeCreate', {
  restaurant_id: idText(),
  /** null or absent: a root node. */
  parent_id: idText().nullable().optional(),
  name: nameText(),
  description: descriptionText().optional(),
  sort: int().optional(),
  image: imageText().optional(),
})

/** The parent changes only through MenuNodeMove, which re-derives depth and path of the subtree. */
export const MenuNodeUpdate = message('MenuNodeUpdate', {
  id: idText(),
  name: nameText().optional(),
  description: descriptionText().optional(),
  sort: int().optional(),
  image: imageText().optional(),
})

export const MenuNodeMove = message('MenuNodeMove', {
  id: idText(),
  /** null makes the node a root; the key must be present so a forgotten field never uproots a subtree. */
  new_parent_id: idText().nullable(),
})

export const MenuNodeDelete = message('MenuNodeDelete', {
  id: idText(),
  /** Default false: 409 when the node has children or items. True: detach the items, delete the subtree. */
  cascade: boolParam().optional(),
})

// Menu items and what hangs off them

const menuItemShape = {
  id: text(),
  restaurant_id: text(),
  /** null: detached (its node was deleted with cascade). */
  node_id: text().nullable(),
  name: text(),
  description: text(),
  /** Decimal string in the restaurant currency; whole for `sat`. */
  price: text(),
  image: text().nullable(),
  sort: int(),
  active: bool(),
  sold_out: bool(),
  created_at: text(),
  updated_at: text(),
  /** Id of the last Nostr event that published the item; null until the first publish succeeds. */
  published_event_id: text().nullable(),
}
export const MenuItem = message('MenuItem', menuItemShape)

export const MenuItemCreate = message('MenuItemCreate', {
  restaurant_id: idText(),
  node_id: idText().nullable().optional(),
  name: nameText(),
  description: descriptionText().optional(),
  price: decimal(),
  image: imageText().optional(),
  sort: int().optional(),
  active: bool().optional(),
  sold_out: bool().optional(),
})

export const MenuItemUpdate = message('MenuItemUpdate', {
  id: idText(),
  node_id: idText().nullable().optional(),
  name: nameText().optional(),
  description: descriptionText().optional(),
  price: decimal().optional(),
  image: imageText().optional(),
  sort: int().optional(),
  active: bool().optional(),
  sold_out: bool().optional(),
})

export const Modifier = message('Modifier', {
  id: text(),
  group_id: text(),
  name: text(),
  /** Decimal string, may be "0". */
  price_delta: text(),
  sort: int(),
})

const modifierGroupShape = {
  id: text(),
  item_id: text(),
  name: text(),
  min_select: int(),
  /** null: unbounded. */
  max_select: int().nullable(),
  sort: int(),
}
export const ModifierGroup = message('ModifierGroup', modifierGroupShape)
export const ModifierGroupWithModifiers = message('ModifierGroupWithModifiers', {
  ...modifierGroupShape,
  modifiers: list(Modifier),
})

export const ModifierGroupCreate = message('ModifierGroupCreate', {
  item_id: idText(),
  name: nameText(),
  min_select: int().min(0).optional(),
  max_select: int().min(0).nullable().optional(),
  sort: int().optional(),
}).refine(group => group.max_select == null || group.max_select >= (group.min_select ?? 0), {
  message: 'must be at least min_select',
  path: ['max_select'],
})

export const ModifierCreate = message('ModifierCreate', {
  group_id: idText(),
  name: nameText(),
  price_delta: decimal().optional(),
  sort: int().optional(),
})

export const Weekday = enumOf('Weekday', ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'])

export const AvailabilityWindow = message('AvailabilityWindow', {
  id: text(),
  item_id: text(),
  days: list(Weekday),
  /** HH:MM in the restaurant timezone; an `end` at or before `start` crosses midnight. */
  start: text(),
  end: text(),
})

export const AvailabilityWindowCreate = message('AvailabilityWindowCreate', {
  item_id: idText(),
  days: list(Weekday)
    .min(1)
    .refine(days => new Set(days).size === days.length, 'must not repeat a day'),
  start: timeOfDayText(),
  end: timeOfDayText(),
})

/** An item as the menu shows it: with its modifier groups (and their modifiers) and availability windows. */
export const MenuItemDetail = message('MenuItemDetail', {
  ...menuItemShape,
  modifier_groups: list(ModifierGroupWithModifiers),
  availability_windows: list(AvailabilityWindow),
})

/** The seed fixes the three keys; there is deliberately no `categories` projection. */
export const Menu = message('Menu', {
  restaurant: RestaurantProfile,
  tree: list(MenuTreeNode),
  items: list(MenuItemDetail),
})

// Orders

export const OrderStatus = enumOf('OrderStatus', [
  'pending',
  'paid',
  'accepted',
  'ready',
  'completed',
  'canceled',
  'refunded',
  'expired',
])

export const CreateOrderItem = message('CreateOrderItem', {
  item_id: idText(),
  quantity: int().min(1),
  modifier_ids: list(idText()).optional(),
  note: text().max(500).optional(),
})

const orderItemsText = 'the order has no items'

/** `POST /orders/quote` takes a bare JSON list; the transport puts it under `items`. */
export const OrderQuoteRequest = message('OrderQuoteRequest', {
  items: list(CreateOrderItem).min(1, orderItemsText),
})

export const OrderQuote = message('OrderQuote', { required_msat: int() })

export const OrderPlaceRequest = message('OrderPlaceRequest', {
  restaurant_id: idText(),
  items: list(CreateOrderItem).min(1, orderItemsText),
  table: text().max(100).optional(),
  customer_note: text().max(1000).optional(),
})

/** A line of an order; names and prices are copied at order time so later menu edits do not change it. */
export const OrderItem = message('OrderItem', {
  item_id: text(),
  name: text(),
  unit_price: text(),
  quantity: int(),
  modifiers: list(message('OrderItemModifier', { id: text(), name: text(), price_delta: text() })),
  note: text().nullable(),
  /** (unit_price + Σ price_delta) × quantity, decimal string. */
  line_total: text(),
})

export const Order = message('Order', {
  id: text(),
  restaurant_id: text(),
  status: OrderStatus,
  items: list(OrderItem),
  subtotal: text(),
  currency: text(),
  /** Sats per currency unit used for the invoice, decimal string; null for `sat`. */
  exchange_rate: text().nullable(),
  required_msat: int(),
  payment_hash: text(),
  payment_request: text(),
  customer_note: text().nullable(),
  table: text().nullable(),
  created_at: text(),
  paid_at: text().nullable(),
  updated_at: text(),
})

export const OrderPlaced = message('OrderPlaced', {
  order: Order,
  invoice: message('OrderInvoice', { payment_request: text(), payment_hash: paymentHashText() }),
})

/** `statuses` may repeat in the query (the adapter then gives an array) or carry a comma list. */
const statusFilter = z
  .union([text(), list(text())])
  .transform(value =>
    (Array.isArray(value) ? value : [value])
      .flatMap(entry => entry.split(','))
      .map(entry => entry.trim())
      .filter(entry => entry !== ''),
  )
  .pipe(list(OrderStatus))

export const OrderListRequest = message('OrderListRequest', {
  /** The restaurant. */
  id: idText(),
  statuses: statusFilter.optional(),
  limit: intParam().pipe(z.int().min(1)).optional(),
})

/**
 * `new_status` is checked by the handler, not here: a refused move must be a 400 that names both the current
 * and the requested status (reference/restaurant.md, "Order statuses"), and only the handler knows the first.
 * Allowed targets: accepted, ready, completed, canceled, refunded.
 */
export const OrderSetStatusRequest = message('OrderSetStatusRequest', {
  id: idText(),
  new_status: text().min(1),
})

// Print jobs

export const PrintJobStatus = enumOf('PrintJobStatus', ['pending', 'printed'])

export const PrintJob = message('PrintJob', {
  id: text(),
  restaurant_id: text(),
  order_id: text(),
  status: PrintJobStatus,
  /** The kitchen ticket. */
  text: text(),
  created_at: text(),
  printed_at: text().nullable(),
})

export const PrintJobListRequest = message('PrintJobListRequest', {
  /** The restaurant. */
  id: idText(),
  status: PrintJobStatus.optional(),
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
