// Paying a BOLT11 invoice from a wallet, the one engine behind PayInvoice,
// PayAppUserInvoice and the host and extension APIs. An invoice of this service settles internally in one
// transaction. Any other is paid through the node: debit and pending row first (one commit), then the node, then
// settle or refund (another commit); an unknown outcome stays pending until the node knows.
import type { Logger } from 'pino'
import { OperationError, isOperationError, type DomainEvent } from '../../bus/index.js'
import type { DecodedInvoice, LightningNode } from '../../node/index.js'
import type { AccountStore } from '../accounts.js'
import type { FeeCollectors } from '../fee-collectors.js'
import type { GroupCommit } from '../group-commit.js'
import { routingFeeLimitSats, serviceFeeSats, type FeePolicy } from '../fees.js'
import { invoicePaidEvents } from '../invoices/paid-events.js'
import type { InvoiceRow, InvoiceStore } from '../invoices/store.js'
import { msatAsSats, msatPerSat } from '../../units/index.js'
import type { OutgoingGate } from './outgoing-gate.js'
import type { PaymentResolution } from './resolution.js'
import { paymentOperation, refusals, type PaymentRow, type PaymentStore, type PaymentTerms } from './store.js'
import type { SpendLimit } from '../spend-limit.js'
import type { SpendLimit as TransactionLimit } from './store.js'
import type { PaymentSums } from '../transaction-history.js'

/** Upstream gives LND 50 s before it answers the caller; the payment itself goes on. */
const payTimeoutMs = 50_000

export interface PayInvoiceRequest {
  invoice: string
  /** The wire's `amount` in sats: must be 0, because only invoices that carry an amount are paid. */
  amountSats: number
  expectedFees?: { serviceFeeFloor: number; serviceFeeBps: number }
  /** Checked inside the transaction that debits the payer (door.ts SpendLimit). */
  spendLimit?: SpendLimit
}

export interface PaidInvoice {
  payment: PaymentRow
  /** The payer's balance right after this payment. */
  payerBalanceMsat: number
}

export interface InvoicePayerDeps {
  node: LightningNode
  accounts: AccountStore
  invoices: InvoiceStore
  payments: PaymentStore
  /** The debit (and, internally, the whole payment) commits with whatever else arrives at the same moment. */
  commits: GroupCommit
  resolution: PaymentResolution
  collectors: FeeCollectors
  /** What a spend limit reads of the wallet's payments, inside the paying transaction. */
  sums: PaymentSums
  gate: OutgoingGate
  fees: FeePolicy
  emit(event: DomainEvent): void
  now(): number
  log: Logger
}

type Target = { internal: InvoiceRow } | { external: DecodedInvoice }

export function invoicePayer(deps: InvoicePayerDeps) {
  const { node, invoices, payments, commits, resolution, collectors, fees, emit, now } = deps
  let ownPubkey: Promise<string> | undefined

  /**
   * Our own invoices are found by their text without decoding (no signature check on the hot path). Anyone can
   * sign an invoice with a copied payment hash; one that copies the hash of an invoice of ours is refused here,
   * before anything is written: paid internally it would settle our invoice for another amount, and sent to the
   * node it would tie up the hash our invoice needs.
   */
  const target = async (text: string): Promise<Target> => {
    const own = await invoices.byRequest(text)
    if (own) return { internal: own }
    const decoded = await node.decodeInvoice(text.trim())
    const sameHash = await invoices.byHash(decoded.paymentHash)
    if (!sameHash) return { external: decoded }
    // Signed by our node (which issues one invoice per hash) for the same amount: our invoice in another spelling.
    const ours = decoded.payeePubkey === (await (ownPubkey ??= node.getInfo().then(info => info.pubkey)))
    if (ours && decoded.amountMsat === sameHash.amount_msat) return { internal: sameHash }
    throw new OperationError('invalid_input', refusals.copiedHash)
  }

  const termsFor = async (payerId: string, t: Target, request: PayInvoiceRequest): Promise<PaymentTerms> => {
    const amountMsat = 'internal' in t ? t.internal.amount_msat : t.external.amountMsat
    if (!amountMsat) throw new OperationError('invalid_input', 'invoice has no amount')
    // Upstream's text, typo included: clients match on it.
    if (request.amountSats !== 0) {
      throw new OperationError('invalid_input', 'invoice has value, do not provide amount the the request')
    }
    const expiresAt = 'internal' in t ? t.internal.expires_at : t.external.expiresAt
    if (now() >= expiresAt) throw new OperationError('invalid_input', 'this invoice has expired')
    const expected = request.expectedFees
    if (expected && (expected.serviceFeeBps !== fees.serviceFeeBps || expected.serviceFeeFloor !== fees.serviceFeeFloorSats)) {
      throw new OperationError('invalid_input', 'fees do not match the expected fees')
    }
    // Fees are whole sats on the wire; a sub-sat amount is rounded up before the rate applies.
    const serviceFeeMsat = (await collectors.isAppOwner(payerId))
      ? 0
      : serviceFeeSats(Math.ceil(amountMsat / msatPerSat), fees) * msatPerSat
    return {
      payerId,
      paymentHash: 'internal' in t ? t.internal.payment_hash : t.external.paymentHash,
      paymentRequest: 'internal' in t ? t.internal.payment_request : t.external.paymentRequest,
      amountMsat,
      serviceFeeMsat,
      feeCollectorId: serviceFeeMsat > 0 ? await collectors.collectorFor(payerId) : null,
      at: now(),
    }
  }

  const payInternally = async (terms: PaymentTerms, invoice: InvoiceRow, limit?: TransactionLimit): Promise<PaidInvoice> => {
    const paid = await commits.run(tx => payments.payInternally(tx, terms, invoice, limit))
    emit({
      type: 'payment.settled',
      walletId: terms.payerId,
      paymentHash: terms.paymentHash,
      amountMsat: terms.amountMsat,
      feeMsat: terms.serviceFeeMsat,
      settledAt: terms.at,
      internal: true,
    })
    emit({
      type: 'user.operation',
      userId: terms.payerId,
      operation: paymentOperation(paid.payment),
      latestBalanceSats: msatAsSats(paid.payerBalanceMsat),
    })
    for (const event of invoicePaidEvents(paid.invoice, paid.receiverBalanceMsat)) emit(event)
    return { payment: paid.payment, payerBalanceMsat: paid.payerBalanceMsat }
  }

  const payExternally = async (terms: PaymentTerms, paymentRequest: string, limit?: TransactionLimit): Promise<PaidInvoice> => {
    const maxFeeMsat = routingFeeLimitSats(Math.ceil(terms.amountMsat / msatPerSat), fees) * msatPerSat
    const started = await commits.run(tx => payments.startExternal(tx, terms, maxFeeMsat, limit))
    const pending = started.payment
    emit({
      type: 'user.operation',
      userId: terms.payerId,
      operation: paymentOperation(pending),
      latestBalanceSats: msatAsSats(started.payerBalanceMsat),
    })
    let outcome
    try {
      outcome = await node.pay({ paymentRequest, maxFeeMsat, timeoutMs: payTimeoutMs })
    } catch (err) {
      // The node's contract: a thrown OperationError means it refused up front and sent nothing.
      if (isOperationError(err)) {
        await resolveOrWatch(pending, () => resolution.refund(pending, err.message))
        throw err
      }
      deps.log.error({ err, paymentHash: terms.paymentHash }, 'the node failed while paying; the payment stays pending')
      resolution.watch(pending)
      throw new OperationError('upstream_failed', 'the payment outcome is not known yet; GetPaymentState will show it')
    }
    switch (outcome.status) {
      case 'succeeded': {
        const settled = await resolveOrWatch(pending, () => resolution.settle(pending, outcome))
        if (settled) return settled
        // Resolved meanwhile by a tracker that asked the node first.
        const current = (await payments.bySerial(pending.serial))!
        return { payment: current, payerBalanceMsat: (await deps.accounts.userById(terms.payerId))!.balance_msat }
      }
      case 'failed':
        await resolveOrWatch(pending, () => resolution.refund(pending, outcome.failureReason))
        throw new OperationError('upstream_failed', outcome.failureReason)
      case 'in_flight':
        resolution.watch(pending)
        throw new OperationError('upstream_failed', 'the payment is still in flight; GetPaymentState will show its outcome')
    }
  }

  /**
   * Settles or refunds a payment the node has answered for. When that commit fails (the database's session dropped,
   * say), the payment stays pending with its sats reserved: the tracker asks the node again and applies the answer,
   * as after a restart, rather than leaving it pending until the next start. The caller is told of the failure.
   */
  const resolveOrWatch = async <T>(pending: PaymentRow, resolve: () => Promise<T>): Promise<T> => {
    try {
      return await resolve()
    } catch (err) {
      resolution.watch(pending)
      throw err
    }
  }

  return {
    /** Pays `request.invoice` from wallet `payerId`; throws OperationError (having moved nothing) on refusal. */
    async pay(payerId: string, request: PayInvoiceRequest): Promise<PaidInvoice> {
      await deps.gate.whenOpen()
      const payer = await deps.accounts.userById(payerId)
      if (!payer) throw new OperationError('not_found', 'wallet not found')
      if (payer.locked) throw new OperationError('forbidden', refusals.locked)
      if (!Number.isSafeInteger(request.amountSats) || request.amountSats < 0) {
        throw new OperationError('invalid_input', 'amount must not be negative')
      }
      const t = await target(request.invoice)
      const terms = await termsFor(payerId, t, request)
      const callerLimit = request.spendLimit
      const limit: TransactionLimit | undefined = callerLimit && ((tx, paying) => callerLimit(tx, paying, deps.sums))
      if ('internal' in t) return payInternally(terms, t.internal, limit)
      return payExternally(terms, t.external.paymentRequest, limit)
    },
  }
}

export type InvoicePayer = ReturnType<typeof invoicePayer>
