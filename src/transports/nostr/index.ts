// The relay transport, the daemon's main bus: one relay pool and one subscription on every service
// relay for every kind the daemon serves (21000–21003 addressed to any app key, 23194 to any NWC service key),
// requests through one claim store and the one dispatcher, replies and pushes back through the relays, the service
// beacon and the app's connection string. Upstream's wire: docs/pub-protocol.md, "Nostr kinds" and "Kind 21000".
import fs from 'node:fs'
import path from 'node:path'
import { type Observable, type Dispatcher, type Clock, ofType, type DomainEvent, type AccessLog } from '../../bus/index.js'
import type { Event } from 'nostr-tools/pure'
import { nprofileEncode } from 'nostr-tools/nip19'
import type { Logger } from 'pino'
import type { ProcessedRequestsStore } from './processed-requests.js'
import type { EventVerifier, VerifyEvent } from './verify.js'
import { appKeyring, type AppKeyRow } from './app-keys.js'
import { processedRequests } from './processed-requests.js'
import { replySender } from './reply-sender.js'
import { claimStage, inboundPipeline } from './inbound.js'
import { createRelayPool, type Backoff } from './relay-pool.js'
import { isOwnRelay } from '../../callbacks/index.js'
import { createEventSigner, type SendEvent } from './sign.js'
import { signingOutbox, type SigningOutbox } from './signing-outbox.js'
import { serviceBeacon, type BeaconAbout } from './beacon.js'
import type { TransportAnnouncer } from './announcements.js'
import { conversationKeys, type AppKeyring, type ServeKinds, type ServedKinds } from '../../nostr-codecs/index.js'
import { pubRpcCodec } from './codecs/pub-rpc.js'
import { pushLiveUserOperations, pushToKeys, pushUserStreams, type KeyPush, type LinkedKeyLookup } from './pushes.js'
import { liveStreams } from './live-streams.js'
import { unixSeconds } from '../../units/index.js'

export { createEventVerifier, type EventVerifier, type VerifyEvent } from './verify.js'
export { type KeyPush } from './pushes.js'
export { createAnnouncer, type Announcer, type AnnouncementTemplate, type TransportAnnouncer } from './announcements.js'

/** Where the default app's connection string is written (upstream's `app.nprofile`). */
export const appProfileFile = 'app.nprofile'
/** Requests dated further ahead than this are dropped: no honest clock is that far off. */
export const maxFutureSeconds = 60
/**
 * A resubscription asks for events from `newest seen − slack`: clients' clocks differ, so an event published
 * during an outage may be dated a little before the newest one seen. Exactly-once makes the overlap harmless.
 */
export const resubscribeSlackSeconds = 60
const pruneIntervalMs = 10 * 60 * 1000
const readyTimeoutMs = 5_000

export interface NostrTransportDeps {
  relays: readonly string[]
  /** Named in the nprofile instead of `relays` when the operator gives the relays' public address. */
  publicRelays?: readonly string[]
  /** The proof of work a CLINK enroll of a new key needs, announced in the clink-node beacon (0: none). */
  enrollDifficulty?: number
  /** What the clink-node beacon says about the node (operator, website, description). */
  beaconAbout?: BeaconAbout
  dispatcher: Dispatcher
  /** Where the exactly-once claims of request events live (processed-requests.ts). */
  claims: ProcessedRequestsStore
  /** The apps table (every app answers on its own key). */
  apps(): Promise<AppKeyRow[]>
  /** The app whose nprofile is written to app.nprofile. */
  defaultAppId: string
  users: LinkedKeyLookup
  events$: Observable<DomainEvent>
  /** Messages other rooms send to a key unasked (WebRTC candidates). */
  keyPushes$?: Observable<KeyPush>
  /** Shared with the embedded relay, so an event is checked once per process. */
  verifier: EventVerifier
  clock: Clock
  log: Logger
  dataDir: string
  maxEventAgeSeconds: number
  /** Relay messages above this size are dropped before they are parsed (`[nostr] max_event_bytes`). */
  maxEventBytes?: number
  maxContentLength: number
  fees: { serviceFeeFloor: number; serviceFeeBps: number }
  backoff?: Backoff
  /**
   * The request kinds rooms serve besides the Pub RPC of kind 21000 (CLINK, NIP-47): each room's codec, lent the
   * transport's keys and sending. A kind no room serves is not subscribed to.
   */
  kinds?: readonly ServeKinds[]
  /** Codecs that answer in their own words write their own access line; none when the access log is off. */
  accessLog?: AccessLog
  /**
   * The announcer the rooms were handed before the transport started (extension events, zap receipts): its events
   * go out through this transport's pool from now on, and relays a caller named are reached through its guard.
   */
  announcer?: TransportAnnouncer
}

export interface NostrTransport {
  /** nprofile of the default app with the service relays: what a wallet connects to. */
  nprofile: string
  apps: AppKeyring
  /** Each relay the transport uses, whether it is connected now and what waits to be sent (the
   * relaypay_relay_connected gauge, the readiness probe, the console's overview). */
  relayStatus(): { url: string; connected: boolean; queued: number }[]
  /** Serves on these relays from now on (a SIGHUP changed `[nostr] relays`); the nprofile names them. */
  setRelays(urls: readonly string[]): Promise<void>
  /**
   * Takes no new request, waits up to `graceMs` for those taken to be answered, then closes the relays. A request
   * still running then is answered after the next start, from its claim, like one cut by a crash.
   */
  stop(graceMs?: number): Promise<void>
}

export async function startNostrTransport(deps: NostrTransportDeps): Promise<NostrTransport> {
  const { clock, log, maxEventAgeSeconds } = deps
  const apps = await appKeyring(deps.apps)
  // A stored request older than the accepted age (plus the minute allowed for clocks ahead, and a second for the
  // rounding to whole seconds) is dropped below before anyone asks whether it was answered here, so that memory
  // need not outlive it.
  const processed = processedRequests(deps.claims, {
    forgetAfterMs: (maxEventAgeSeconds + maxFutureSeconds + 1) * 1000,
    now: () => clock.now(),
  })
  const signer = await createEventSigner()
  // Our own events are remembered as verified, so the embedded relay does not check them again.
  const publishOwn = (event: Event) => {
    deps.verifier.remember(event)
    pool.publish(event)
  }
  const outbox: SigningOutbox = deps.verifier.thread
    ? signingOutbox({ thread: deps.verifier.thread, publish: publishOwn, log })
    : { send: (template, key, then) => (then ?? publishOwn)(signer.sign(template, key)), drain: async () => {} }
  const send: SendEvent = (template, key) => outbox.send(template, key)
  const nowUnix = () => unixSeconds(clock.now())
  await processed.prune(nowUnix() - maxEventAgeSeconds - maxFutureSeconds)
  let newestSeen = (await processed.newestCreatedAt()) ?? 0
  let stopping = false

  const keys = conversationKeys()
  const sender = replySender({
    keys,
    send,
    clock,
    maxContentLength: deps.maxContentLength,
  })
  const verify: VerifyEvent = event => {
    const ok = deps.verifier.verify(event)
    if (ok && event.created_at > newestSeen) newestSeen = event.created_at
    return ok
  }
  // Every kind's requests pass one signature check and one exactly-once claim, then their codec.
  const stage = claimStage({ processed, verify, clock, log })
  // Stream subscriptions stay open here until the transport stops; linked-key pushes skip the keys they serve.
  const streams = liveStreams({ dispatcher: deps.dispatcher, sender, log })
  const rpc = pubRpcCodec({ dispatcher: deps.dispatcher, apps, keys, sender, streams, log, accessLog: deps.accessLog })
  const served: ServedKinds[] = (deps.kinds ?? []).map(serve =>
    serve({
      apps, keys, send, clock, log, accessLog: deps.accessLog,
      sendNow: (template, key) => publishOwn(signer.sign(template, key)),
      resubscribe: () => pool.resubscribe(),
    }),
  )
  const inbound = inboundPipeline({
    codecs: [rpc, ...served.map(kind => kind.codec)],
    stage,
    processed,
    dispatcher: deps.dispatcher,
    log,
  })

  // Subscribed once the codecs are there: the filter is theirs.
  const pool = createRelayPool({
    urls: deps.relays,
    log, // already the nostr room's; binding `room` again wrote the key twice
    clock,
    outboxMaxAgeSeconds: maxEventAgeSeconds,
    maxEventBytes: deps.maxEventBytes,
    backoff: deps.backoff,
    ...(deps.announcer ? { callerGuard: deps.announcer.guard } : {}),
    filter: () => inbound.filters(Math.max(nowUnix() - maxEventAgeSeconds, newestSeen - resubscribeSlackSeconds)),
    onEvent: (event, relay, stored) => {
      if (isOwnRelay(relay)) deps.verifier.remember(event) // checked on the relay thread (callbacks/relay-credential.ts)
      receive(event, stored)
    },
  })

  function receive(event: Event, stored: boolean): void {
    if (stopping || !hasEventShape(event)) return
    // A renewed subscription (a new app, a reconnect) replays what the relay holds: nothing to do for a request whose
    // reply this process already sent. A live copy is a publication anew (a client trying again) and is answered.
    if (stored && processed.answeredHere(event.id)) return
    const target = event.tags.find(tag => Array.isArray(tag) && tag[0] === 'p')?.[1]
    if (target === undefined) return
    const now = nowUnix()
    if (event.created_at < now - maxEventAgeSeconds || event.created_at > now + maxFutureSeconds) {
      log.debug({ id: event.id, created_at: event.created_at }, 'dropped a stale or future-dated event')
      return
    }
    inbound.receive(event, target)
  }

  // An app added while running answers on its key from then on: reload the keys, widen the filter.
  const newApps = deps.events$.pipe(ofType('app.added')).subscribe(() => {
    apps.refresh().then(
      changed => {
        if (!changed || stopping) return
        pool.resubscribe()
        beacon.announce() // wallets see the new app now rather than at the next tick
      },
      (err: unknown) => log.error({ err }, 'could not load the keys of a new app'),
    )
  })
  // What the rooms' kinds do with the daemon's events: a CLINK answer to send, an NWC connection to serve, a payment
  // to notify.
  const kindEvents = deps.events$.subscribe(event => {
    if (stopping) return
    for (const kind of served) {
      try {
        kind.onEvent?.(event)
      } catch (err) {
        log.error({ err, type: event.type }, 'a served kind failed on a domain event')
      }
    }
  })
  const announceKinds = () => {
    for (const kind of served) kind.announce?.()
  }
  const pushDeps = { events$: deps.events$, users: deps.users, apps, sender, log, streams }
  const pushes = [pushLiveUserOperations(pushDeps), pushUserStreams(pushDeps)]
  if (deps.keyPushes$) pushes.push(pushToKeys(deps.keyPushes$, pushDeps))
  let servedRelays = deps.relays
  const beacon = serviceBeacon({
    apps: apps.all,
    fees: deps.fees,
    send,
    clock,
    relays: () => deps.publicRelays ?? servedRelays,
    enrollDifficulty: deps.enrollDifficulty ?? 0,
    ...(deps.beaconAbout ? { about: deps.beaconAbout } : {}),
  })
  const pruner = setInterval(() => {
    processed
      .prune(nowUnix() - maxEventAgeSeconds - maxFutureSeconds)
      .catch(err => log.error({ err }, 'pruning processed request events failed'))
  }, pruneIntervalMs)
  pruner.unref()

  const defaultApp = apps.byAppId(deps.defaultAppId)
  if (!defaultApp) throw new Error('the default app has no key')
  // What a wallet connects to, kept in the data dir for the CLI and tests; written again when the relays change.
  const profileOn = (relays: readonly string[]) => {
    const encoded = nprofileEncode({ pubkey: defaultApp.pubkey, relays: [...relays] })
    fs.writeFileSync(path.join(deps.dataDir, appProfileFile), encoded + '\n')
    return encoded
  }
  let nprofile = profileOn(deps.publicRelays ?? deps.relays)

  await pool.ready(readyTimeoutMs)
  // What the relays replayed is claimed and under way before the daemon tells the rooms the relays are up: a CLINK
  // debit a crash interrupted is resumed (its room learns it is answered) before the room sends what resolved since.
  await stage.begun()
  beacon.start()
  announceKinds()
  // Extension events and zap receipts queued since the rooms started go out now, then as they come.
  const detachAnnouncer = deps.announcer?.attach({
    sign: (template, key, then) =>
      outbox.send(template, key, event => {
        deps.verifier.remember(event) // ours: the embedded relay need not check it again
        then(event)
      }),
    offer: (event, relays, timeoutMs) => pool.offer(event, relays, timeoutMs),
    serviceRelays: () => pool.urls(),
  })
  log.info({ relays: deps.relays, apps: apps.all().length, keys: served.reduce((sum, kind) => sum + kind.codec.keys().length, 0), signer: signer.engine }, 'relay transport subscribed')

  return {
    get nprofile() {
      return nprofile
    },
    apps,
    relayStatus: () => pool.status(),
    async setRelays(urls) {
      await pool.setUrls(urls)
      servedRelays = urls
      nprofile = profileOn(deps.publicRelays ?? urls)
      beacon.announce() // the new relays learn the service at once
      // Published to every relay of the pool; the ones that had it already keep the same replaceable event.
      announceKinds()
      log.info({ relays: urls }, 'relay transport now serves on these relays')
    },
    async stop(graceMs = Infinity) {
      stopping = true
      beacon.stop()
      clearInterval(pruner)
      newApps.unsubscribe()
      kindEvents.unsubscribe()
      for (const push of pushes) push.unsubscribe()
      await withinGrace(stage.idle(), graceMs)
      // After the requests taken are answered, so that no subscription accepted meanwhile stays open: each stream's
      // call ends here and the dispatcher can drain.
      streams.close()
      // Replies signed on the worker are published before the relays close.
      await outbox.drain()
      // Announcements waiting for a retry are given up; the tries under way end with the pool's close.
      detachAnnouncer?.()
      await pool.close()
    },
  }
}

/** Waits for `work`, or for `graceMs`, whichever ends first. */
function withinGrace(work: Promise<void>, graceMs: number): Promise<void> {
  if (graceMs === Infinity) return work
  let timer: NodeJS.Timeout | undefined
  const passed = new Promise<void>(resolve => (timer = setTimeout(resolve, Math.max(0, graceMs))))
  return Promise.race([work, passed]).finally(() => clearTimeout(timer))
}

/** Relays are not trusted to send well-formed events; anything else is ignored before any work. */
function hasEventShape(event: Event): boolean {
  return (
    typeof event === 'object' &&
    event !== null &&
    typeof event.id === 'string' &&
    typeof event.pubkey === 'string' &&
    typeof event.content === 'string' &&
    typeof event.created_at === 'number' &&
    typeof event.kind === 'number' &&
    Array.isArray(event.tags)
  )
}
