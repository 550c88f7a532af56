// The restaurant_orders table (migrations/030_restaurant.sql, 071): the statements behind the order book, written
// once on the engine-neutral SqlStore so they run on SQLite and PostgreSQL. Every status change is
// guarded by the status it moves from, so two changes of one order at once (two requests, or a request and the
// payment notice, on two PostgreSQL sessions) cannot both apply.
import type { SqlExecutor } from '../../store/index.js'

export const orderStatuses = ['pending', 'paid', 'accepted', 'ready', 'completed', 'canceled', 'refunded', 'expired'] as const
export type OrderStatus = (typeof orderStatuses)[number]

/** An order as stored. */
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

const columns = [
  'id', 'restaurant_id', 'status', 'items', 'subtotal', 'currency', 'exchange_rate', 'required_msat', 'payment_hash',
  'payment_request', 'customer_note', 'table_label', 'expires_at', 'created_at', 'paid_at', 'updated_at',
] as const satisfies readonly (keyof OrderRow)[]

const insert = `INSERT INTO restaurant_orders (${columns.join(', ')}) VALUES (${columns.map(c => `@${c}`).join(', ')})`
const byId = 'SELECT * FROM restaurant_orders WHERE id = ?'
const setStatus = 'UPDATE restaurant_orders SET status = ?, updated_at = ? WHERE id = ? AND status = ?'
// An order the sweep expired while the payment notice was on its way was still paid in time.
const setPaid = `UPDATE restaurant_orders SET status = 'paid', paid_at = @paidAt, updated_at = @now
  WHERE id = @id AND (status = 'pending' OR (status = 'expired' AND expires_at > @paidAt))`
const expire = "UPDATE restaurant_orders SET status = 'expired', updated_at = @now WHERE status = 'pending' AND expires_at <= @now"
const unpaid = "SELECT count(*) AS n FROM restaurant_orders WHERE restaurant_id = ? AND status = 'pending'"
// Unpaid orders that ended (expired, or canceled before payment) long enough ago, oldest first.
const endedUnpaid = `SELECT id, payment_hash FROM restaurant_orders
  WHERE status IN ('expired', 'canceled') AND paid_at IS NULL AND expires_at <= ? ORDER BY expires_at LIMIT ?`
const deleteUnpaid = 'DELETE FROM restaurant_orders WHERE id = ? AND paid_at IS NULL'

export interface OrderStore {
  insert(row: OrderRow): Promise<void>
  get(id: string): Promise<OrderRow | undefined>
  /** The newest orders of a restaurant first, in the given statuses (all when none), at most `limit`. */
  list(restaurantId: string, statuses: readonly string[] | undefined, limit: number): Promise<OrderRow[]>
  /** Moves the order from `from` to `to`; false when it was not in `from` any more. */
  setStatus(id: string, from: OrderStatus, to: OrderStatus, now: number): Promise<boolean>
  /** Pending (or expired after its payment) → paid; false when the order was in neither state. */
  setPaid(id: string, paidAt: number, now: number): Promise<boolean>
  /** Pending orders whose invoice has expired become `expired`; returns how many did. */
  expireDue(now: number): Promise<number>
  unpaidCount(restaurantId: string): Promise<number>
  /** Unpaid orders that ended (expired or canceled) with expiry at or before `before`, oldest first. */
  endedUnpaid(before: number, limit: number): Promise<{ id: string; payment_hash: string }[]>
  /** Deletes the order unless it was paid; true when it was deleted. */
  deleteUnpaid(id: string): Promise<boolean>
}

/** The orders on the store, or on one open transaction. */
export function orderStore(on: SqlExecutor): OrderStore {
  return {
    async insert(row) {
      await on.run(insert, Object.fromEntries(columns.map(c => [c, row[c]])))
    },
    get: id => on.one<OrderRow>(byId, [id]),
    list(restaurantId, statuses, limit) {
      const filter = statuses && statuses.length > 0 ? [...new Set(statuses)] : undefined
      const sql = `SELECT * FROM restaurant_orders WHERE restaurant_id = ?
        ${filter ? `AND status IN (${filter.map(() => '?').join(', ')})` : ''} ORDER BY created_at DESC, id DESC LIMIT ?`
      return on.many<OrderRow>(sql, [restaurantId, ...(filter ?? []), limit])
    },
    setStatus: async (id, from, to, now) => (await on.run(setStatus, [to, now, id, from])).changes === 1,
    setPaid: async (id, paidAt, now) => (await on.run(setPaid, { id, paidAt, now })).changes === 1,
    expireDue: async now => (await on.run(expire, { now })).changes,
    unpaidCount: async restaurantId => Number((await on.one<{ n: number }>(unpaid, [restaurantId]))!.n),
    endedUnpaid: (before, limit) => on.many<{ id: string; payment_hash: string }>(endedUnpaid, [before, limit]),
    deleteUnpaid: async id => (await on.run(deleteUnpaid, [id])).changes === 1,
  }
}
