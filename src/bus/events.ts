// Domain events: facts that something happened, emitted after the transaction that made them commits.
// Side effects that are not the caller's answer (pushes, callbacks, extension listeners, metrics) subscribe here.
import { Subject, filter, type Observable, type OperatorFunction } from '../vendor/rxjs.js'

export type DomainEvent =
  | {
      type: 'invoice.paid'
      walletId: string
      paymentHash: string
      amountMsat: number
      extra: Record<string, unknown> | null
      paidAt: number
      internal: boolean
      /**
       * The invoice carries a NIP-57 zap request: the receipt publisher looks the invoice up only then. The wallet
       * always says; absent means not known, and a listener looks the invoice up.
       */
      zap?: boolean
      /**
       * The invoice was made for a CLINK offer: the receipt book looks for an owed receipt only then. The wallet
       * always says; absent means not known, and the book looks.
       */
      offer?: boolean
      /** The callback URL given when the invoice was made ('' when none: the wallet's saved one applies). */
      callbackUrl?: string
    }
  | { type: 'payment.settled'; walletId: string; paymentHash: string; amountMsat: number; feeMsat: number; settledAt: number; internal: boolean }
  | { type: 'payment.failed'; walletId: string; paymentHash: string; amountMsat: number; reason: string; failedAt: number }
  | { type: 'user.operation'; userId: string; operation: Record<string, unknown>; latestBalanceSats: number }
  /** A push on one of the user streams (GetLiveDebitRequests, GetLiveManageRequests): sent to the user's linked key. */
  | { type: 'user.push'; userId: string; stream: string; payload: Record<string, unknown> }
  /** An application was created while running: its key answers requests from now on (the relay transport listens). */
  | { type: 'app.added'; appId: string; pubkey: string }
  /** An NWC connection was made or changed: the relay transport serves its key and publishes its info. */
  | { type: 'nwc.connection'; servicePubkey: string }
  /**
   * A CLINK message the room sends on its own (a receipt, the answer to a request the user decided later): the relay
   * transport encrypts it (NIP-44 v2) to `to` and publishes it on `kind`, tagged `e` = `replyTo`, signed by the app.
   */
  | {
      type: 'clink.answer'
      appId: string
      to: string
      kind: number
      replyTo: string
      payload: Record<string, unknown>
      clinkVersion?: boolean
    }

export type EventType = DomainEvent['type']
export type EventOf<T extends EventType> = Extract<DomainEvent, { type: T }>

export interface EventBus {
  events$: Observable<DomainEvent>
  emit(event: DomainEvent): void
  complete(): void
}

export function createEventBus(): EventBus {
  const subject = new Subject<DomainEvent>()
  return {
    events$: subject.asObservable(),
    emit: event => subject.next(event),
    complete: () => subject.complete(),
  }
}

/** Narrows the event stream to one event type. */
export function ofType<T extends EventType>(type: T): OperatorFunction<DomainEvent, EventOf<T>> {
  return filter((event): event is EventOf<T> => event.type === type)
}
