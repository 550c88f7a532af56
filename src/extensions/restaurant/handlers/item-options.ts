// What hangs off a menu item: modifier groups with their modifiers, and availability windows. Groups and
// modifiers are part of the published product (its `specs`), so changing them republishes the item.
import type { Handler } from '../../../bus/index.js'
import { priceForCurrency } from '../pricing.js'
import type { RestaurantRoom } from '../room.js'
import { availabilityWindow, modifier, modifierGroup } from '../wire.js'
import { notFound, ownedGroup, ownedItem, requireGroup, requireItem } from '../access.js'

export function itemOptionHandlers(room: RestaurantRoom) {
  const { store } = room

  const ModifierGroupList: Handler<'ModifierGroupList'> = async input =>
    store.groupsOfItem(requireItem(room, input.id).id).map(modifierGroup)

  const ModifierGroupCreate: Handler<'ModifierGroupCreate'> = async (input, ctx) => {
    const { item } = ownedItem(room, input.item_id, ctx.caller)
    const id = room.newId()
    store.insertGroup({
      id,
      item_id: item.id,
      name: input.name,
      min_select: input.min_select ?? 0,
      max_select: input.max_select ?? null,
      sort: input.sort ?? 0,
    })
    room.publishing.publishItems([item.id])
    return modifierGroup(store.group(id)!)
  }

  const ModifierGroupDelete: Handler<'ModifierGroupDelete'> = async (input, ctx) => {
    const group = store.group(input.id) ?? notFound('Modifier group')
    const { item } = ownedItem(room, group.item_id, ctx.caller)
    store.deleteGroup(group.id)
    room.publishing.publishItems([item.id])
    return { success: true }
  }

  const ModifierList: Handler<'ModifierList'> = async input =>
    store.modifiersOfGroup(requireGroup(room, input.id).id).map(modifier)

  const ModifierCreate: Handler<'ModifierCreate'> = async (input, ctx) => {
    const { group, item, restaurant } = ownedGroup(room, input.group_id, ctx.caller)
    const id = room.newId()
    store.insertModifier({
      id,
      group_id: group.id,
      name: input.name,
      price_delta: priceForCurrency(input.price_delta ?? '0', restaurant.currency, 'price_delta'),
      sort: input.sort ?? 0,
    })
    room.publishing.publishItems([item.id])
    return modifier(store.modifier(id)!)
  }

  const ModifierDelete: Handler<'ModifierDelete'> = async (input, ctx) => {
    const found = store.modifier(input.id) ?? notFound('Modifier')
    const { item } = ownedGroup(room, found.group_id, ctx.caller)
    store.deleteModifier(found.id)
    room.publishing.publishItems([item.id])
    return { success: true }
  }

  const AvailabilityWindowList: Handler<'AvailabilityWindowList'> = async input =>
    store.windowsOfItem(requireItem(room, input.id).id).map(availabilityWindow)

  const AvailabilityWindowCreate: Handler<'AvailabilityWindowCreate'> = async (input, ctx) => {
    const { item } = ownedItem(room, input.item_id, ctx.caller)
    const id = room.newId()
    store.insertWindow({ id, item_id: item.id, days: JSON.stringify(input.days), start_time: input.start, end_time: input.end })
    return availabilityWindow(store.window(id)!)
  }

  const AvailabilityWindowDelete: Handler<'AvailabilityWindowDelete'> = async (input, ctx) => {
    const window = store.window(input.id) ?? notFound('Availability window')
    ownedItem(room, window.item_id, ctx.caller)
    store.deleteWindow(window.id)
    return { success: true }
  }

  return {
    ModifierGroupList,
    ModifierGroupCreate,
    ModifierGroupDelete,
    ModifierList,
    ModifierCreate,
    ModifierDelete,
    AvailabilityWindowList,
    AvailabilityWindowCreate,
    AvailabilityWindowDelete,
  }
}
