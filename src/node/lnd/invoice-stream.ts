// The settled-invoice stream over LND's SubscribeInvoices. The stream drops when LND restarts or the network
// blips; every settlement must still reach the daemon exactly once. We keep the highest settle index seen (at
// start, the highest in LND's invoice list) and resubscribe after a backoff with `confirmed_after` set to it:
// LND then replays every settlement above it before going live, and anything at or below it is a duplicate.
import type { EventEmitter } from 'node:events'
import type { Logger } from 'pino'
import { Subject, type Observable } from '../../bus/rx.js'
import { subscribeToInvoices, type AuthenticatedLnd } from 'lightning'
import type { Clock } from '../../bus/context.js'
import type { SettledInvoice, Timers } from '../lightning-node.js'
import type { LndInvoiceDesk, LndInvoice } from './invoices.js'
import { settlementFromLnd } from './invoices.js'
import { describeLndFailure } from './lnd-errors.js'
import { backoffDelayMs, maxReconnectDelayMs } from './reconnect-backoff.js'

export interface InvoiceStreamDeps {
  lnd: AuthenticatedLnd
  invoices: LndInvoiceDesk
  clock: Clock
  timers: Timers
  log?: Logger
}

export interface InvoiceStream {
  readonly settled$: Observable<SettledInvoice>
  /** Reads the current highest settle index, then subscribes. */
  start(): Promise<void>
  /** Drops the subscription and any pending reconnect, and completes settled$. */
  close(): void
}

export function invoiceStream({ lnd, invoices, clock, timers, log }: InvoiceStreamDeps): InvoiceStream {
  const settled$ = new Subject<SettledInvoice>()
  let cursor = 0
  let failures = 0
  let subscription: EventEmitter | undefined
  let cancelRetry: (() => void) | undefined
  let closed = false

  const emit = (settlement: SettledInvoice | undefined) => {
    if (!settlement || settlement.settleIndex <= cursor) return
    cursor = settlement.settleIndex
    settled$.next(settlement)
  }

  const retryLater = (err: unknown, since: number) => {
    if (closed) return
    // A stream that lived longer than the longest delay was healthy: start the backoff over.
    failures = clock.now() - since >= maxReconnectDelayMs ? 1 : failures + 1
    const delayMs = backoffDelayMs(failures)
    const failure = err === undefined ? { name: 'StreamEnded' } : describeLndFailure(err)
    log?.warn({ failure, settleIndex: cursor, retryInMs: delayMs }, 'LND invoice stream dropped; will resubscribe')
    cancelRetry = timers.after(delayMs, () => {
      cancelRetry = undefined
      void reconnect()
    })
  }

  const subscribe = () => {
    const connectedAt = clock.now()
    const sub = subscribeToInvoices({ lnd, ...(cursor > 0 ? { confirmed_after: cursor } : {}) })
    subscription = sub
    sub.on('invoice_updated', (invoice: LndInvoice) => {
      failures = 0
      emit(settlementFromLnd(invoice))
    })
    // The library restarts a dropped subscription on its own after a fixed 30 s, from cursors it may lose (an
    // add event clears its settle cursor). Removing every listener here, synchronously, ends its loop, so the
    // restart is ours: with backoff, from our cursor. An 'error' without a reason is a stream LND ended.
    sub.on('error', (err: unknown) => {
      sub.removeAllListeners()
      subscription = undefined
      retryLater(err, connectedAt)
    })
  }

  const reconnect = async () => {
    if (closed) return
    const since = clock.now()
    try {
      // LND replays settlements only above a settle index of 1 or more: with none seen yet, read the list.
      if (cursor === 0) for (const settlement of await invoices.settledAfter(0)) emit(settlement)
    } catch (err) {
      retryLater(err, since)
      return
    }
    if (!closed) subscribe()
  }

  return {
    settled$: settled$.asObservable(),
    async start() {
      const known = await invoices.settledAfter(0)
      cursor = known.at(-1)?.settleIndex ?? 0
      subscribe()
    },
    close() {
      if (closed) return
      closed = true
      cancelRetry?.()
      subscription?.removeAllListeners()
      subscription = undefined
      settled$.complete()
    },
  }
}
