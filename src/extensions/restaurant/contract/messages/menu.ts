// Messages of the restaurant extension's menu (docs/restaurant.md, "Menu tree"): the node tree, items, modifier
// groups, availability windows and the menu as a guest reads it. Validation as in restaurants.ts.
import { bool, boolParam, decimal, enumOf, int, list, message, text, z } from '../../../../../schema/dsl.js'
import { timeOfDayText, nameText, descriptionText, imageText, idText } from './fields.js'
import { RestaurantProfile } from './restaurants.js'

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

/** Exactly these three keys; there is deliberately no `categories` projection (the category routes are gone). */
export const Menu = message('Menu', {
  restaurant: RestaurantProfile,
  tree: list(MenuTreeNode),
  items: list(MenuItemDetail),
})
