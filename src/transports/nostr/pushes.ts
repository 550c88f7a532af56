// Pushes to a key that never subscribed. Upstream sends a user's stream items to
// the key linked to that app user — subscribed or not — and clients rely on it: whenever a user's operation
// happens the daemon sends `{status:"OK", operation, latest_balance}` with requestId = "GetLiveUserOperations", and
// likewise the CLINK requests parked for the user and the WebRTC candidates of a metrics caller. A key that holds a
// subscription to the stream (live-streams.ts: through the dispatcher, from the room's own Observable) gets its
// items from there, so it is skipped here.
import { type Observable, type Subscription, ofType, type DomainEvent } from '../../bus/index.js'
import type { Logger } from 'pino'
import type { AppKeyring } from '../../nostr-codecs/index.js'
import type { ReplySender } from './reply-sender.js'
import type { LiveStreams } from './live-streams.js'

export interface LinkedKeyLookup {
  /** The app user of a wallet (user row) and the key linked to it, if any. */
  appUserOf(userId: string): Promise<{ app_id: string; nostr_public_key: string | null } | undefined>
}

export interface LivePushDeps {
  events$: Observable<DomainEvent>
  users: LinkedKeyLookup
  apps: AppKeyring
  sender: ReplySender
  log: Logger
  /** Open subscriptions: a key subscribed to the stream gets its items from there. */
  streams?: Pick<LiveStreams, 'has'>
}

/** Pushes every `user.operation` to the user's linked key; returns the subscription the daemon stops. */
export function pushLiveUserOperations({ events$, users, apps, sender, log, streams }: LivePushDeps): Subscription {
  // In event order: each push waits for the one before (its lookup is async), so a key sees the operations in turn.
  let previous = Promise.resolve()
  return events$.pipe(ofType('user.operation')).subscribe(event => (previous = previous.then(async () => {
    try {
      const appUser = await users.appUserOf(event.userId)
      const peer = appUser?.nostr_public_key
      const app = appUser && apps.byAppId(appUser.app_id)
      if (!peer || !app || streams?.has(app.appId, peer, 'GetLiveUserOperations')) return
      sender.send(app, peer, sender.schemeFor(peer), {
        status: 'OK',
        operation: event.operation,
        latest_balance: event.latestBalanceSats,
        requestId: 'GetLiveUserOperations',
      })
    } catch (err) {
      log.error({ err, userId: event.userId }, 'live operation push failed')
    }
  })))
}

/** Pushes every `user.push` (the CLINK streams) to the user's linked key, with requestId = the stream's name. */
export function pushUserStreams({ events$, users, apps, sender, log, streams }: LivePushDeps): Subscription {
  let previous = Promise.resolve()
  return events$.pipe(ofType('user.push')).subscribe(event => (previous = previous.then(async () => {
    try {
      const appUser = await users.appUserOf(event.userId)
      const peer = appUser?.nostr_public_key
      const app = appUser && apps.byAppId(appUser.app_id)
      if (!peer || !app || streams?.has(app.appId, peer, event.stream)) return
      sender.send(app, peer, sender.schemeFor(peer), { status: 'OK', ...event.payload, requestId: event.stream })
    } catch (err) {
      log.error({ err, userId: event.userId, stream: event.stream }, 'user stream push failed')
    }
  })))
}

/** A message another room sends to one key unasked, e.g. the WebRTC candidates of a metrics caller. */
export interface KeyPush {
  appId: string
  pubkey: string
  payload: Record<string, unknown>
}

/** Sends each push from the app's key to the key named, in the scheme that key last used. */
export function pushToKeys(
  pushes$: Observable<KeyPush>,
  { apps, sender, log, streams }: Pick<LivePushDeps, 'apps' | 'sender' | 'log' | 'streams'>,
): Subscription {
  return pushes$.subscribe(push => {
    try {
      const app = apps.byAppId(push.appId)
      const stream = push.payload.requestId
      if (!app || (typeof stream === 'string' && streams?.has(app.appId, push.pubkey, stream))) return
      sender.send(app, push.pubkey, sender.schemeFor(push.pubkey), push.payload)
    } catch (err) {
      log.error({ err, requestId: push.payload.requestId }, 'push failed')
    }
  })
}
