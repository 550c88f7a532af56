// The restaurant extension as the ground floor reads it (schema/extension.ts): its id, its [restaurant] config
// section (guest carts' caps, the guests' budgets, unpaid orders' expiry and purge) and its order page's script.
import { z } from '../../../vendor/zod.js'
import { defineExtension } from '../../../../schema/extension.js'

export const restaurantDescriptor = defineExtension({
  id: 'restaurant',
  config: z
    .strictObject({
      /** Caps on a guest cart (an order or a quote): lines, quantity per line, modifiers per line, note lengths. */
      max_order_lines: z.int().min(1).max(1000).default(50),
      max_quantity: z.int().min(1).max(100_000).default(100),
      max_modifiers_per_line: z.int().min(0).max(100).default(10),
      max_line_note_chars: z.int().min(0).max(500).default(200),
      max_customer_note_chars: z.int().min(0).max(1000).default(500),
      /** Orders per client address: refill per minute, and the burst. Callers with a wallet key are not limited. */
      orders_per_minute: z.int().min(1).max(100_000).default(4),
      orders_burst: z.int().min(1).max(100_000).default(10),
      /** Quotes per client address (the order page quotes as the cart changes). */
      quotes_per_minute: z.int().min(1).max(100_000).default(60),
      quotes_burst: z.int().min(1).max(100_000).default(30),
      /** Orders per restaurant per minute, from everyone together. */
      restaurant_orders_per_minute: z.int().min(1).max(100_000).default(60),
      /** Unpaid (pending) orders a restaurant holds at once; more are refused until some are paid or expire. */
      max_unpaid_orders: z.int().min(1).max(10_000_000).default(100),
      /** Expired unpaid orders, and their invoices, are deleted this long after they expired. */
      purge_expired_after_seconds: z.int().min(1).max(365 * 86_400).default(86_400),
      /** How often unpaid orders are expired and old ones purged (reads expire them on the spot too). */
      sweep_seconds: z.int().min(1).max(3600).default(60),
    })
    .prefault({}),
  pages: [{ entry: 'page/order.ts', bundle: 'order-page.js' }],
})
