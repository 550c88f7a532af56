// Paying from the embedded node. Its own invoices settle internally (fee 0, the real preimage). It has no
// channels to the Lightning network, so any other invoice fails, unless simulate_payments is on: then the
// payment stays in flight for a short injected delay and succeeds with a small routing fee, for demos.
import { bytesToHex } from '@noble/hashes/utils.js'
import type { Logger } from 'pino'
import { type Clock, OperationError } from '../../bus/index.js'
import type { Db } from '../../store/index.js'
import type { PaymentOutcome, PayRequest, SettledInvoice, Timers } from '../lightning-node.js'
import { decodeInvoice } from './bolt11-invoice.js'
import { amountToPayMsat, checkPayLimits } from '../pay-request-rules.js'
import type { InvoiceBook } from './invoices.js'
import type { NodeKey } from './node-key.js'
import type { NetworkParams } from './network-params.js'

export const notConnectedReason = 'the embedded node is not connected to the Lightning network'
/** A simulated route costs 1 sat plus 0.1% (rounded up to the msat), like a short route of cheap channels. */
const simulatedBaseFeeMsat = 1000
const simulatedFeeRatePpm = 1000

type Route = 'self' | 'simulated' | 'none'

interface PaymentRow {
  payment_hash: string
  amount_msat: number
  fee_msat: number
  status: 'in_flight' | 'succeeded' | 'failed'
  preimage: string | null
  failure_reason: string | null
  resolved_at: number | null
}

export interface PaymentDeskDeps {
  db: Db
  key: NodeKey
  params: NetworkParams
  invoices: InvoiceBook
  clock: Clock
  random(bytes: number): Uint8Array
  timers: Timers
  simulatePayments: boolean
  simulatedDelayMs: number
  /** Called after commit for each of our invoices a payment settled. */
  onSettled(settled: SettledInvoice): void
  log?: Logger
}

export function simulatedFeeMsat(amountMsat: number): number {
  return simulatedBaseFeeMsat + Math.ceil((amountMsat * simulatedFeeRatePpm) / 1_000_000)
}

export function paymentDesk(deps: PaymentDeskDeps) {
  const { db, key, params, invoices, clock, random, timers } = deps
  const byHash = db.prepare('SELECT * FROM node_payments WHERE payment_hash = ?')
  const upsert = db.prepare(`INSERT INTO node_payments
      (payment_hash, payment_request, amount_msat, fee_msat, route, status, preimage, failure_reason,
       created_at, resolved_at)
      VALUES (@paymentHash, @paymentRequest, @amountMsat, @feeMsat, @route, @status, @preimage, @failureReason,
              @createdAt, @resolvedAt)
      ON CONFLICT (payment_hash) DO UPDATE SET payment_request = excluded.payment_request,
        amount_msat = excluded.amount_msat, fee_msat = excluded.fee_msat, route = excluded.route,
        status = excluded.status, preimage = excluded.preimage, failure_reason = excluded.failure_reason,
        created_at = excluded.created_at, resolved_at = excluded.resolved_at`)
  const succeed = db.prepare(`UPDATE node_payments SET status = 'succeeded', preimage = @preimage,
      resolved_at = @resolvedAt WHERE payment_hash = @paymentHash AND status = 'in_flight'`)
  const inFlight = db.prepare(`SELECT payment_hash FROM node_payments WHERE status = 'in_flight'`)

  // Everything that must stop when the node closes: timers, and callers still waiting for an outcome.
  const cancels = new Set<() => void>()
  const waiting = new Set<() => void>()

  const outcomeOf = (row: PaymentRow): PaymentOutcome => {
    switch (row.status) {
      case 'succeeded':
        return {
          status: 'succeeded',
          paymentHash: row.payment_hash,
          amountMsat: row.amount_msat,
          feeMsat: row.fee_msat,
          preimage: row.preimage!,
          settledAt: row.resolved_at!,
        }
      case 'failed':
        return { status: 'failed', paymentHash: row.payment_hash, failureReason: row.failure_reason! }
      case 'in_flight':
        return { status: 'in_flight', paymentHash: row.payment_hash }
    }
  }

  const record = (row: {
    paymentHash: string
    paymentRequest: string
    amountMsat: number
    feeMsat: number
    route: Route
    status: PaymentRow['status']
    preimage?: string
    failureReason?: string
  }): PaymentOutcome => {
    const now = clock.now()
    upsert.run({
      preimage: null,
      failureReason: null,
      ...row,
      createdAt: now,
      resolvedAt: row.status === 'in_flight' ? null : now,
    })
    return outcomeOf(byHash.get(row.paymentHash) as PaymentRow)
  }

  // Checks, then records the attempt, in one transaction: two concurrent pays of one invoice cannot both start.
  const start = db.transaction(
    (request: PayRequest): { outcome: PaymentOutcome; settled?: SettledInvoice; simulated?: true } => {
      const invoice = decodeInvoice(request.paymentRequest, params)
      if (clock.now() >= invoice.expiresAt) throw new OperationError('invalid_input', 'invoice expired')
      const amountMsat = amountToPayMsat(invoice.amountMsat, request.amountMsat)
      const previous = byHash.get(invoice.paymentHash) as PaymentRow | undefined
      // LND's wording (channeldb ErrAlreadyPaid, ErrPaymentInFlight); a failed attempt may be retried.
      if (previous?.status === 'succeeded') throw new OperationError('conflict', 'invoice is already paid')
      if (previous?.status === 'in_flight') throw new OperationError('conflict', 'payment is in transition')
      const attempt = { paymentHash: invoice.paymentHash, paymentRequest: invoice.paymentRequest, amountMsat }

      if (invoice.payeePubkey === key.pubkey) {
        const preimage = invoices.preimageOf(invoice.paymentHash)
        if (preimage === undefined) {
          // The HTLC would reach us and be refused: LND's FAILURE_REASON_INCORRECT_PAYMENT_DETAILS.
          const failureReason = 'incorrect payment details: this node issued no invoice with that payment hash'
          return { outcome: record({ ...attempt, feeMsat: 0, route: 'self', status: 'failed', failureReason }) }
        }
        const settled = invoices.settle(invoice.paymentHash, amountMsat)
        return { outcome: record({ ...attempt, feeMsat: 0, route: 'self', status: 'succeeded', preimage }), settled }
      }

      if (!deps.simulatePayments) {
        const failureReason = notConnectedReason
        return { outcome: record({ ...attempt, feeMsat: 0, route: 'none', status: 'failed', failureReason }) }
      }
      const feeMsat = simulatedFeeMsat(amountMsat)
      if (feeMsat > request.maxFeeMsat) {
        const failureReason = `no route found within the fee limit of ${request.maxFeeMsat} msat`
        return { outcome: record({ ...attempt, feeMsat: 0, route: 'simulated', status: 'failed', failureReason }) }
      }
      return { outcome: record({ ...attempt, feeMsat, route: 'simulated', status: 'in_flight' }), simulated: true }
    },
  )

  // A foreign preimage is unknowable offline; the simulated one is random and does not hash to the payment hash.
  const completeSimulated = (paymentHash: string): void => {
    succeed.run({ paymentHash, preimage: bytesToHex(random(32)), resolvedAt: clock.now() })
  }

  const after = (ms: number, fn: () => void): (() => void) => {
    const cancel = timers.after(ms, () => {
      cancels.delete(cancel)
      fn()
    })
    cancels.add(cancel)
    return () => {
      cancels.delete(cancel)
      cancel()
    }
  }

  return {
    async pay(request: PayRequest): Promise<PaymentOutcome> {
      checkPayLimits(request)
      const { outcome, settled, simulated } = start(request)
      if (settled) deps.onSettled(settled)
      if (!simulated) return outcome
      const paymentHash = outcome.paymentHash
      return new Promise<PaymentOutcome>(resolve => {
        let answered = false
        let stopTimeout = () => {}
        const answer = (result: PaymentOutcome) => {
          if (answered) return
          answered = true
          waiting.delete(giveUp)
          stopTimeout()
          resolve(result)
        }
        const giveUp = () => answer({ status: 'in_flight', paymentHash })
        waiting.add(giveUp)
        // Delivery goes on after a timeout: the caller learns the outcome from trackPayment.
        after(deps.simulatedDelayMs, () => {
          try {
            completeSimulated(paymentHash)
            answer(outcomeOf(byHash.get(paymentHash) as PaymentRow))
          } catch (err) {
            // Stays in flight in the store; the next start completes it.
            deps.log?.error({ err, paymentHash }, 'simulated payment could not be completed')
            giveUp()
          }
        })
        stopTimeout = after(request.timeoutMs, giveUp)
      })
    },

    track(paymentHash: string): PaymentOutcome | undefined {
      const row = byHash.get(paymentHash.toLowerCase()) as PaymentRow | undefined
      return row && outcomeOf(row)
    },

    /** A simulated payment interrupted by a stop is delivered at the next start, as the network would have. */
    completeInterrupted(): void {
      for (const row of inFlight.all() as { payment_hash: string }[]) completeSimulated(row.payment_hash)
    },

    /** Stops every timer; callers still waiting are told `in_flight`. */
    close(): void {
      for (const cancel of [...cancels]) cancel()
      cancels.clear()
      for (const giveUp of [...waiting]) giveUp()
    },
  }
}
