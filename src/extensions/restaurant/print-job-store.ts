// Kitchen print jobs (docs/restaurant.md, "Print jobs"): one ticket per paid order, which a printer polls
// for (`status=pending`) and acknowledges once printed. The ticket is plain text for a 32-column receipt printer.
// Written once on the engine-neutral SqlStore: the same statements on SQLite and PostgreSQL.
import type { SqlExecutor } from '../../store/index.js'
import { orderNumber } from './ids.js'
import type { OrderLine } from './pricing.js'
import { isoTime, isoTimeOrNull } from './wire.js'

export interface PrintJobRow {
  id: string
  restaurant_id: string
  order_id: string
  status: 'pending' | 'printed'
  text: string
  created_at: number
  printed_at: number | null
}

const ticketWidth = 32

const insert = `INSERT INTO restaurant_print_jobs (id, restaurant_id, order_id, status, text, created_at, printed_at)
  VALUES (@id, @restaurant_id, @order_id, 'pending', @text, @created_at, NULL) ON CONFLICT (order_id) DO NOTHING`
const byId = 'SELECT * FROM restaurant_print_jobs WHERE id = ?'
// The CAST lets PostgreSQL type a status parameter that is only tested for NULL.
const ofRestaurant = `SELECT * FROM restaurant_print_jobs
  WHERE restaurant_id = @restaurant AND (CAST(@status AS TEXT) IS NULL OR status = @status) ORDER BY created_at, id`
const markPrinted = "UPDATE restaurant_print_jobs SET status = 'printed', printed_at = ? WHERE id = ? AND status = 'pending'"

export interface PrintJobStore {
  /** Adds the order's ticket unless it already has one (payment notices may come more than once). */
  create(job: Omit<PrintJobRow, 'status' | 'printed_at'>): Promise<boolean>
  get(id: string): Promise<PrintJobRow | undefined>
  list(restaurantId: string, status?: string): Promise<PrintJobRow[]>
  /** Pending → printed; a second ack changes nothing. */
  ack(id: string, now: number): Promise<void>
}

/** The print jobs on the store, or on one open transaction (the paid-order listener's). */
export function printJobStore(on: SqlExecutor): PrintJobStore {
  return {
    create: async job =>
      (
        await on.run(insert, {
          id: job.id,
          restaurant_id: job.restaurant_id,
          order_id: job.order_id,
          text: job.text,
          created_at: job.created_at,
        })
      ).changes === 1,
    get: id => on.one<PrintJobRow>(byId, [id]),
    list: (restaurantId, status) => on.many<PrintJobRow>(ofRestaurant, { restaurant: restaurantId, status: status ?? null }),
    async ack(id, now) {
      await on.run(markPrinted, [now, id])
    },
  }
}

export function printJob(row: PrintJobRow) {
  return {
    id: row.id,
    restaurant_id: row.restaurant_id,
    order_id: row.order_id,
    order_number: orderNumber(row.order_id),
    status: row.status,
    text: row.text,
    created_at: isoTime(row.created_at),
    printed_at: isoTimeOrNull(row.printed_at),
  }
}

export interface TicketOrder {
  id: string
  restaurantName: string
  timezone: string
  table: string | null
  customerNote: string | null
  lines: readonly OrderLine[]
  paidAt: number
}

/** The kitchen ticket: what to cook, for which table, with every modifier and note; no prices. */
export function kitchenTicket(order: TicketOrder): string {
  const rule = '-'.repeat(ticketWidth)
  const when = new Intl.DateTimeFormat('en-GB', {
    timeZone: order.timezone,
    dateStyle: 'short',
    timeStyle: 'short',
  }).format(new Date(order.paidAt))
  const out = [order.restaurantName, `Order ${orderNumber(order.id)}`]
  if (order.table) out.push(`Table ${order.table}`)
  out.push(`Paid ${when}`, rule)
  for (const line of order.lines) {
    out.push(...wrap(`${line.quantity} x ${line.name}`, ''))
    for (const modifier of line.modifiers) out.push(...wrap(`+ ${modifier.name}`, '    '))
    if (line.note) out.push(...wrap(`note: ${line.note}`, '    '))
  }
  out.push(rule)
  if (order.customerNote) out.push(...wrap(`Note: ${order.customerNote}`, ''), rule)
  return out.join('\n') + '\n'
}

/** Breaks a line at spaces to the ticket width, indenting continuation lines a little more. */
function wrap(text: string, indent: string): string[] {
  const lines: string[] = []
  let current = indent
  for (const word of text.replace(/\s+/g, ' ').split(' ')) {
    const candidate = current.trim() === '' ? indent + word : `${current} ${word}`
    if (candidate.length <= ticketWidth || current.trim() === '') current = candidate
    else {
      lines.push(current)
      current = `${indent}  ${word}`
    }
  }
  lines.push(current)
  return lines.flatMap(line => (line.length <= ticketWidth ? [line] : chunk(line)))
}

function chunk(line: string): string[] {
  const pieces: string[] = []
  for (let i = 0; i < line.length; i += ticketWidth) pieces.push(line.slice(i, i + ticketWidth))
  return pieces
}
