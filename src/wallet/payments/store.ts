// Payment rows and the transactions that move money for them. Each function is ONE SQLite transaction that
// re-checks what it depends on, so concurrent callers cannot both pay one invoice, and a payment is settled or
// refunded at most once (the status moves pending → succeeded | failed under a `WHERE status = 'pending'` guard,
// in the same transaction as its posting). One row per attempt: an invoice whose attempts failed may be paid again,
// and a unique index keeps at most one pending or succeeded attempt per payment hash. Postings, ref = serial: `payment_debit` with the row; then, for an
// external payment, `payment_settle` or `payment_refund`. An internal payment is complete in its debit (which pays
// the fee collector) and the receiver's `invoice_credit`.
import { OperationError } from '../../bus/index.js'
import type { SqlExecutor, SqlStore } from '../../store/index.js'
import { invoiceCredit, lockWallets, userAccount, type Leg, type Ledger, type Posted } from '../ledger.js'
import type { InvoiceRow, InvoiceStore } from '../invoices/store.js'
import { normalizedRequest } from '../invoices/store.js'
import { userOperation, type UserOperation } from '../user-operations.js'

export type PaymentStatus = 'pending' | 'succeeded' | 'failed'

export interface PaymentRow {
  serial: number
  payment_hash: string
  payment_request: string
  user_id: string
  fee_collector_user_id: string | null
  amount_msat: number
  service_fee_msat: number
  max_routing_fee_msat: number
  routing_fee_msat: number | null
  internal: number
  status: PaymentStatus
  preimage: string | null
  failure_reason: string | null
  created_at: number
  resolved_at: number | null
}

export interface PaymentTerms {
  payerId: string
  paymentHash: string
  paymentRequest: string
  amountMsat: number
  serviceFeeMsat: number
  /** Who collects the service fee (null when none is due). */
  feeCollectorId: string | null
  at: number
}

/**
 * A caller's own limit on one payment (a CLINK debit budget), run on the payment's `tx` after the repeat checks and
 * before the payer is debited, so payments against one limit serialise (the payer's row is locked first on
 * PostgreSQL) and the limit sees every one committed before it. It refuses by throwing an OperationError: the
 * payment then rolls back alone (its savepoint in the group commit). Rows it writes commit or roll back with it.
 */
export type SpendLimit = (tx: SqlExecutor, payment: PaymentTerms) => Promise<void>


export interface InternalPaid {
  payment: PaymentRow
  invoice: InvoiceRow
  payerBalanceMsat: number
  receiverBalanceMsat: number
}

export interface Resolved {
  payment: PaymentRow
  payerBalanceMsat: number
}

/** Upstream's texts where upstream has one; clients match on them. */
export const refusals = {
  alreadyPaid: 'this invoice was already paid',
  inProgress: 'payment already in progress',
  locked: 'user is locked',
  /** Another invoice with the same payment hash: the node keeps one payment per hash (LND's rule). */
  hashInFlight:
    'another invoice with this payment hash is being paid; the node sends one payment per hash at a time, so try again once it has resolved',
  hashPaid: 'a payment with this payment hash has already succeeded; the node never pays one payment hash twice',
  copiedHash:
    'this invoice copies the payment hash of another invoice of this service and cannot be paid; pay the original invoice',
}

const texts = {
  insert: `INSERT INTO payments
      (payment_hash, payment_request, user_id, fee_collector_user_id, amount_msat, service_fee_msat,
       max_routing_fee_msat, routing_fee_msat, internal, status, preimage, failure_reason, created_at, resolved_at)
      VALUES (@payment_hash, @payment_request, @user_id, @fee_collector_user_id, @amount_msat, @service_fee_msat,
              @max_routing_fee_msat, @routing_fee_msat, @internal, @status, @preimage, @failure_reason, @created_at,
              @resolved_at) RETURNING serial`,
  bySerial: 'SELECT * FROM payments WHERE serial = ?',
  // A hash's attempts are found in two partial indexes (081_payments_failed_hash.sql): the live one (pending or
  // succeeded, at most one) is always the latest, as nothing can be inserted at its hash while it lives and a
  // succeeded attempt never fails; without one, the latest failed attempt is. Each text names its index's condition.
  live: `SELECT * FROM payments WHERE payment_hash = ? AND status <> 'failed'`,
  latestFailed: `SELECT * FROM payments WHERE payment_hash = ? AND status = 'failed' ORDER BY serial DESC LIMIT 1`,
  // The invoice text has no index of its own: one would take every payment at a random place in ~170 bytes per row
  // (074_payments_without_request_index.sql). The payer's attempts are found by the invoice's hash instead.
  latestFailedOfPayer: `SELECT * FROM payments WHERE payment_hash = ? AND status = 'failed' AND payment_request = ?
      AND user_id = ? ORDER BY serial DESC LIMIT 1`,
  pending: `SELECT * FROM payments WHERE status = 'pending' ORDER BY serial`,
  succeed: `UPDATE payments SET status = 'succeeded', routing_fee_msat = @routingFeeMsat,
      preimage = @preimage, resolved_at = @at WHERE serial = @serial AND status = 'pending' RETURNING *`,
  fail: `UPDATE payments SET status = 'failed', failure_reason = @reason, resolved_at = @at
      WHERE serial = @serial AND status = 'pending' RETURNING *`,
}

/** What an invoice payment needs of the invoices: the paid mark, on the payment's `tx`. */
type InvoicePaidMark = Pick<InvoiceStore, 'markPaid'>

/** The payment rows as the wallet reads them outside money transactions, and the money movements. */
export function paymentStore(sql: SqlStore, ledger: Ledger, invoices: InvoicePaidMark) {
  return {
    /** The latest attempt at this payment hash (the live one, when one is pending or succeeded). */
    async byHash(paymentHash: string): Promise<PaymentRow | undefined> {
      const hash = paymentHash.toLowerCase()
      return (await sql.one<PaymentRow>(texts.live, [hash])) ?? sql.one<PaymentRow>(texts.latestFailed, [hash])
    },
    bySerial: (serial: number) => sql.one<PaymentRow>(texts.bySerial, [serial]),
    /** The payer's latest attempt at this invoice (`paymentHash` is the invoice's). */
    async latestOfPayer(paymentHash: string, paymentRequest: string, payerId: string): Promise<PaymentRow | undefined> {
      const hash = paymentHash.toLowerCase()
      const request = normalizedRequest(paymentRequest)
      const live = await sql.one<PaymentRow>(texts.live, [hash])
      // The live attempt is the latest at its hash: when it is another invoice's or another payer's, this payer's
      // latest attempt at this invoice is an earlier one, which failed.
      if (live && live.payment_request === request && live.user_id === payerId) return live
      return sql.one<PaymentRow>(texts.latestFailedOfPayer, [hash, request, payerId])
    },
    pending: () => sql.many<PaymentRow>(texts.pending),
    ...paymentMovements(ledger, invoices),
  }
}

/** Every statement that moves money for a payment: each function runs on the `tx` of one money transaction. */
export function paymentMovements(ledger: Ledger, invoices: InvoicePaidMark) {

  /**
   * The checks every payment re-runs inside its transaction. Repeats are per invoice: attempts that failed block
   * nothing (a retry is allowed, as LND allows it), and an attempt at one invoice never refuses another invoice
   * for good. Only the node's own rule reaches across invoices: one live payment per hash, so while an invoice with
   * the same hash is in flight a second one waits its turn, and a hash that was paid is never paid again.
   */
  const refuseRepeat = async (tx: SqlExecutor, terms: PaymentTerms, receiverId: string | null) => {
    const { payerId, paymentHash, paymentRequest } = terms
    // Every wallet the payment moves, locked in id order for the rest of it (PostgreSQL): the repeat checks, the
    // caller's limit and the debit of one wallet serialise, and two payments between the same wallets in opposite
    // directions wait for each other instead of deadlocking.
    // (SQLite has one writer at a time: only the payer's flag is read there.)
    const locked = await lockWallets(tx, tx.engine === 'postgres' ? [payerId, receiverId, terms.feeCollectorId] : [payerId])
    if (locked.get(payerId) !== 0) throw new OperationError('forbidden', refusals.locked)
    const live = await tx.one<PaymentRow>(texts.live, [paymentHash])
    if (!live) return
    const sameInvoice = live.payment_request === normalizedRequest(paymentRequest)
    if (live.status === 'succeeded') throw new OperationError('conflict', sameInvoice ? refusals.alreadyPaid : refusals.hashPaid)
    throw new OperationError('conflict', sameInvoice ? refusals.inProgress : refusals.hashInFlight)
  }

  const debit = async (
    tx: SqlExecutor,
    terms: PaymentTerms,
    internal: boolean,
    maxRoutingFeeMsat: number,
  ): Promise<{ payment: PaymentRow; posted: Posted | false }> => {
    const row: Omit<PaymentRow, 'serial'> = {
      payment_hash: terms.paymentHash,
      payment_request: normalizedRequest(terms.paymentRequest),
      user_id: terms.payerId,
      fee_collector_user_id: terms.feeCollectorId,
      amount_msat: terms.amountMsat,
      service_fee_msat: terms.serviceFeeMsat,
      max_routing_fee_msat: maxRoutingFeeMsat,
      routing_fee_msat: internal ? 0 : null,
      internal: internal ? 1 : 0,
      status: internal ? 'succeeded' : 'pending',
      preimage: internal ? '' : null,
      failure_reason: null,
      created_at: terms.at,
      resolved_at: internal ? terms.at : null,
    }
    const serial = (await tx.one<{ serial: number }>(texts.insert, row))!.serial
    const total = terms.amountMsat + terms.serviceFeeMsat
    // An internal payment is settled as it is made, so its fee goes to the collector in the debit itself; an
    // external one parks the fee in `system:lightning` until the node says what routing cost.
    const legs: Leg[] =
      internal && terms.feeCollectorId !== null && terms.serviceFeeMsat > 0
        ? [
            { account: userAccount(terms.payerId), amountMsat: -total },
            { account: 'system:lightning', amountMsat: terms.amountMsat },
            { account: userAccount(terms.feeCollectorId), amountMsat: terms.serviceFeeMsat },
          ]
        : [
            { account: userAccount(terms.payerId), amountMsat: -total },
            { account: 'system:lightning', amountMsat: total },
          ]
    const posted = await ledger.post(tx, { kind: 'payment_debit', ref: String(serial), legs, at: terms.at })
    return { payment: { serial, ...row }, posted }
  }

  /** The fee left after routing goes to the collector; `system:lightning` keeps what the network took. */
  const postSettle = async (tx: SqlExecutor, payment: PaymentRow, routingFeeMsat: number, at: number) => {
    const share = payment.fee_collector_user_id === null ? 0 : Math.max(0, payment.service_fee_msat - routingFeeMsat)
    const legs: Leg[] =
      share > 0
        ? [
            { account: userAccount(payment.fee_collector_user_id!), amountMsat: share },
            { account: 'system:lightning', amountMsat: -share },
          ]
        : []
    return ledger.post(tx, { kind: 'payment_settle', ref: String(payment.serial), legs, at })
  }

  return {
    /**
     * Pays one of the wallets' own invoices: debits the payer amount + fee, marks the invoice paid (internal),
     * credits the receiver and the fee collector, and records the payment, all on `tx` (one commit).
     */
    async payInternally(tx: SqlExecutor, terms: PaymentTerms, invoice: InvoiceRow, limit?: SpendLimit): Promise<InternalPaid> {
      await refuseRepeat(tx, terms, invoice.user_id)
      if (limit) await limit(tx, terms)
      // The paid mark first: when it changes nothing, the invoice was paid meanwhile (internally or over Lightning).
      const paid = { invoiceSerial: invoice.serial, paidMsat: terms.amountMsat, paidAt: terms.at, internal: true }
      if (!(await invoices.markPaid(tx, { ...paid, settleIndex: null }))) throw new OperationError('conflict', refusals.alreadyPaid)
      const { payment, posted } = await debit(tx, terms, true, 0)
      const credited = await ledger.post(tx, invoiceCredit(invoice, terms.amountMsat, terms.at))
      if (!credited) throw new OperationError('conflict', refusals.alreadyPaid)
      return {
        payment,
        invoice: { ...invoice, paid_at: terms.at, paid_msat: terms.amountMsat, paid_internally: 1, settle_index: null },
        payerBalanceMsat: await ledger.balanceAfter(tx, terms.payerId, posted, credited),
        receiverBalanceMsat: await ledger.balanceAfter(tx, invoice.user_id, posted, credited),
      }
    },

    /** Debits amount + fee and records the payment as pending, before the node is asked to send anything. */
    async startExternal(tx: SqlExecutor, terms: PaymentTerms, maxRoutingFeeMsat: number, limit?: SpendLimit): Promise<Resolved> {
      await refuseRepeat(tx, terms, null)
      if (limit) await limit(tx, terms)
      const { payment, posted } = await debit(tx, terms, false, maxRoutingFeeMsat)
      return { payment, payerBalanceMsat: await ledger.balanceAfter(tx, terms.payerId, posted) }
    },

    /** The node paid: the fee collector gets the service fee minus routing. Undefined if already resolved. */
    async settle(
      tx: SqlExecutor,
      serial: number,
      outcome: { routingFeeMsat: number; preimage: string; at: number },
    ): Promise<Resolved | undefined> {
      const payment = await tx.one<PaymentRow>(texts.succeed, { serial, ...outcome })
      if (!payment) return undefined
      const posted = await postSettle(tx, payment, outcome.routingFeeMsat, outcome.at)
      return { payment, payerBalanceMsat: await ledger.balanceAfter(tx, payment.user_id, posted) }
    },

    /** The payment certainly did not happen: the payer gets amount + fee back. Undefined if already resolved. */
    async refund(tx: SqlExecutor, serial: number, failure: { reason: string; at: number }): Promise<Resolved | undefined> {
      const payment = await tx.one<PaymentRow>(texts.fail, { serial, ...failure })
      if (!payment) return undefined
      const total = payment.amount_msat + payment.service_fee_msat
      const posted = await ledger.post(tx, {
        kind: 'payment_refund',
        ref: String(serial),
        legs: [
          { account: userAccount(payment.user_id), amountMsat: total },
          { account: 'system:lightning', amountMsat: -total },
        ],
        at: failure.at,
      })
      return { payment, payerBalanceMsat: await ledger.balanceAfter(tx, payment.user_id, posted) }
    },
  }
}

export type PaymentStore = ReturnType<typeof paymentStore>

/** The payment as upstream's UserOperation. */
export function paymentOperation(payment: PaymentRow): UserOperation {
  return userOperation({
    type: 'OUTGOING_INVOICE',
    serial: payment.serial,
    amountMsat: payment.amount_msat,
    identifier: payment.payment_request,
    paidAt: payment.status === 'succeeded' ? payment.resolved_at! : payment.status,
    serviceFeeMsat: payment.service_fee_msat,
    networkFeeMsat: payment.routing_fee_msat ?? 0,
    internal: payment.internal === 1,
  })
}
