// The wallet service side of NIP-47 on the daemon's relays: its own subscription (kind 23194 addressed to any
// connection's service key), each request verified, taken exactly once, decrypted with the scheme it names, checked
// against its connection (client key, revocation, expiry, permitted methods) and answered with kind 23195; the
// info event (13194) of every live connection; and notifications (23197 NIP-44, 23196 NIP-04) when a connected
// wallet is paid or pays.
import type { AccessLog } from '../bus/access-log.js'
import { hexToBytes } from '@noble/hashes/utils.js'
import type { Event, EventTemplate } from 'nostr-tools/pure'
import type { Observable, Subscription } from '../bus/rx.js'
import type { Logger } from 'pino'
import type { Clock } from '../bus/context.js'
import type { DomainEvent } from '../bus/events.js'
import type { EventVerifier } from '../transports/nostr/verify.js'
import { createRelayPool, type Backoff } from '../transports/nostr/relay-pool.js'
import { isOwnRelay } from '../callbacks/index.js'
import { createEventSigner } from '../transports/nostr/sign.js'
import { nwcCipher, requestedEncryption, supportedEncryptions, type NwcEncryption } from './encryption.js'
import { NwcError, isNwcMethod, methodsOf, methodTable, nwcNotificationTypes, type MethodDeps } from './methods.js'
import type { ConnectionRow } from './store.js'
import { BoundedSet } from '../bus/bounded.js'

export const nwcInfoKind = 13194
export const nwcRequestKind = 23194
export const nwcResponseKind = 23195
export const nwcNotificationKindNip04 = 23196
export const nwcNotificationKindNip44 = 23197

/** Requests dated further ahead than this are dropped: no honest clock is that far off. */
const maxFutureSeconds = 60
/** Resubscriptions overlap the newest request seen by this much (client clocks differ); exactly-once absorbs it. */
const resubscribeSlackSeconds = 60
const readyTimeoutMs = 5_000
const pruneIntervalMs = 10 * 60 * 1000
/** Requests remembered as answered by this process (see `answered`). */
const answeredMemory = 20_000

export interface NwcServiceDeps extends MethodDeps {
  relays: readonly string[]
  verifier: EventVerifier
  events$: Observable<DomainEvent>
  maxEventAgeSeconds: number
  backoff?: Backoff
  accessLog?: AccessLog
}

export interface NwcService {
  /** A connection was created or changed: widen the subscription and (re)publish its info event. */
  connectionChanged(connection: ConnectionRow): void
  /** Serves on these relays from now on; the live connections' info events are published to them. */
  setRelays(urls: readonly string[]): Promise<void>
  stop(): Promise<void>
}

interface NwcResponse {
  result_type: string
  error: { code: string; message: string } | null
  result: object | null
}

export async function startNwcService(deps: NwcServiceDeps): Promise<NwcService> {
  const { store, clock, log, maxEventAgeSeconds } = deps
  const methods = methodTable(deps)
  const cipher = nwcCipher()
  const signer = await createEventSigner()
  const nowUnix = () => Math.floor(clock.now() / 1000)
  const running = new Set<Promise<void>>()
  // Requests being served by this process: a copy from a second relay must wait for nothing and run nothing (its
  // claim row has no response yet, which would otherwise read as a request interrupted by a restart).
  // Each with when it arrived, for the access line's duration.
  const inFlight = new Map<string, number>()
  // Requests this process has answered (or re-sent the stored answer of). A renewed subscription (a new connection
  // widens the filter, a link reconnects) replays every request the relay holds; the answer already went out through
  // the pool, which keeps it until a relay confirms it, so a copy dated a second later would only be a second answer.
  // A live copy is a publication anew and is answered again. Bounded: a forgotten request gets its stored answer again.
  const answered = new BoundedSet<string>(answeredMemory)
  let stopping = false
  let servicePubkeys = store.all().map(c => c.service_pubkey)
  let newestSeen = store.newestRequestCreatedAt() ?? 0

  const sign = (template: EventTemplate, connection: ConnectionRow): Event => {
    const event = signer.sign(template, hexToBytes(connection.service_secret))
    deps.verifier.remember(event)
    return event
  }

  const pool = createRelayPool({
    urls: deps.relays,
    log, // already the nwc room's; binding `room` again wrote the key twice
    clock,
    outboxMaxAgeSeconds: maxEventAgeSeconds,
    ...(deps.backoff ? { backoff: deps.backoff } : {}),
    filter: () => ({
      kinds: [nwcRequestKind],
      // Revoked connections stay in the filter so that their apps hear UNAUTHORIZED rather than silence. A relay
      // reads an empty `#p` list as "no constraint", so with no connection yet the filter names a key nobody has.
      '#p': servicePubkeys.length > 0 ? servicePubkeys : ['0'.repeat(64)],
      since: Math.max(nowUnix() - maxEventAgeSeconds, newestSeen - resubscribeSlackSeconds),
    }),
    onEvent: (event, relay, stored) => {
      if (isOwnRelay(relay)) deps.verifier.remember(event) // checked on the relay thread (callbacks/relay-credential.ts)
      if (stopping || (stored && answered.has(event?.id))) return
      const done = receive(event).catch(err => log.error({ err, id: event?.id }, 'an NWC request failed unexpectedly'))
      running.add(done)
      void done.finally(() => running.delete(done))
    },
  })

  const publishInfo = (connection: ConnectionRow) => {
    if (connection.revoked_at !== null) return
    pool.publish(
      sign(
        {
          kind: nwcInfoKind,
          created_at: nowUnix(),
          tags: [
            ['encryption', supportedEncryptions.join(' ')],
            ['notifications', nwcNotificationTypes.join(' ')],
          ],
          content: [...methodsOf(connection), 'notifications'].join(' '),
        },
        connection,
      ),
    )
  }

  const respond = (connection: ConnectionRow, request: Event, scheme: NwcEncryption, response: NwcResponse): string => {
    const arrived = inFlight.get(request.id)
    deps.accessLog?.({
      transport: 'nwc',
      operation: response.result_type || null,
      caller: 'nwc',
      outcome: response.error?.code ?? 'ok',
      status: response.error ? 'error' : 'ok',
      durationMs: arrived === undefined ? 0 : performance.now() - arrived,
      requestId: request.id,
    })
    const content = cipher.encrypt(scheme, hexToBytes(connection.service_secret), request.pubkey, JSON.stringify(response))
    const createdAt = nowUnix()
    pool.publish(sign({ kind: nwcResponseKind, created_at: createdAt, tags: [['p', request.pubkey], ['e', request.id]], content }, connection))
    store.storeResponse(request.id, { sentAt: createdAt, content })
    return content
  }

  async function receive(event: Event): Promise<void> {
    if (!hasEventShape(event) || event.kind !== nwcRequestKind) return
    const target = event.tags.find(tag => Array.isArray(tag) && tag[0] === 'p')?.[1]
    const connection = target === undefined ? undefined : store.byServicePubkey(target)
    if (!connection) return
    const now = nowUnix()
    if (event.created_at < now - maxEventAgeSeconds || event.created_at > now + maxFutureSeconds) return
    // NIP-47: a request received after its expiration tag is ignored, not answered.
    const expiration = Number(event.tags.find(tag => tag[0] === 'expiration')?.[1])
    if (Number.isFinite(expiration) && expiration <= now) return
    if (!deps.verifier.verify(event)) return
    if (event.created_at > newestSeen) newestSeen = event.created_at
    if (inFlight.has(event.id)) return
    inFlight.set(event.id, performance.now())
    try {
      await serve(event, connection, now)
      answered.add(event.id)
    } finally {
      inFlight.delete(event.id)
    }
  }

  async function serve(event: Event, connection: ConnectionRow, now: number): Promise<void> {
    const claim = store.claimRequest({
      eventId: event.id,
      connectionId: connection.id,
      requester: event.pubkey,
      createdAt: event.created_at,
      receivedAt: clock.now(),
    })
    if (claim.state === 'answered') {
      // The same request again (another relay, a resubscription, a restart): the stored answer, nothing re-run.
      const { content, sentAt } = claim.reply
      if (content === null) return
      const createdAt = Math.max(now, sentAt + 1) // same content and date would be the same event id, dropped as a duplicate
      pool.publish(sign({ kind: nwcResponseKind, created_at: createdAt, tags: [['p', event.pubkey], ['e', event.id]], content }, connection))
      store.storeResponse(event.id, { sentAt: createdAt, content })
      return
    }

    const scheme = requestedEncryption(event.tags)
    if (scheme === undefined) {
      // The client named a scheme we do not speak; NIP-04 is the one every NWC client can read.
      respond(connection, event, 'nip04', failure('', 'UNSUPPORTED_ENCRYPTION', 'supported: nip44_v2, nip04'))
      return
    }
    let request: { method: string; params: Record<string, unknown> }
    try {
      request = parseRequest(cipher.decrypt(scheme, hexToBytes(connection.service_secret), event.pubkey, event.content))
    } catch (err) {
      log.debug({ id: event.id, err: String(err) }, 'dropped an NWC request that does not decrypt or parse')
      store.storeResponse(event.id, { sentAt: now, content: null })
      return
    }
    const method = request.method
    if (claim.state === 'interrupted') {
      respond(connection, event, scheme, failure(method, 'INTERNAL', 'the request was interrupted by a restart; look the payment up before retrying'))
      return
    }
    const refusal = refusalOf(connection, event.pubkey, method, clock.now())
    if (refusal) {
      respond(connection, event, scheme, failure(method, refusal.code, refusal.message))
      return
    }
    let response: NwcResponse
    try {
      const result = await methods[method as keyof typeof methods]({ connection, requestId: event.id, params: request.params })
      response = { result_type: method, error: null, result }
    } catch (err) {
      if (err instanceof NwcError) response = failure(method, err.code, err.message)
      else {
        log.error({ err, id: event.id, method }, 'an NWC method failed')
        response = failure(method, 'INTERNAL', 'internal error')
      }
    }
    respond(connection, event, scheme, response)
  }

  const notifications = deps.events$.subscribe(event => {
    try {
      if (event.type === 'invoice.paid') notify(event.walletId, event.paymentHash, 'payment_received')
      else if (event.type === 'payment.settled') notify(event.walletId, event.paymentHash, 'payment_sent')
    } catch (err) {
      log.error({ err, type: event.type }, 'could not send an NWC notification')
    }
  })

  function notify(walletId: string, paymentHash: string, type: (typeof nwcNotificationTypes)[number]): void {
    if (stopping) return
    const connections = store.liveOfUser(walletId, clock.now())
    if (connections.length === 0) return
    const transaction = deps.transactions.byPaymentHash(walletId, paymentHash, clock.now())
    if (!transaction || transaction.type !== (type === 'payment_received' ? 'incoming' : 'outgoing')) return
    const text = JSON.stringify({ notification_type: type, notification: transaction })
    for (const connection of connections) {
      const secret = hexToBytes(connection.service_secret)
      // A service speaking both schemes publishes both kinds; each client reads the one it understands.
      for (const [kind, scheme] of [[nwcNotificationKindNip44, 'nip44_v2'], [nwcNotificationKindNip04, 'nip04']] as const) {
        const content = cipher.encrypt(scheme, secret, connection.client_pubkey, text)
        pool.publish(sign({ kind, created_at: nowUnix(), tags: [['p', connection.client_pubkey]], content }, connection))
      }
    }
  }

  const pruner = setInterval(() => {
    try {
      store.pruneRequests(nowUnix() - maxEventAgeSeconds - maxFutureSeconds)
    } catch (err) {
      log.error({ err }, 'pruning NWC requests failed')
    }
  }, pruneIntervalMs)
  pruner.unref()

  await pool.ready(readyTimeoutMs)
  const liveConnections = () => store.all().filter(c => c.revoked_at === null && (c.expires_at === null || c.expires_at > clock.now()))
  const live = liveConnections()
  for (const connection of live) publishInfo(connection)
  log.info({ relays: deps.relays, connections: live.length, signer: signer.engine }, 'NWC service subscribed')

  return {
    connectionChanged(connection) {
      if (!servicePubkeys.includes(connection.service_pubkey)) {
        servicePubkeys = [...servicePubkeys, connection.service_pubkey]
        pool.resubscribe()
      }
      publishInfo(connection)
    },
    async setRelays(urls) {
      await pool.setUrls(urls)
      // Published to every relay of the pool; the ones that had it already keep the same replaceable event.
      for (const connection of liveConnections()) publishInfo(connection)
      log.info({ relays: urls }, 'NWC service now serves on these relays')
    },
    async stop() {
      stopping = true
      clearInterval(pruner)
      notifications.unsubscribe()
      await Promise.allSettled([...running])
      await pool.close()
    },
  }
}

function failure(method: string, code: string, message: string): NwcResponse {
  return { result_type: method, error: { code, message }, result: null }
}

/** Why a connection may not run a method now; undefined when it may. */
function refusalOf(connection: ConnectionRow, requester: string, method: string, nowMs: number): NwcError | undefined {
  if (requester !== connection.client_pubkey) return new NwcError('UNAUTHORIZED', 'this key is not the client of the connection')
  if (connection.revoked_at !== null) return new NwcError('UNAUTHORIZED', 'the connection was revoked')
  if (connection.expires_at !== null && connection.expires_at <= nowMs) return new NwcError('UNAUTHORIZED', 'the connection expired')
  if (!isNwcMethod(method)) return new NwcError('NOT_IMPLEMENTED', `method ${method} is not supported`)
  if (!methodsOf(connection).includes(method)) return new NwcError('RESTRICTED', `the connection may not call ${method}`)
  return undefined
}

function parseRequest(text: string): { method: string; params: Record<string, unknown> } {
  const parsed: unknown = JSON.parse(text)
  if (typeof parsed !== 'object' || parsed === null) throw new Error('request is not an object')
  const { method, params } = parsed as { method?: unknown; params?: unknown }
  if (typeof method !== 'string') throw new Error('request has no method')
  return { method, params: typeof params === 'object' && params !== null ? (params as Record<string, unknown>) : {} }
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
