// GetUserOperations: six cursor-paged lists of a user's operations. Each list
// returns rows after its cursor, oldest first, at most `max_size` of them (0: no limit, the same for every list —
// upstream is inconsistent there). Incoming invoices page by (paid time, serial); the others by serial.
import { type Handler, type HandlerTable, type InputOf, OperationError } from '../../bus/index.js'
import type { SqlStore } from '../../store/index.js'
import { userOperation, type UserOperation, type UserOperationType } from '../user-operations.js'
import { unixSeconds } from '../../units/index.js'

interface Cursor {
  ts: number
  id: number
}

interface Row {
  serial: number
  at: number
  amount_msat: number
  identifier: string
  service_fee_msat: number
  network_fee_msat: number
  internal: number
  status: string
  tx_hash: string | null
}

/** A page never holds more than this many rows per list, even with max_size 0: the answer must fit a reply. */
const hardPageLimit = 1000

export function operationsHistoryHandlers(sql: SqlStore): HandlerTable {
  const page = (text: string) => `${text} LIMIT @limit`
  const queries: Record<UserOperationType, string> = {
    INCOMING_INVOICE: page(`
      SELECT serial, paid_at AS at, paid_msat AS amount_msat, payment_request AS identifier, 0 AS service_fee_msat,
             0 AS network_fee_msat, paid_internally AS internal, 'succeeded' AS status, NULL AS tx_hash
      FROM invoices WHERE user_id = @userId AND paid_at IS NOT NULL
        AND ((paid_at / 1000 = @ts AND serial > @id) OR paid_at / 1000 > @ts)
      ORDER BY paid_at, serial`),
    OUTGOING_INVOICE: page(`
      SELECT serial, COALESCE(resolved_at, created_at) AS at, amount_msat, payment_request AS identifier,
             service_fee_msat, COALESCE(routing_fee_msat, 0) AS network_fee_msat, internal, status, NULL AS tx_hash
      FROM payments WHERE user_id = @userId AND status != 'failed' AND serial > @id
      ORDER BY serial`),
    INCOMING_TX: page(`
      SELECT serial, created_at AS at, amount_msat, address AS identifier, 0 AS service_fee_msat, 0 AS network_fee_msat,
             1 AS internal, 'succeeded' AS status, tx_hash
      FROM transfers WHERE kind = 'address' AND to_user_id = @userId AND serial > @id ORDER BY serial`),
    OUTGOING_TX: page(`
      SELECT serial, created_at AS at, amount_msat, address AS identifier, fee_msat AS service_fee_msat,
             0 AS network_fee_msat, 1 AS internal, 'succeeded' AS status, tx_hash
      FROM transfers WHERE kind = 'address' AND from_user_id = @userId AND serial > @id ORDER BY serial`),
    INCOMING_USER_TO_USER: page(`
      SELECT serial, created_at AS at, amount_msat, from_user_id AS identifier, 0 AS service_fee_msat,
             0 AS network_fee_msat, 1 AS internal, 'succeeded' AS status, NULL AS tx_hash
      FROM transfers WHERE kind = 'user' AND to_user_id = @userId AND serial > @id ORDER BY serial`),
    OUTGOING_USER_TO_USER: page(`
      SELECT serial, created_at AS at, amount_msat, to_user_id AS identifier, fee_msat AS service_fee_msat,
             0 AS network_fee_msat, 1 AS internal, 'succeeded' AS status, NULL AS tx_hash
      FROM transfers WHERE kind = 'user' AND from_user_id = @userId AND serial > @id ORDER BY serial`),
  }

  const list = async (type: UserOperationType, userId: string, cursor: Cursor, maxSize: number) => {
    const limit = maxSize === 0 ? hardPageLimit : Math.min(maxSize, hardPageLimit)
    const rows = await sql.many<Row>(queries[type], { userId, ts: cursor.ts, id: cursor.id, limit })
    const operations: UserOperation[] = rows.map(row =>
      userOperation({
        type,
        serial: row.serial,
        amountMsat: row.amount_msat,
        identifier: row.identifier,
        paidAt: row.status === 'pending' ? 'pending' : row.at,
        serviceFeeMsat: row.service_fee_msat,
        networkFeeMsat: row.network_fee_msat,
        internal: row.internal === 1,
        ...(row.tx_hash ? { txHash: row.tx_hash } : {}),
      }),
    )
    const cursorOf = (row: Row | undefined): Cursor => (row ? { ts: unixSeconds(row.at), id: row.serial } : { ts: 0, id: 0 })
    return { fromIndex: cursorOf(rows[0]), toIndex: cursorOf(rows[rows.length - 1]), operations }
  }

  type Request = InputOf<'GetUserOperations'>
  /** The six lists of `userId` after the request's cursors, `n` rows each at most. */
  const pages = async (userId: string, input: Request, n: number) => ({
    user_id: userId,
    latestIncomingInvoiceOperations: await list('INCOMING_INVOICE', userId, input.latestIncomingInvoice, n),
    latestOutgoingInvoiceOperations: await list('OUTGOING_INVOICE', userId, input.latestOutgoingInvoice, n),
    latestIncomingTxOperations: await list('INCOMING_TX', userId, input.latestIncomingTx, n),
    latestOutgoingTxOperations: await list('OUTGOING_TX', userId, input.latestOutgoingTx, n),
    latestIncomingUserToUserPayemnts: await list('INCOMING_USER_TO_USER', userId, input.latestIncomingUserToUserPayment, n),
    latestOutgoingUserToUserPayemnts: await list('OUTGOING_USER_TO_USER', userId, input.latestOutgoingUserToUserPayment, n),
  })

  const GetUserOperations: Handler<'GetUserOperations'> = async (input, ctx) => {
    if (input.max_size < 0) throw new OperationError('invalid_input', 'max_size must not be negative')
    // A user reads its own operations only: a user_id in the request (upstream's next version) is ignored.
    return pages(ctx.caller.userId, input, input.max_size)
  }

  // Upstream's next version: the admin reads any user's operations, a banned user's too, at most 50 per list.
  const GetUserOperationsFromAdmin: Handler<'GetUserOperationsFromAdmin'> = async input => {
    if (!input.user_id) throw new OperationError('invalid_input', 'user_id is required')
    if (!(await sql.one('SELECT 1 AS found FROM users WHERE id = ?', [input.user_id]))) throw new OperationError('not_found', 'user not found')
    return pages(input.user_id, input, Math.min(50, Math.max(1, input.max_size)))
  }

  return { GetUserOperations, GetUserOperationsFromAdmin }
}
