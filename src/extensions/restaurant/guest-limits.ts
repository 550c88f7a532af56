// What a guest may ask of the restaurant: the size of one cart, orders and quotes per client address,
// orders per restaurant, and unpaid orders held at once, all from `[restaurant]` in the config. Over a size cap:
// 400 naming the cap; over a rate: 429 with Retry-After; never a stall. Prices always come from the menu.
import { OperationError, takeOrRefuse } from '../../bus/index.js'
import { RateLimiter, addressKey } from '../../limits/index.js'
import type { Config } from '../../config/index.js'
import type { CartLine } from './pricing.js'

export type RestaurantLimits = Config['restaurant']

const refuse = (message: string): never => {
  throw new OperationError('invalid_input', message, { status: 400 })
}

/** Refuses a cart larger than the caps before any of it is looked up or priced. */
export function checkCartSize(limits: RestaurantLimits, cart: readonly CartLine[]): void {
  if (cart.length > limits.max_order_lines) {
    refuse(`items: at most ${limits.max_order_lines} lines per order (${cart.length} sent)`)
  }
  cart.forEach((line, index) => {
    if (line.quantity > limits.max_quantity) refuse(`items.${index}.quantity: at most ${limits.max_quantity} per line`)
    const modifiers = line.modifier_ids?.length ?? 0
    if (modifiers > limits.max_modifiers_per_line) {
      refuse(`items.${index}.modifier_ids: at most ${limits.max_modifiers_per_line} modifiers per line`)
    }
    if ((line.note?.length ?? 0) > limits.max_line_note_chars) {
      refuse(`items.${index}.note: at most ${limits.max_line_note_chars} characters`)
    }
  })
}

export function checkCustomerNote(limits: RestaurantLimits, note: string | undefined): void {
  if ((note?.length ?? 0) > limits.max_customer_note_chars) {
    refuse(`customer_note: at most ${limits.max_customer_note_chars} characters`)
  }
}

export interface GuestBudgets {
  /** Takes one order from this client address, or throws 429. */
  order(clientAddress: string | undefined, now: number): void
  /** Takes one quote from this client address, or throws 429. */
  quote(clientAddress: string | undefined, now: number): void
  /** Takes one order at this restaurant, or throws 429. */
  restaurantOrder(restaurantId: string, now: number): void
}

export function guestBudgets(limits: RestaurantLimits): GuestBudgets {
  const orders = new RateLimiter({ perMinute: limits.orders_per_minute, burst: limits.orders_burst })
  const quotes = new RateLimiter({ perMinute: limits.quotes_per_minute, burst: limits.quotes_burst })
  // A minute's worth at once: a full room ordering together is normal.
  const perRestaurant = limits.restaurant_orders_per_minute
  const restaurants = new RateLimiter({ perMinute: perRestaurant, burst: perRestaurant })
  return {
    order: (address, now) => takeOrRefuse(orders, addressKey(address), now, 'orders from this address'),
    quote: (address, now) => takeOrRefuse(quotes, addressKey(address), now, 'quotes from this address'),
    restaurantOrder: (id, now) => takeOrRefuse(restaurants, id, now, 'orders at this restaurant'),
  }
}
