// Orders and their statuses (docs/restaurant.md, "Order statuses"). An order starts `pending` with its
// invoice; only payment makes it `paid` (once, however often payment is told); people move it on by the table
// below; an unpaid order whose invoice expired becomes `expired`, by the sweep or on the next read of it, and is
// deleted with its invoice a configured time later (`[restaurant] purge_expired_after_seconds`). The statements are
// in order-store.ts; what depends on a read is one transaction or a write guarded by the state it read.
import type { Logger } from 'pino'
import type { SqlExecutor, SqlStore } from '../../store/index.js'
import { OperationError } from '../../bus/index.js'
import type { PaidInvoice } from '../host/index.js'
import { menuStatements } from './menu-store.js'
import { orderStore, type OrderRow, type OrderStatus } from './order-store.js'
import type { OrderLine } from './pricing.js'
import { kitchenTicket, printJobStore } from './print-job-store.js'
import { isoTime, isoTimeOrNull } from './wire.js'
import { orderNumber } from './ids.js'

export { orderStatuses, type OrderRow, type OrderStatus } from './order-store.js'

/** The statuses a person may ask for with `PUT /orders/{id}/status/{new_status}`. */
export const manualStatuses: readonly OrderStatus[] = ['accepted', 'ready', 'completed', 'canceled', 'refunded']

/** From each status, the manual moves allowed; `refunded` records the state, it moves no money. */
export const manualMoves: Record<OrderStatus, readonly OrderStatus[]> = {
  pending: ['canceled'],
  paid: ['accepted', 'canceled', 'refunded'],
  accepted: ['ready', 'canceled', 'refunded'],
  ready: ['completed', 'refunded'],
  completed: ['refunded'],
  canceled: [],
  refunded: [],
  expired: [],
}

export const defaultOrderListLimit = 50
export const maxOrderListLimit = 500

export interface OrderDeps {
  sql: SqlStore
  /** `print_on_paid`, read inside the paid-order transaction. */
  printOnPaid(on: SqlExecutor): Promise<boolean>
  newId(): string
  now(): number
  log: Logger
}

export interface OrderBook {
  insert(row: OrderRow): Promise<void>
  /** The order, expired first when its invoice has (reads expire unpaid orders on the spot). */
  get(id: string): Promise<OrderRow | undefined>
  list(restaurantId: string, statuses: readonly string[] | undefined, limit: number | undefined): Promise<OrderRow[]>
  /** A manual move; 400 naming both statuses when the table does not allow it. */
  move(order: OrderRow, requested: string): Promise<OrderRow>
  /**
   * The invoice-paid listener: the order becomes `paid` exactly once and gets its kitchen ticket (with
   * `print_on_paid`), in one transaction, so a repeated or re-delivered notice changes nothing.
   */
  markPaid(paid: PaidInvoice): Promise<void>
  /** Pending orders whose invoice has expired become `expired`; returns how many did. */
  expireDue(): Promise<number>
  /**
   * Deletes unpaid orders that ended at least `retentionMs` ago, with their invoices (`forgetInvoice`, which keeps
   * an invoice that was paid after all: then the order stays too). At most `batch` per call; returns how many.
   */
  purgeEnded(retentionMs: number, forgetInvoice: (paymentHash: string) => Promise<boolean>, batch?: number): Promise<number>
  /** Pending orders of a restaurant (the cap on unpaid orders). */
  unpaidCount(restaurantId: string): Promise<number>
}

export function orderBook(deps: OrderDeps): OrderBook {
  const orders = orderStore(deps.sql)
  const expireDue = () => orders.expireDue(deps.now())

  async function purgeEnded(retentionMs: number, forgetInvoice: (paymentHash: string) => Promise<boolean>, batch = 500): Promise<number> {
    // The invoices go first, through the wallet's own door: once one is gone it cannot be paid, so the order's
    // delete (guarded by paid_at IS NULL) needs no transaction with it. A crash between the two leaves an order
    // whose invoice is gone, which the next sweep deletes (forgetInvoice answers true for a gone one).
    const forgotten: string[] = []
    for (const row of await orders.endedUnpaid(deps.now() - retentionMs, batch)) {
      if (await forgetInvoice(row.payment_hash)) forgotten.push(row.id)
      // Each forget is the wallet's own commit (0.5–1.7 ms with synchronous = full here): other work runs between
      // them instead of waiting behind a whole batch of them.
      await new Promise(resolve => setImmediate(resolve))
    }
    if (forgotten.length === 0) return 0
    // The orders in one commit.
    return deps.sql.transaction(async tx => {
      const book = orderStore(tx)
      let purged = 0
      for (const id of forgotten) if (await book.deleteUnpaid(id)) purged++
      return purged
    })
  }

  async function list(restaurantId: string, statuses: readonly string[] | undefined, limit: number | undefined) {
    await expireDue()
    return orders.list(restaurantId, statuses, Math.min(limit ?? defaultOrderListLimit, maxOrderListLimit))
  }

  function move(order: OrderRow, requested: string): Promise<OrderRow> {
    const target = requested as OrderStatus
    return deps.sql.transaction(async tx => {
      const book = orderStore(tx)
      await book.expireDue(deps.now())
      const current = (await book.get(order.id))!
      const allowed = manualStatuses.includes(target) && manualMoves[current.status].includes(target)
      if (!allowed) {
        throw new OperationError(
          'invalid_input',
          `cannot move order ${current.id} from "${current.status}" to "${requested}"`,
          { status: 400 },
        )
      }
      // Guarded by the status just read: on PostgreSQL another session may have moved the order since.
      if (!(await book.setStatus(current.id, current.status, target, deps.now()))) {
        throw new OperationError('conflict', `order ${current.id} changed while it was being moved; try again`, { status: 409 })
      }
      return (await book.get(order.id))!
    })
  }

  async function markPaid(paid: PaidInvoice): Promise<void> {
    const orderId = typeof paid.extra.order_id === 'string' ? paid.extra.order_id : undefined
    const order = orderId === undefined ? undefined : await orders.get(orderId)
    if (!order || order.payment_hash !== paid.paymentHash) {
      deps.log.warn({ orderId, paymentHash: paid.paymentHash }, 'a paid restaurant invoice names no order of ours')
      return
    }
    await deps.sql.transaction(async tx => {
      const book = orderStore(tx)
      if (!(await book.setPaid(order.id, paid.paidAt, deps.now()))) {
        const now = (await book.get(order.id))!
        if (now.status === 'canceled' || now.status === 'expired') {
          deps.log.warn(
            { orderId: order.id, status: now.status, paymentHash: paid.paymentHash, amountMsat: paid.amountMsat },
            'an order was paid after it was canceled or expired; its status stays',
          )
        }
        return
      }
      const restaurant = await menuStatements(tx).restaurant(order.restaurant_id)
      if (restaurant && (await deps.printOnPaid(tx))) {
        await printJobStore(tx).create({
          id: deps.newId(),
          restaurant_id: order.restaurant_id,
          order_id: order.id,
          text: kitchenTicket({
            id: order.id,
            restaurantName: restaurant.name,
            timezone: restaurant.timezone,
            table: order.table_label,
            customerNote: order.customer_note,
            lines: JSON.parse(order.items) as OrderLine[],
            paidAt: paid.paidAt,
          }),
          created_at: deps.now(),
        })
      }
    })
  }

  return {
    insert: row => orders.insert(row),
    async get(id) {
      await expireDue()
      return orders.get(id)
    },
    list,
    move,
    markPaid,
    expireDue,
    purgeEnded,
    unpaidCount: restaurantId => orders.unpaidCount(restaurantId),
  }
}

export function order(row: OrderRow) {
  return {
    id: row.id,
    number: orderNumber(row.id),
    restaurant_id: row.restaurant_id,
    status: row.status,
    items: JSON.parse(row.items) as OrderLine[],
    subtotal: row.subtotal,
    currency: row.currency,
    exchange_rate: row.exchange_rate,
    required_msat: row.required_msat,
    payment_hash: row.payment_hash,
    payment_request: row.payment_request,
    customer_note: row.customer_note,
    table: row.table_label,
    created_at: isoTime(row.created_at),
    paid_at: isoTimeOrNull(row.paid_at),
    updated_at: isoTime(row.updated_at),
  }
}
