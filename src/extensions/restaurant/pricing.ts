// Carts into money (docs/restaurant.md, "Quote and order"). Every line is checked against the menu as it
// is now (item of this restaurant, active, not sold out, inside an availability window, modifiers of the item
// within each group's bounds), then priced exactly: line_total = (unit_price + Σ price_delta) × quantity.
// A `sat` restaurant asks total × 1000 msat; a fiat one ceil(total × sats per unit) sats at the current spot
// rate. A rate that cannot be had is a 400 naming the currency, never a made-up or 1-sat invoice.
import { type InputOf, OperationError, isOperationError } from '../../bus/index.js'
import { fiatToSats, satsPerUnit, type Rates } from '../../rates/index.js'
import type { MenuItemRow, MenuStatements, ModifierRow, RestaurantRow } from './menu-store.js'
import { availableAt } from './availability.js'

export type CartLine = InputOf<'OrderQuote'>['items'][number]

export interface OrderLine {
  item_id: string
  name: string
  unit_price: string
  quantity: number
  modifiers: { id: string; name: string; price_delta: string }[]
  note: string | null
  line_total: string
}

export interface PricedCart {
  restaurant: RestaurantRow
  lines: OrderLine[]
  subtotal: string
  /** Sats per currency unit the invoice was computed at; null for `sat`. */
  exchangeRate: string | null
  requiredMsat: number
}

/** Amounts carry at most 8 decimals (the `decimal()` message type), so 10^-8 units hold them exactly. */
const unitScale = 8
const unitsPerOne = 10n ** BigInt(unitScale)

export function toUnits(amount: string): bigint {
  const [whole, fraction = ''] = amount.trim().split('.')
  if (!/^\d+$/.test(whole!) || !/^\d{0,8}$/.test(fraction)) throw new RangeError(`not an amount: ${amount}`)
  return BigInt(whole!) * unitsPerOne + BigInt(fraction.padEnd(unitScale, '0'))
}

/** Whole sats for `sat`; for a fiat currency at least two decimals ("13.50"), more only when they matter. */
export function formatAmount(units: bigint, currency: string): string {
  const whole = units / unitsPerOne
  let fraction = (units % unitsPerOne).toString().padStart(unitScale, '0').replace(/0+$/, '')
  if (currency === 'sat' && fraction === '') return whole.toString()
  if (currency !== 'sat') fraction = fraction.padEnd(2, '0')
  return `${whole}.${fraction}`
}

export const isWholeAmount = (amount: string): boolean => toUnits(amount) % unitsPerOne === 0n

/** A price or delta as stored: whole sats are written without decimals; fiat keeps the owner's text. */
export function priceForCurrency(amount: string, currency: string, field: string): string {
  if (currency !== 'sat') return amount
  if (!isWholeAmount(amount)) {
    throw new OperationError('invalid_input', `${field}: must be a whole number of sats`, { status: 400 })
  }
  return (toUnits(amount) / unitsPerOne).toString()
}

const refuse = (message: string): never => {
  throw new OperationError('invalid_input', message, { status: 400 })
}

export interface PricingDeps {
  store: MenuStatements
  rates: Rates
  now(): number
}

/**
 * Checks and prices a cart. `restaurantId` is the restaurant an order names; a quote has none and takes the
 * restaurant of its first line, every other line must then belong to the same one.
 */
export async function priceCart(deps: PricingDeps, cart: readonly CartLine[], restaurantId?: string): Promise<PricedCart> {
  const { store } = deps
  if (cart.length === 0) refuse('items: the order has no items')
  const firstItem = await store.item(cart[0]!.item_id)
  const restaurant = await store.restaurant(restaurantId ?? firstItem?.restaurant_id ?? '')
  if (!restaurant) {
    if (restaurantId !== undefined) throw new OperationError('not_found', 'Restaurant not found.', { status: 404 })
    refuse(`item ${cart[0]!.item_id}: no such menu item`)
  }
  const at = restaurant!
  if (at.active !== 1) refuse(`restaurant "${at.name}" is not taking orders`)
  const now = deps.now()

  let subtotal = 0n
  const lines: OrderLine[] = []
  for (const [index, line] of cart.entries()) {
    const item = await store.item(line.item_id)
    if (!item) return refuse(`item ${line.item_id}: no such menu item`)
    await checkItem(store, at, item, now)
    const modifiers = await chosenModifiers(store, item, line.modifier_ids ?? [])
    if (!Number.isSafeInteger(line.quantity) || line.quantity < 1) refuse(`items.${index}.quantity: must be at least 1`)
    const unit = toUnits(item.price) + modifiers.reduce((sum, m) => sum + toUnits(m.price_delta), 0n)
    const total = unit * BigInt(line.quantity)
    subtotal += total
    lines.push({
      item_id: item.id,
      name: item.name,
      unit_price: item.price,
      quantity: line.quantity,
      modifiers: modifiers.map(m => ({ id: m.id, name: m.name, price_delta: m.price_delta })),
      note: line.note ?? null,
      line_total: formatAmount(total, at.currency),
    })
  }
  if (subtotal === 0n) refuse('the order total is zero: there is nothing to invoice')
  const subtotalText = formatAmount(subtotal, at.currency)

  if (at.currency === 'sat') {
    const msat = (subtotal / unitsPerOne) * 1000n
    return { restaurant: at, lines, subtotal: subtotalText, exchangeRate: null, requiredMsat: safeMsat(msat) }
  }
  const quote = await spotRate(deps.rates, at.currency)
  let sats: number
  try {
    sats = fiatToSats(subtotalText, quote.btcRate, 'ceil')
  } catch (err) {
    return refuse(`cannot price ${subtotalText} ${at.currency}: ${(err as Error).message}`)
  }
  return {
    restaurant: at,
    lines,
    subtotal: subtotalText,
    exchangeRate: satsPerUnit(quote.btcRate),
    requiredMsat: safeMsat(BigInt(sats) * 1000n),
  }
}

async function checkItem(store: MenuStatements, restaurant: RestaurantRow, item: MenuItemRow, now: number): Promise<void> {
  const label = `item ${item.id} ("${item.name}")`
  if (item.restaurant_id !== restaurant.id) refuse(`${label}: belongs to another restaurant`)
  if (item.active !== 1) refuse(`${label}: is not on sale`)
  if (item.sold_out === 1) refuse(`${label}: is sold out`)
  const windows = (await store.windowsOfItem(item.id)).map(w => ({ days: JSON.parse(w.days) as string[], start: w.start_time, end: w.end_time }))
  if (!availableAt(windows, now, restaurant.timezone)) {
    refuse(`${label}: is not available at this time (${restaurant.timezone})`)
  }
}

/** The modifiers a line picked, checked against the item's groups and their [min_select, max_select]. */
async function chosenModifiers(store: MenuStatements, item: MenuItemRow, ids: readonly string[]): Promise<ModifierRow[]> {
  const label = `item ${item.id} ("${item.name}")`
  if (new Set(ids).size !== ids.length) refuse(`${label}: a modifier is chosen twice`)
  const ofItem = new Map((await store.modifiersOfItem(item.id)).map(m => [m.id, m]))
  const chosen = ids.map(id => ofItem.get(id) ?? refuse(`${label}: modifier ${id} does not belong to this item`))
  for (const group of await store.groupsOfItem(item.id)) {
    const count = chosen.filter(m => m.group_id === group.id).length
    const max = group.max_select
    if (count < group.min_select || (max !== null && count > max)) {
      const bounds = max === null ? `at least ${group.min_select}` : group.min_select === max ? `exactly ${max}` : `${group.min_select} to ${max}`
      refuse(`${label}: choose ${bounds} of "${group.name}" (${count} chosen)`)
    }
  }
  return chosen
}

async function spotRate(rates: Rates, currency: string) {
  try {
    return await rates.spot(currency)
  } catch (err) {
    // The rates room names the currency ("no BTC rate for EUR: …"); to a customer it is a refused cart.
    if (isOperationError(err)) throw new OperationError('invalid_input', err.message, { status: 400 })
    throw err
  }
}

function safeMsat(msat: bigint): number {
  if (msat > BigInt(Number.MAX_SAFE_INTEGER)) refuse('the order total is too large')
  return Number(msat)
}
