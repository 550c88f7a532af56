// The daemon's connections to its service relays: one nostr-tools relay connection per URL (with `ws` injected
// through the constructor option rather than nostr-tools' process-wide useWebSocketImplementation), its own
// reconnect with backoff, one subscription per relay that is fired again on every (re)connect with a filter
// computed at that moment (so `since` follows the last event seen), and an outbox that holds events published
// while a relay is down until it is back. nostr-tools' own reconnect is off: it waits 10 s before the first try
// and resumes at `lastEmitted + 1`, which loses events sharing the last second.
//
// Two delivery policies share the pool. `publish` is for replies to requests: a relay that is down gets the event
// from the link's outbox when it is back, unless it is older than the request age by then (a late reply is useless).
// `offer` is for announcements (extension events, zap receipts; announcements.ts retries them): one try now to the
// relays named, the service relays by their links and any other relay through the SSRF guard (caller-relays.ts).
import { AbstractRelay, type Subscription } from 'nostr-tools/abstract-relay'
import type { Event } from 'nostr-tools/pure'
import type { Filter } from 'nostr-tools/filter'
import type { Logger } from 'pino'
import { type Clock } from '../../bus/index.js'
import { cappedWebSocket, defaultMaxEventBytes } from './capped-socket.js'
import { callerRelays } from './caller-relays.js'
import type { GuardOptions } from '../../callbacks/index.js'
import { unixSeconds } from '../../units/index.js'
import { doublingDelayMs } from '../../limits/index.js'

export interface Backoff {
  initialMs: number
  maxMs: number
}

/** Upstream backs off 1 s … 900 s; a daemon behind a restarting relay should be back within seconds. */
export const defaultBackoff: Backoff = { initialMs: 250, maxMs: 30_000 }
const connectTimeoutMs = 5_000
/** Events kept per relay while it is unreachable; beyond this the oldest are dropped (their requests expire anyway). */
const maxOutbox = 20_000
/** How long a stop waits for the relays to confirm the last published events. */
const closeGraceMs = 2_000

export interface RelayPoolOptions {
  urls: readonly string[]
  /** The subscription's filters (one per set of kinds and keys), computed at every (re)subscription. */
  filter(): Filter | Filter[]
  /**
   * Every event the subscription delivers, unverified: the receiver checks signatures once, after cheap checks.
   * `stored` is true for events the relay sent before its EOSE: a replay of what it holds (every resubscription
   * replays from `since`), not a publication that reached it just now.
   */
  onEvent(event: Event, relayUrl: string, stored: boolean): void
  log: Logger
  clock: Clock
  /** Events older than this are not worth re-sending after an outage. */
  outboxMaxAgeSeconds: number
  /** Messages from a relay larger than this are dropped unread, with a warning (default 256 KiB). */
  maxEventBytes?: number
  backoff?: Backoff
  /**
   * How relays that are not service relays are reached (announcements to the relays a caller named): through the
   * SSRF guard with these options. Without it they are not reached at all.
   */
  callerGuard?: GuardOptions
}

export interface RelayPool {
  /** Resolves when every relay has answered its first subscription (EOSE), or after `timeoutMs`. */
  ready(timeoutMs: number): Promise<void>
  /** Sends to every relay; a relay that is down gets the event when it is back. Never throws. */
  publish(event: Event): void
  /**
   * One try to send an announcement to `urls` (the service relays when undefined): resolves true when at least one
   * relay accepted it within `timeoutMs`. A relay that is down is not waited for. Never rejects.
   */
  offer(event: Event, urls: readonly string[] | undefined, timeoutMs: number): Promise<boolean>
  /** The relays the pool serves on now. */
  urls(): string[]
  /** Fires the subscription again on every connected relay (the filter changed: a new app key). */
  resubscribe(): void
  status(): { url: string; connected: boolean; queued: number }[]
  /**
   * Serves on these relays from now on (a SIGHUP): links to new URLs connect and subscribe, links to URLs no longer
   * named close (after their last confirmations), the others are left as they are.
   */
  setUrls(urls: readonly string[]): Promise<void>
  close(): Promise<void>
}

export function createRelayPool(opts: RelayPoolOptions): RelayPool {
  let links = opts.urls.map(url => relayLink(url, opts))
  const callers = opts.callerGuard ? callerRelays(opts.callerGuard, opts.log) : undefined
  return {
    ready: timeoutMs => {
      let timer: NodeJS.Timeout | undefined
      const timeout = new Promise<void>(resolve => (timer = setTimeout(resolve, timeoutMs)))
      return Promise.race([Promise.all(links.map(link => link.subscribed)).then(() => undefined), timeout]).finally(() =>
        clearTimeout(timer),
      )
    },
    publish: event => links.forEach(link => link.publish(event)),
    offer: async (event, urls, timeoutMs) => {
      const tries = (urls ?? links.map(link => link.url)).map(url => {
        const link = links.find(candidate => candidate.url === url)
        if (link) return link.offer(event, timeoutMs)
        if (callers) return withTimeout(callers.publish(url, event, timeoutMs), timeoutMs)
        return Promise.reject(new Error('not a service relay'))
      })
      const results = await Promise.allSettled(tries)
      return results.some(result => result.status === 'fulfilled')
    },
    urls: () => links.map(link => link.url),
    resubscribe: () => links.forEach(link => link.subscribe()),
    status: () => links.map(link => link.status()),
    setUrls: async urls => {
      const gone = links.filter(link => !urls.includes(link.url))
      const kept = links.filter(link => urls.includes(link.url))
      const added = [...new Set(urls)].filter(url => !kept.some(link => link.url === url)).map(url => relayLink(url, opts))
      links = [...kept, ...added]
      await Promise.all(gone.map(link => link.close()))
    },
    close: async () => {
      await Promise.all([...links.map(link => link.close()), callers?.close(closeGraceMs)])
    },
  }
}

function relayLink(url: string, opts: RelayPoolOptions) {
  const log = opts.log.child({ relay: url })
  const backoff = opts.backoff ?? defaultBackoff
  const maxEventBytes = opts.maxEventBytes ?? defaultMaxEventBytes
  // No reply: the sender cannot be known without parsing what we refuse to parse.
  const socket = cappedWebSocket(maxEventBytes, bytes =>
    log.warn({ bytes, maxEventBytes }, 'dropped a relay message larger than [nostr] max_event_bytes, unread'),
  )
  let relay: AbstractRelay | undefined
  let subscription: Subscription | undefined
  let attempt = 0
  let retry: NodeJS.Timeout | undefined
  let closed = false
  const outbox: Event[] = []
  const unconfirmed = new Set<Promise<unknown>>()
  let markSubscribed: () => void = () => {}
  const subscribed = new Promise<void>(resolve => (markSubscribed = resolve))

  const scheduleReconnect = () => {
    if (closed || retry) return
    const delay = doublingDelayMs(attempt, backoff.initialMs, backoff.maxMs)
    attempt++
    retry = setTimeout(() => {
      retry = undefined
      void connect()
    }, delay)
  }

  async function connect(): Promise<void> {
    if (closed) return
    const candidate = new AbstractRelay(url, {
      // Signatures are checked by the receiver, once per event, after the cheap checks (kind, p tag, age, dedupe).
      verifyEvent: () => true,
      websocketImplementation: socket,
      // A relay that vanished without closing (network gone) answers no ping; the socket is then closed and
      // the link reconnects. Without it such a link would look connected forever.
      enablePing: true,
    })
    candidate.publishTimeout = 10_000
    candidate.onnotice = notice => log.debug({ notice }, 'relay notice')
    let dropped = false
    // ws fires both error and close on a failed connection, and our own close() calls onclose too; act once.
    const onDrop = () => {
      if (dropped) return
      dropped = true
      if (closed) return
      if (relay === candidate) {
        relay = undefined
        subscription = undefined
        log.warn('relay connection lost; reconnecting')
      }
      scheduleReconnect()
    }
    candidate.onclose = onDrop
    try {
      await candidate.connect({ timeout: connectTimeoutMs })
    } catch (err) {
      log.debug({ err: String(err), attempt }, 'relay connection failed')
      onDrop()
      return
    }
    if (closed || dropped) {
      candidate.close()
      return
    }
    relay = candidate
    attempt = 0
    log.info('relay connected')
    subscribe()
    flush()
  }

  function subscribe(): void {
    const current = relay
    if (!current || closed) return
    const previous = subscription
    let stored = true
    const filters = opts.filter()
    const sub = current.subscribe(Array.isArray(filters) ? filters : [filters], {
      onevent: event => opts.onEvent(event, url, stored),
      oneose: () => {
        stored = false
        markSubscribed()
      },
      eoseTimeout: 30_000,
      onclose: reason => {
        // Our own replacement or a dropped connection is handled elsewhere; a relay that CLOSED us is retried.
        if (closed || subscription !== sub || relay !== current) return
        log.warn({ reason }, 'relay closed the subscription; subscribing again')
        subscription = undefined
        setTimeout(() => subscribe(), backoff.initialMs).unref()
      },
    })
    subscription = sub
    previous?.close('replaced')
  }

  function enqueue(event: Event): void {
    outbox.push(event)
    if (outbox.length > maxOutbox) outbox.shift()
  }

  function flush(): void {
    const oldest = unixSeconds(opts.clock.now()) - opts.outboxMaxAgeSeconds
    for (const event of outbox.splice(0)) if (event.created_at >= oldest) publish(event)
  }

  function publish(event: Event): void {
    const current = relay
    if (!current?.connected) {
      enqueue(event)
      return
    }
    const sent = current.publish(event)
    unconfirmed.add(sent)
    sent.catch((err: unknown) => {
      const reason = err instanceof Error ? err.message : String(err)
      // A connection that dropped before the OK, or a relay asking us to slow down: try again when possible.
      if (relay !== current || /closed|timed out|rate-limited|connection/i.test(reason)) {
        enqueue(event)
        // Sent into a socket that was closing, the event timed out after the link had already reconnected: the
        // outbox is only flushed on a connect, so flush it now rather than at the next outage.
        if (relay?.connected) setTimeout(flush, backoff.initialMs).unref()
        return
      }
      log.warn({ reason, id: event.id, kind: event.kind }, 'relay refused an event')
    }).finally(() => unconfirmed.delete(sent))
  }

  /** One try, now: an announcement is retried by its sender, so nothing is queued here for a relay that is down. */
  function offer(event: Event, timeoutMs: number): Promise<void> {
    const current = relay
    if (closed || !current?.connected) return Promise.reject(new Error('relay not connected'))
    const sent = withTimeout(current.publish(event), timeoutMs)
    unconfirmed.add(sent)
    sent.catch(() => {}).finally(() => unconfirmed.delete(sent))
    return sent.then(() => undefined)
  }

  void connect()

  return {
    url,
    subscribed,
    publish,
    offer,
    subscribe,
    status: () => ({ url, connected: relay?.connected ?? false, queued: outbox.length }),
    /** Waits (briefly) for the relay to confirm what was sent, so the last replies are not cut off by a stop. */
    async close(): Promise<void> {
      closed = true
      clearTimeout(retry)
      retry = undefined
      let grace: NodeJS.Timeout | undefined
      await Promise.race([
        Promise.allSettled([...unconfirmed]),
        new Promise(resolve => (grace = setTimeout(resolve, closeGraceMs))),
      ])
      clearTimeout(grace)
      relay?.close()
      relay = undefined
      markSubscribed()
    },
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_resolve, reject) => (timer = setTimeout(() => reject(new Error('timed out')), ms)))
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}
