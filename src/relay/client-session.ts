// One client connection: its subscriptions, its rate limit, and the NIP-01 messages it sends (EVENT, REQ, CLOSE).
// Refusals use NIP-01's machine-readable prefixes (invalid:, blocked:, rate-limited:, unsupported:, error:) so a
// client can branch on them.
import { randomUUID } from 'node:crypto'
import type { Logger } from 'pino'
import type { WebSocket } from 'ws'
import { getEventHash } from 'nostr-tools/pure'
import type { Clock } from '../bus/context.js'
import type { EventStore, StoredEvent } from './event-store.js'
import type { SaveQueue } from './save-queue.js'
import { liveFilter, matchesLive, parseFilter, type Filter, type LiveFilter } from './filter.js'
import { tokenBucket, type RelayLimits } from './limits.js'
import { expirationOf, isHex64, parseEventShape, type NostrEvent } from './nostr-event.js'

/** What a session needs from the relay it belongs to. */
export interface RelayCore {
  limits: RelayLimits
  clock: Clock
  log: Logger
  store: EventStore
  /** Stores an event with the others of this turn (save-queue.ts); answers after the commit. */
  saves: SaveQueue
  verify(event: NostrEvent): boolean
  /** When set, used instead of `verify`: the verdict may come later (a signature checked on another thread). */
  verifyLater?: (event: NostrEvent, done: (valid: boolean) => void) => void
  /** Hands a newly stored event to every session's live subscriptions. */
  broadcast(event: NostrEvent, raw: string): void
}

export interface ClientSession {
  /** Handles one client message (a WebSocket text frame). */
  receive(data: Buffer): void
  /** Sends a newly stored event to this client's matching subscriptions. */
  deliver(event: NostrEvent, raw: string): void
}

export function clientSession(socket: WebSocket, core: RelayCore, log: Logger): ClientSession {
  const { limits, clock, store } = core
  const subscriptions = new Map<string, LiveFilter[]>()
  const bucket = tokenBucket(clock, limits.messagesPerSecond, limits.messageBurst)

  function send(message: string): void {
    if (socket.readyState !== socket.OPEN) return
    // A client that stops reading would make us buffer without bound; drop it instead.
    if (socket.bufferedAmount > limits.maxBufferedBytes) {
      log.warn({ buffered: socket.bufferedAmount }, 'relay client dropped: not reading fast enough')
      socket.terminate()
      return
    }
    socket.send(message)
  }
  const ok = (id: string, accepted: boolean, reason: string) => send(JSON.stringify(['OK', id, accepted, reason]))
  // CLOSED always leaves no subscription under that id: NIP-01 has a REQ replace its namesake even when refused.
  const closed = (subId: string, reason: string) => {
    subscriptions.delete(subId)
    send(JSON.stringify(['CLOSED', subId, reason]))
  }
  const notice = (text: string) => send(JSON.stringify(['NOTICE', text]))

  /** Answers a refused message in the form its type expects, so clients waiting on an OK or a CLOSED hear back. */
  function refuse(message: unknown[], reason: string): void {
    const [type, second] = message
    const event = second as { id?: unknown } | undefined
    if (type === 'EVENT' && isHex64(event?.id)) ok(event.id, false, reason)
    else if (type === 'REQ' && typeof second === 'string') closed(second, reason)
    else notice(reason)
  }

  function receive(data: Buffer): void {
    const message = parseMessage(data)
    // Counted before anything else, so that a flood of garbage is throttled like a flood of events.
    if (!bucket.take()) {
      refuse(typeof message === 'string' ? [] : message, 'rate-limited: too many messages, slow down')
      return
    }
    if (typeof message === 'string') return notice(message)
    if (data.length > limits.maxMessageBytes) {
      refuse(message, `invalid: message is ${data.length} bytes, more than the ${limits.maxMessageBytes} allowed`)
      return
    }
    try {
      if (message[0] === 'EVENT') onEvent(message[1])
      else if (message[0] === 'REQ') onReq(message[1], message.slice(2))
      else if (message[0] === 'CLOSE') onClose(message[1])
      else notice(`unsupported: message type ${JSON.stringify(message[0]).slice(0, 40)}`)
    } catch (err) {
      const errorId = randomUUID()
      log.error({ err, errorId }, 'relay failed to handle a client message')
      refuse(message, `error: internal error ${errorId}`)
    }
  }

  function onEvent(value: unknown): void {
    let event: NostrEvent
    try {
      event = parseEventShape(value, limits.maxEventTags)
    } catch (err) {
      refuse(['EVENT', value], (err as Error).message)
      return
    }
    const now = Math.floor(clock.now() / 1000)
    if (event.created_at > now + limits.maxFutureSeconds) {
      ok(event.id, false, `invalid: created_at is more than ${limits.maxFutureSeconds} seconds in the future`)
      return
    }
    if (!core.verifyLater) return verified(event, core.verify(event), now)
    const later = event
    core.verifyLater(later, valid => {
      // Outside receive's try: a failure here is answered the same way.
      try {
        verified(later, valid, now)
      } catch (err) {
        const errorId = randomUUID()
        log.error({ err, errorId }, 'relay failed to handle a client message')
        ok(later.id, false, `error: internal error ${errorId}`)
      }
    })
  }

  function verified(event: NostrEvent, valid: boolean, now: number): void {
    if (!valid) {
      const reason = getEventHash(event) === event.id ? 'signature does not verify' : 'id does not match the event'
      ok(event.id, false, `invalid: ${reason}`)
      return
    }
    const expiration = expirationOf(event)
    if (expiration !== undefined && expiration <= now) {
      ok(event.id, false, 'invalid: event has expired') // NIP-40: relays drop expired events on arrival
      return
    }
    core.saves.save(event, now, result => {
      if ('error' in result) {
        const errorId = randomUUID()
        log.error({ err: result.error, errorId }, 'relay failed to store an event')
        ok(event.id, false, `error: internal error ${errorId}`)
        return
      }
      const outcome = result.outcome
      if (outcome === 'stored') {
        ok(event.id, true, '')
        core.broadcast(event, JSON.stringify(event))
      } else if (outcome === 'duplicate') {
        ok(event.id, true, 'duplicate: already have this event')
      } else if (outcome === 'newer-exists') {
        // As khatru does: the address already holds a newer version, which is what the client wants kept anyway.
        ok(event.id, true, 'duplicate: have a newer version of this event')
      } else {
        ok(event.id, false, 'blocked: the author deleted this event (NIP-09)')
      }
    })
  }

  function onReq(subId: unknown, rawFilters: unknown[]): void {
    if (typeof subId !== 'string' || subId.length === 0 || subId.length > limits.maxSubscriptionIdLength) {
      notice(`invalid: a subscription id is a string of 1 to ${limits.maxSubscriptionIdLength} characters`)
      return
    }
    if (rawFilters.length === 0) return closed(subId, 'invalid: a REQ needs at least one filter')
    if (rawFilters.length > limits.maxFilters) {
      return closed(subId, `invalid: more than ${limits.maxFilters} filters in one REQ`)
    }
    if (!subscriptions.has(subId) && subscriptions.size >= limits.maxSubscriptions) {
      return closed(subId, `blocked: more than ${limits.maxSubscriptions} open subscriptions on this connection`)
    }
    let filters: Filter[]
    try {
      filters = rawFilters.map(raw => parseFilter(raw, limits))
    } catch (err) {
      return closed(subId, (err as Error).message)
    }
    // Everything here is synchronous, so no live event can slip between the stored query and the subscription.
    subscriptions.set(subId, filters.map(liveFilter))
    const prefix = `["EVENT",${JSON.stringify(subId)},`
    for (const stored of storedEvents(filters)) send(prefix + stored.raw + ']')
    send(JSON.stringify(['EOSE', subId]))
  }

  function storedEvents(filters: Filter[]): StoredEvent[] {
    const now = Math.floor(clock.now() / 1000)
    if (filters.length === 1) return store.query(filters[0], now)
    const byId = new Map<string, StoredEvent>()
    for (const filter of filters) for (const ev of store.query(filter, now)) byId.set(ev.id, ev)
    return [...byId.values()].sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? -1 : 1))
  }

  function onClose(subId: unknown): void {
    if (typeof subId !== 'string') return notice('invalid: CLOSE needs a subscription id')
    subscriptions.delete(subId)
  }

  function deliver(event: NostrEvent, raw: string): void {
    for (const [subId, filters] of subscriptions) {
      if (filters.some(filter => matchesLive(filter, event))) send(`["EVENT",${JSON.stringify(subId)},${raw}]`)
    }
  }

  return { receive, deliver }
}

/** A client message as a JSON array that starts with its type, or the reason it is not one. */
function parseMessage(data: Buffer): unknown[] | string {
  let message: unknown
  try {
    message = JSON.parse(data.toString('utf8'))
  } catch {
    return 'invalid: message is not JSON'
  }
  if (!Array.isArray(message) || typeof message[0] !== 'string') {
    return 'invalid: a message is a JSON array that starts with its type'
  }
  return message
}
