// Stream subscriptions over the relay. A subscription request goes through the
// dispatcher like any call (auth, validation, metrics, the access line); its handler's Observable — the domain
// room's items for that caller — is kept open here and each item is pushed to the subscriber's key with
// requestId = the stream's name. The subscription itself answers nothing (an ERROR if it is refused).
//
// Upstream pushes a user's streams to the key linked to the user whether or not it subscribed, and clients rely on
// it, so pushes.ts keeps sending to linked keys; it skips a key while that key holds a subscription here to the
// same stream, so each item reaches a key once. One subscription per (app, key, stream): a client subscribes again
// on every reconnect, and the new one replaces the old. Past the cap the oldest is closed: its key falls back to
// the linked-key pushes, which carry the same items, so the cap bounds the per-event work a stranger can add
// without losing anything a subscriber would have had.
import type { Logger } from 'pino'
import { type Subscription, type Dispatcher, isOperationError } from '../../bus/index.js'
import type { AppKey, CipherScheme, StoredReply } from '../../nostr-codecs/index.js'
import type { ReplySender } from './reply-sender.js'
import { errorReply, okReply } from './envelope.js'

/** Open subscriptions at most; each one filters every domain event of its stream's type. */
export const maxLiveStreams = 1000

export interface StreamRequest {
  /** The stream's catalogue name: the requestId of its pushes. */
  stream: string
  app: AppKey
  /** The subscriber's key, the verified author of the request. */
  peer: string
  scheme: CipherScheme
  requestId: string
  input: unknown
}

export interface LiveStreams {
  /**
   * Dispatches the subscription. Resolves with the reply to store for the request: none once the subscription is
   * accepted (its items follow as pushes), or the ERROR (sealed, for the caller to store and send) when it is
   * refused.
   */
  open(request: StreamRequest): Promise<StoredReply | undefined>
  /** Whether `peer` holds an accepted subscription to `stream` under the app: its pushes come from there. */
  has(appId: string, peer: string, stream: string): boolean
  size(): number
  /** Closes every subscription (each call's outcome is written then). */
  close(): void
}

export function liveStreams(deps: {
  dispatcher: Pick<Dispatcher, 'dispatch'>
  sender: ReplySender
  log: Logger
  max?: number
}): LiveStreams {
  const { sender, log } = deps
  const max = deps.max ?? maxLiveStreams
  const open = new Map<string, Subscription>()
  const keyOf = (appId: string, peer: string, stream: string) => `${appId}\n${peer}\n${stream}`
  let closed = false

  return {
    open(request) {
      const { stream, app, peer, scheme } = request
      const key = keyOf(app.appId, peer, stream)
      return new Promise(resolve => {
        let accepted = false
        const subscription: Subscription = deps.dispatcher
          .dispatch({
            op: stream,
            credentials: { nostr: { pubkey: peer, appId: app.appId } },
            input: request.input,
            transport: 'nostr',
            requestId: request.requestId,
            // Synchronously before the handler subscribes to its room: from here on the items come through here,
            // and the linked-key pushes skip this key.
            onHandling: () => {
              accepted = true
              resolve(undefined)
              // Accepted while the transport stops: closed once its handler has subscribed (right after this).
              if (closed) return queueMicrotask(() => subscription.unsubscribe())
              open.get(key)?.unsubscribe()
              open.delete(key)
              open.set(key, subscription)
              while (open.size > max) {
                const [oldest, dropped] = open.entries().next().value!
                open.delete(oldest)
                dropped.unsubscribe()
              }
            },
          })
          .subscribe({
            next: item => sender.send(app, peer, scheme, okReply(item, stream)),
            error: err => {
              if (open.get(key) === subscription) open.delete(key)
              if (!accepted) {
                const reason = isOperationError(err) ? err.message : 'internal error'
                resolve(sender.seal(app, peer, scheme, errorReply(reason, request.requestId)))
              } else log.warn({ err, stream, peer }, 'a stream ended with an error')
            },
            // A stream that ends (GetMigrationUpdate never emits and ends at once) holds nothing.
            complete: () => {
              if (open.get(key) === subscription) open.delete(key)
              resolve(undefined)
            },
          })
      })
    },
    has: (appId, peer, stream) => open.has(keyOf(appId, peer, stream)),
    size: () => open.size,
    close() {
      closed = true
      const all = [...open.values()]
      open.clear()
      for (const subscription of all) subscription.unsubscribe()
    },
  }
}
