// One subscriber's settlements over LND's SubscribeInvoices, in settle-index order and each once, across drops.
// LND replays every settlement above the settle_index a subscription names before it goes live, under the lock its
// live notifications take (invoiceregistry.go, deliverBacklogEvents), so a start from a stored index costs what
// was missed, not the history. Only a subscriber with no index yet has LND's whole list read: LND replays
// nothing from index 0. The stream drops when LND restarts or the network blips; it resubscribes after a backoff
// from the last index it passed on, and anything at or below that index is a duplicate.
//
// The replay is not always in settle-index order. A node on bbolt replays by its settle index; a node whose
// invoices are in native SQL tables (`db.use-native-sql` on SQLite or PostgreSQL) replays in the order the invoices
// were added (`ORDER BY id`), then its AMP payments. The subscriber stores the last index it was given as the place
// to resume from, so passing on a later settlement before an earlier one would lose the earlier one for good. So
// settlements are passed on strictly in index order: one that arrives ahead is held until those before it have
// come. An index that names no invoice to pass on (an AMP payment, which leaves its invoice open) fills its place
// without being passed on. A hole nothing fills within `holeWaitMs` (a replay arrives at once, so this is a gap in
// LND's own numbering) is logged and stepped over.
import type { Logger } from 'pino'
import type { Clock } from '../../bus/index.js'
import type { SettledInvoice, Timers } from '../lightning-node.js'
import type { LndInvoiceDesk } from './invoices.js'
import { describeLndFailure } from './lnd-errors.js'
import type { GrpcChannel, GrpcServerStream } from './grpc-channel.js'
import { decodeInvoiceUpdate, encodeInvoiceSubscription, type InvoiceUpdate } from './rpc-messages.js'
import { backoffDelayMs, maxReconnectDelayMs } from './reconnect-backoff.js'

export interface InvoiceStreamDeps {
  rpc: GrpcChannel
  invoices: LndInvoiceDesk
  clock: Clock
  timers: Timers
  log?: Logger
}

/** How long settlements wait behind a missing settle index before the stream steps over it. */
export const holeWaitMs = 5_000

export interface InvoiceStream {
  /** Drops the subscription and any pending reconnect; `next` is not called again. */
  close(): void
}

/**
 * Calls `next` with every settlement above `after`, oldest first, then with each new one. With 'now', the first
 * subscription asks LND for nothing older; a stream that drops before its first settlement has no index to
 * resume from, so it reads the list and may then pass on settlements from before it started.
 */
export function invoiceStream(
  { rpc, invoices, clock, timers, log }: InvoiceStreamDeps,
  after: number | 'now',
  next: (settled: SettledInvoice) => void,
): InvoiceStream {
  // The last settle index passed on (or stepped over): everything at or below it is done.
  let cursor = after === 'now' ? 0 : after
  // With 'now', the first live settlement says where the numbering stands.
  let anchored = after !== 'now'
  // Arrived ahead of cursor + 1, by index; undefined for an index that fills its place without a settlement.
  const held = new Map<number, SettledInvoice | undefined>()
  let cancelHoleWait: (() => void) | undefined
  let failures = 0
  let subscription: GrpcServerStream<InvoiceUpdate> | undefined
  let cancelRetry: (() => void) | undefined
  let closed = false
  // Each connection attempt; callbacks of an attempt that was given up on change nothing.
  let attempt = 0

  const passOnInOrder = () => {
    while (!closed && held.has(cursor + 1)) {
      const settled = held.get(cursor + 1)
      held.delete(cursor + 1)
      cursor++
      if (settled) next(settled)
    }
    if (held.size === 0) {
      cancelHoleWait?.()
      cancelHoleWait = undefined
    } else if (!cancelHoleWait) {
      cancelHoleWait = timers.after(holeWaitMs, stepOverHole)
    }
  }

  const stepOverHole = () => {
    cancelHoleWait = undefined
    if (closed || held.size === 0) return
    // A loop, not Math.min(...keys): a backlog held behind a hole may be larger than a call's argument list.
    let nextHeld = Infinity
    for (const index of held.keys()) if (index < nextHeld) nextHeld = index
    log?.warn({ missingFrom: cursor + 1, missingTo: nextHeld - 1, waiting: held.size }, "LND's settle indexes skip some; passing on the settlements after them")
    cursor = nextHeld - 1
    passOnInOrder()
  }

  /** A settle index reached: with the settlement to pass on, or undefined for one that only fills its place. */
  const arrive = (settleIndex: number, settled?: SettledInvoice) => {
    if (closed) return
    if (!anchored) {
      // Only a settlement says where a live start stands.
      if (!settled) return
      anchored = true
      cursor = settleIndex - 1
    }
    if (settleIndex <= cursor || held.has(settleIndex)) return
    held.set(settleIndex, settled)
    passOnInOrder()
  }
  const emit = (settled: SettledInvoice) => arrive(settled.settleIndex, settled)

  const drop = () => {
    attempt++
    // What was held is replayed by the next subscription, which starts from the cursor.
    held.clear()
    cancelHoleWait?.()
    cancelHoleWait = undefined
    const sub = subscription
    subscription = undefined
    if (!sub) return
    sub.removeAllListeners()
    // Cancelling ends the call with a CANCELLED 'error' that nobody waits for any more.
    sub.on('error', () => undefined)
    sub.cancel()
  }

  const retryLater = (err: unknown, since: number) => {
    drop()
    if (closed) return
    // A stream that lived longer than the longest delay was healthy: start the backoff over.
    failures = clock.now() - since >= maxReconnectDelayMs ? 1 : failures + 1
    const delayMs = backoffDelayMs(failures)
    const failure = err === undefined ? { name: 'StreamEnded' } : describeLndFailure(err)
    log?.warn({ failure, settleIndex: cursor, retryInMs: delayMs }, 'LND invoice stream dropped; will resubscribe')
    cancelRetry = timers.after(delayMs, () => {
      cancelRetry = undefined
      void connect(false)
    })
  }

  /**
   * SubscribeInvoices from `from` (0: live only); settlements go to `onSettled`. LND sends every invoice it adds
   * too: those are read no further than their state (rpc-messages.ts).
   */
  const subscribe = (from: number, onSettled: (settled: SettledInvoice) => void) => {
    const mine = attempt
    const connectedAt = clock.now()
    const sub = rpc.serverStream('/lnrpc.Lightning/SubscribeInvoices', encodeInvoiceSubscription, decodeInvoiceUpdate, from)
    subscription = sub
    sub.on('data', update => {
      failures = 0
      for (const index of update.ampSettleIndexes) if (mine === attempt) arrive(index)
      if (!update.settled || !update.settleIndex || !update.settleDate) return
      onSettled({
        paymentHash: update.paymentHash,
        paymentRequest: update.paymentRequest,
        amountMsat: update.amountPaidMsat,
        settledAt: update.settleDate * 1000,
        settleIndex: update.settleIndex,
      })
    })
    // LND ending the stream (it stops or restarts) is a drop like an error.
    sub.on('error', err => {
      if (mine === attempt) retryLater(err, connectedAt)
    })
    sub.on('end', () => {
      if (mine === attempt) retryLater(undefined, connectedAt)
    })
  }

  const connect = async (first: boolean): Promise<void> => {
    if (closed) return
    if (cursor > 0) return subscribe(cursor, emit)
    if (first && after === 'now') return subscribe(0, emit)
    // No index to resume from. Live first, and held while the list is read, so that nothing settled during the
    // read is lost. LND may still register the subscription after it has listed; settle indexes count up one by
    // one, so a first live settlement that skips one says so, and the stream resubscribes from the list's last.
    const mine = attempt
    const since = clock.now()
    let listing: SettledInvoice[] | undefined = []
    let firstLive = true
    const live = (settled: SettledInvoice) => {
      if (listing) return void listing.push(settled)
      if (settled.settleIndex <= cursor) return
      if (firstLive) {
        firstLive = false
        if (settled.settleIndex > cursor + 1) {
          drop()
          void connect(false)
          return
        }
      }
      emit(settled)
    }
    subscribe(0, live)
    let listed: SettledInvoice[]
    try {
      listed = await invoices.allSettled(() => closed || mine !== attempt)
    } catch (err) {
      if (mine === attempt) retryLater(err, since)
      return
    }
    if (mine !== attempt) return
    for (const settled of listed) emit(settled)
    const waiting = listing
    listing = undefined
    for (const settled of waiting) live(settled)
  }

  void connect(true)

  return {
    close() {
      if (closed) return
      closed = true
      cancelRetry?.()
      drop()
    },
  }
}
