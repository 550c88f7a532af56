// Messages of the restaurant extension's orders and print jobs (docs/restaurant.md): quotes, placing an order (its
// invoice), listing and moving orders through their statuses, and the printer queue.
import { enumOf, int, intParam, list, message, text, z } from '../../../../../schema/dsl.js'
import { idText } from './fields.js'
import { paymentHashText } from '../../../../../schema/messages/host.js'

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
  /** The short number the customer, the kitchen board and the ticket show (`#ABC123`). */
  number: text(),
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
 * and the requested status (docs/restaurant.md, "Order statuses"), and only the handler knows the first.
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
  /** The order's short number, as on the ticket. */
  order_number: text(),
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
