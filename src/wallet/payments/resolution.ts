// Turning what the node says about an external payment into money: succeeded → settle, failed → refund, and
// in flight → ask again later. A refund happens only when the node is certain nothing was paid: it reported the
// payment failed, or it has no record of ever attempting it. Pending payments left by a stop or a crash are
// resolved the same way, in the background from the start on.
import type { Logger } from 'pino'
import type { DomainEvent } from '../../bus/index.js'
import type { LightningNode, PaymentOutcome, Timers } from '../../node/index.js'
import type { GroupCommit } from '../group-commit.js'
import { msatAsSats } from '../../units/index.js'
import { paymentOperation, type PaymentRow, type PaymentStore, type Resolved } from './store.js'

/** Re-asks about an in-flight payment after 1 s, 2 s, 4 s … up to this. */
const maxTrackDelayMs = 60_000
/** Payments left pending by the last run that are asked about at once (each is one TrackPaymentV2 stream). */
const reconcileParallelism = 16
export const neverAttemptedReason = 'the node has no record of sending this payment'

export interface ReconcileCounts {
  settled: number
  refunded: number
  inFlight: number
}

export interface ResolutionDeps {
  store: PaymentStore
  /**
   * A settlement commits in the wallet's shared transaction: on its own, under `synchronous = full`, each paid for
   * an fsync on the event loop (the largest cost of an external payment). Its events wait for the shared commit.
   */
  commits: GroupCommit
  node: LightningNode
  emit(event: DomainEvent): void
  timers: Timers
  now(): number
  log: Logger
}

export function paymentResolution({ store, commits, node, emit, timers, now, log }: ResolutionDeps) {
  const tracking = new Map<number, () => void>()
  let stopped = false

  const announce = (resolved: Resolved) => {
    const { payment } = resolved
    if (payment.status === 'succeeded') {
      emit({
        type: 'payment.settled',
        walletId: payment.user_id,
        paymentHash: payment.payment_hash,
        amountMsat: payment.amount_msat,
        feeMsat: payment.service_fee_msat,
        settledAt: payment.resolved_at!,
        internal: payment.internal === 1,
      })
    } else {
      emit({
        type: 'payment.failed',
        walletId: payment.user_id,
        paymentHash: payment.payment_hash,
        amountMsat: payment.amount_msat,
        reason: payment.failure_reason ?? '',
        failedAt: payment.resolved_at!,
      })
    }
    emit({
      type: 'user.operation',
      userId: payment.user_id,
      operation: paymentOperation(payment),
      latestBalanceSats: msatAsSats(resolved.payerBalanceMsat),
    })
  }

  const settle = async (payment: PaymentRow, outcome: Extract<PaymentOutcome, { status: 'succeeded' }>) => {
    const resolved = await commits.run(tx =>
      store.settle(tx, payment.serial, {
        routingFeeMsat: outcome.feeMsat,
        preimage: outcome.preimage,
        at: outcome.settledAt,
      }),
    )
    if (resolved) announce(resolved)
    return resolved
  }

  const refund = async (payment: PaymentRow, reason: string) => {
    const resolved = await commits.run(tx => store.refund(tx, payment.serial, { reason, at: now() }))
    if (resolved) announce(resolved)
    return resolved
  }

  /** Applies a tracked outcome; `undefined` (never attempted) refunds. Returns false while still in flight. */
  const apply = async (payment: PaymentRow, outcome: PaymentOutcome | undefined): Promise<boolean> => {
    if (outcome === undefined) await refund(payment, neverAttemptedReason)
    else if (outcome.status === 'succeeded') await settle(payment, outcome)
    else if (outcome.status === 'failed') await refund(payment, outcome.failureReason)
    else return false
    return true
  }

  const watch = (payment: PaymentRow, delayMs = 1000): void => {
    if (stopped || tracking.has(payment.serial)) return
    const cancel = timers.after(delayMs, () => {
      tracking.delete(payment.serial)
      node
        .trackPayment(payment.payment_hash)
        .then(async outcome => {
          if (!stopped && !(await apply(payment, outcome))) watch(payment, Math.min(delayMs * 2, maxTrackDelayMs))
        })
        .catch(err => {
          if (stopped) return
          log.warn({ err, paymentHash: payment.payment_hash }, 'could not track a pending payment; asking again later')
          watch(payment, Math.min(delayMs * 2, maxTrackDelayMs))
        })
    })
    tracking.set(payment.serial, cancel)
  }

  return {
    settle,
    refund,
    watch,
    /**
     * Resolves every payment left pending by a stop or a crash, in the background: the list is taken now, before
     * this run can start a payment of its own (one the node has not heard of yet must not be refunded as never
     * attempted), and the node is asked about a few at a time. LND may take its whole answer timeout over a
     * payment that is still pathfinding, so the start does not wait. Until a payment resolves it stays pending:
     * its sats stay reserved, GetPaymentState shows it in flight, and paying its invoice again is refused; settle
     * and refund each move a payment only out of `pending`, so this, a watch and a late answer cannot both apply.
     * A crash meanwhile leaves the rest pending for the next start; so does a stop (`done` then gives undefined).
     */
    async reconcilePending(): Promise<{ pending: number; done: Promise<ReconcileCounts | undefined> }> {
      const queue = await store.pending()
      const pending = queue.length
      const counts: ReconcileCounts = { settled: 0, refunded: 0, inFlight: 0 }
      const reconcile = async (payment: PaymentRow) => {
        try {
          const outcome = await node.trackPayment(payment.payment_hash)
          if (stopped) return
          if (!(await apply(payment, outcome))) {
            counts.inFlight++
            watch(payment)
          } else if (outcome?.status === 'succeeded') counts.settled++
          else counts.refunded++
        } catch (err) {
          if (stopped) return
          log.warn({ err, paymentHash: payment.payment_hash }, 'could not track a pending payment; asking again later')
          counts.inFlight++
          watch(payment)
        }
      }
      const worker = async () => {
        for (let payment = queue.shift(); payment && !stopped; payment = queue.shift()) await reconcile(payment)
      }
      const workers = Array.from({ length: Math.min(reconcileParallelism, pending) }, worker)
      return { pending, done: Promise.all(workers).then(() => (stopped ? undefined : counts)) }
    },
    stop(): void {
      stopped = true
      for (const cancel of tracking.values()) cancel()
      tracking.clear()
    },
  }
}

export type PaymentResolution = ReturnType<typeof paymentResolution>
