// What hangs off a menu item: modifier groups with their modifiers, and availability windows. Groups and
// modifiers are part of the published product (its `specs`), so changing them republishes the item.
import type { Handler } from '../../../bus/index.js'
import { sqlErrorKind } from '../../../store/index.js'
import { priceForCurrency } from '../pricing.js'
import type { RestaurantRoom } from '../room.js'
import { availabilityWindow, modifier, modifierGroup } from '../wire.js'
import { notFound, ownedGroup, ownedItem, requireGroup, requireItem } from '../access.js'

export function itemOptionHandlers(room: RestaurantRoom) {
  const { store } = room

  /** The item or group checked before the insert may be deleted meanwhile: its foreign key refuses, a 404. */
  async function under(what: string, insert: () => Promise<void>): Promise<void> {
    try {
      await insert()
    } catch (err) {
      if (sqlErrorKind(err) === 'foreign_key') notFound(what)
      throw err
    }
  }

  const ModifierGroupList: Handler<'ModifierGroupList'> = async input =>
    (await store.groupsOfItem((await requireItem(room, input.id)).id)).map(modifierGroup)

  const ModifierGroupCreate: Handler<'ModifierGroupCreate'> = async (input, ctx) => {
    const { item } = await ownedItem(room, input.item_id, ctx.caller)
    const id = room.newId()
    await under('Menu item', () =>
      store.insertGroup({
        id,
        item_id: item.id,
        name: input.name,
        min_select: input.min_select ?? 0,
        max_select: input.max_select ?? null,
        sort: input.sort ?? 0,
      }),
    )
    await room.publishing.publishItems([item.id])
    return modifierGroup((await store.group(id)) ?? notFound('Modifier group'))
  }

  const ModifierGroupDelete: Handler<'ModifierGroupDelete'> = async (input, ctx) => {
    const group = (await store.group(input.id)) ?? notFound('Modifier group')
    const { item } = await ownedItem(room, group.item_id, ctx.caller)
    await store.deleteGroup(group.id)
    await room.publishing.publishItems([item.id])
    return { success: true }
  }

  const ModifierList: Handler<'ModifierList'> = async input =>
    (await store.modifiersOfGroup((await requireGroup(room, input.id)).id)).map(modifier)

  const ModifierCreate: Handler<'ModifierCreate'> = async (input, ctx) => {
    const { group, item, restaurant } = await ownedGroup(room, input.group_id, ctx.caller)
    const id = room.newId()
    const priceDelta = priceForCurrency(input.price_delta ?? '0', restaurant.currency, 'price_delta')
    await under('Modifier group', () =>
      store.insertModifier({ id, group_id: group.id, name: input.name, price_delta: priceDelta, sort: input.sort ?? 0 }),
    )
    await room.publishing.publishItems([item.id])
    return modifier((await store.modifier(id)) ?? notFound('Modifier'))
  }

  const ModifierDelete: Handler<'ModifierDelete'> = async (input, ctx) => {
    const found = (await store.modifier(input.id)) ?? notFound('Modifier')
    const { item } = await ownedGroup(room, found.group_id, ctx.caller)
    await store.deleteModifier(found.id)
    await room.publishing.publishItems([item.id])
    return { success: true }
  }

  const AvailabilityWindowList: Handler<'AvailabilityWindowList'> = async input =>
    (await store.windowsOfItem((await requireItem(room, input.id)).id)).map(availabilityWindow)

  const AvailabilityWindowCreate: Handler<'AvailabilityWindowCreate'> = async (input, ctx) => {
    const { item } = await ownedItem(room, input.item_id, ctx.caller)
    const id = room.newId()
    await under('Menu item', () =>
      store.insertWindow({ id, item_id: item.id, days: JSON.stringify(input.days), start_time: input.start, end_time: input.end }),
    )
    return availabilityWindow((await store.window(id)) ?? notFound('Availability window'))
  }

  const AvailabilityWindowDelete: Handler<'AvailabilityWindowDelete'> = async (input, ctx) => {
    const window = (await store.window(input.id)) ?? notFound('Availability window')
    await ownedItem(room, window.item_id, ctx.caller)
    await store.deleteWindow(window.id)
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
