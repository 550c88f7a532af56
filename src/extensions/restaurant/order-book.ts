// Orders and their statuses (reference/restaurant.md, "Order statuses"). An order starts `pending` with its
// invoice; only payment makes it `paid` (once, however often payment is told); people move it on by the table
// below; an unpaid order whose invoice expired becomes `expired`, by the sweep or on the next read of it, and is
// deleted with its invoice a configured time later (`[restaurant] purge_expired_after_seconds`).
import type { Logger } from 'pino'
import type { Db } from '../../store/index.js'
import { OperationError } from '../../bus/index.js'
import type { PaidInvoice } from '../host/index.js'
import type { OrderLine } from './pricing.js'
import type { PrintJobStore } from './print-job-store.js'
import { kitchenTicket } from './print-job-store.js'
import type { RestaurantStore } from './store.js'
import { isoTime, isoTimeOrNull } from './wire.js'

export const orderStatuses = ['pending', 'paid', 'accepted', 'ready', 'completed', 'canceled', 'refunded', 'expired'] as const
export type OrderStatus = (typeof orderStatuses)[number]

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

export interface OrderRow {
  id: string
  restaurant_id: string
  status: OrderStatus
  items: string
  subtotal: string
  currency: string
  exchange_rate: string | null
  required_msat: number
  payment_hash: string
  payment_request: string
  customer_note: string | null
  table_label: string | null
  expires_at: number
  created_at: number
  paid_at: number | null
  updated_at: number
}

export const defaultOrderListLimit = 50
export const maxOrderListLimit = 500

export interface OrderDeps {
  db: Db
  store: RestaurantStore
  printJobs: PrintJobStore
  printOnPaid(): boolean
  newId(): string
  now(): number
  log: Logger
}

export function orderBook(deps: OrderDeps) {
  const { db } = deps
  const insert = db.prepare(
    `INSERT INTO restaurant_orders (id, restaurant_id, status, items, subtotal, currency, exchange_rate, required_msat,
       payment_hash, payment_request, customer_note, table_label, expires_at, created_at, paid_at, updated_at)
     VALUES (@id, @restaurant_id, @status, @items, @subtotal, @currency, @exchange_rate, @required_msat, @payment_hash,
       @payment_request, @customer_note, @table_label, @expires_at, @created_at, @paid_at, @updated_at)`,
  )
  const byId = db.prepare('SELECT * FROM restaurant_orders WHERE id = ?')
  const setStatus = db.prepare('UPDATE restaurant_orders SET status = ?, updated_at = ? WHERE id = ? AND status = ?')
  // An order the sweep expired while the payment notice was on its way was still paid in time.
  const setPaid = db.prepare(
    `UPDATE restaurant_orders SET status = 'paid', paid_at = @paidAt, updated_at = @now
      WHERE id = @id AND (status = 'pending' OR (status = 'expired' AND expires_at > @paidAt))`,
  )
  const expire = db.prepare(
    "UPDATE restaurant_orders SET status = 'expired', updated_at = @now WHERE status = 'pending' AND expires_at <= @now",
  )

  const unpaid = db.prepare(`SELECT COUNT(*) FROM restaurant_orders WHERE restaurant_id = ? AND status = 'pending'`).pluck()
  // Unpaid orders that ended (expired, or canceled before payment) long enough ago, oldest first.
  const endedUnpaid = db.prepare(`SELECT id, payment_hash FROM restaurant_orders
      WHERE status IN ('expired', 'canceled') AND paid_at IS NULL AND expires_at <= ? ORDER BY expires_at LIMIT ?`)
  const deleteOrder = db.prepare('DELETE FROM restaurant_orders WHERE id = ? AND paid_at IS NULL')

  /** Pending orders whose invoice has expired become `expired`; returns how many did. */
  const expireDue = (): number => expire.run({ now: deps.now() }).changes

  /**
   * Deletes unpaid orders that ended at least `retentionMs` ago, with their invoices (`forgetInvoice`, which keeps
   * an invoice that was paid after all: then the order stays too). At most `batch` per call; returns how many.
   */
  const purgeEnded = (retentionMs: number, forgetInvoice: (paymentHash: string) => boolean, batch = 500): number =>
    db.transaction(() => {
      let purged = 0
      for (const row of endedUnpaid.all(deps.now() - retentionMs, batch) as { id: string; payment_hash: string }[]) {
        if (forgetInvoice(row.payment_hash)) purged += deleteOrder.run(row.id).changes
      }
      return purged
    })()

  function get(id: string): OrderRow | undefined {
    expireDue()
    return byId.get(id) as OrderRow | undefined
  }

  function list(restaurantId: string, statuses: readonly string[] | undefined, limit: number | undefined): OrderRow[] {
    expireDue()
    const filter = statuses && statuses.length > 0 ? [...new Set(statuses)] : undefined
    const sql = `SELECT * FROM restaurant_orders WHERE restaurant_id = ?
      ${filter ? `AND status IN (${filter.map(() => '?').join(', ')})` : ''} ORDER BY created_at DESC, id DESC LIMIT ?`
    const capped = Math.min(limit ?? defaultOrderListLimit, maxOrderListLimit)
    return db.prepare(sql).all(restaurantId, ...(filter ?? []), capped) as OrderRow[]
  }

  /** A manual move; 400 naming both statuses when the table does not allow it. */
  function move(order: OrderRow, requested: string): OrderRow {
    const target = requested as OrderStatus
    return db.transaction(() => {
      expireDue()
      const current = byId.get(order.id) as OrderRow
      const allowed = manualStatuses.includes(target) && manualMoves[current.status].includes(target)
      if (!allowed) {
        throw new OperationError(
          'invalid_input',
          `cannot move order ${current.id} from "${current.status}" to "${requested}"`,
          { status: 400 },
        )
      }
      setStatus.run(target, deps.now(), current.id, current.status)
      return byId.get(order.id) as OrderRow
    })()
  }

  /**
   * The invoice-paid listener: the order becomes `paid` exactly once and gets its kitchen ticket (with
   * `print_on_paid`), in one transaction, so a repeated or re-delivered notice changes nothing.
   */
  function markPaid(paid: PaidInvoice): void {
    const orderId = typeof paid.extra.order_id === 'string' ? paid.extra.order_id : undefined
    const order = orderId === undefined ? undefined : (byId.get(orderId) as OrderRow | undefined)
    if (!order || order.payment_hash !== paid.paymentHash) {
      deps.log.warn({ orderId, paymentHash: paid.paymentHash }, 'a paid restaurant invoice names no order of ours')
      return
    }
    db.transaction(() => {
      const changed = setPaid.run({ paidAt: paid.paidAt, now: deps.now(), id: order.id }).changes === 1
      if (!changed) {
        const now = byId.get(order.id) as OrderRow
        if (now.status === 'canceled' || now.status === 'expired') {
          deps.log.warn(
            { orderId: order.id, status: now.status, paymentHash: paid.paymentHash, amountMsat: paid.amountMsat },
            'an order was paid after it was canceled or expired; its status stays',
          )
        }
        return
      }
      const restaurant = deps.store.restaurant(order.restaurant_id)
      if (restaurant && deps.printOnPaid()) {
        deps.printJobs.create({
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
    })()
  }

  return {
    insert: (row: OrderRow) => void insert.run(row),
    get,
    list,
    move,
    markPaid,
    expireDue,
    purgeEnded,
    /** Pending orders of a restaurant (the cap on unpaid orders). */
    unpaidCount: (restaurantId: string) => unpaid.get(restaurantId) as number,
  }
}

export type OrderBook = ReturnType<typeof orderBook>

export function order(row: OrderRow) {
  return {
    id: row.id,
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
