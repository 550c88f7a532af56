// What protects the embedded relay from a misbehaving client, with defaults sized for one daemon and its clients
// on one machine (docs/exposing.md lists them with the reasons). The NIP-11 document publishes what a client needs
// to stay inside them. One object, replaced whole at run time (RunningRelay.setLimits): nothing keeps a copy.
import type { Clock } from '../bus/index.js'

export interface RelayLimits {
  /** Largest client message accepted, in bytes; larger ones are refused with OK/NOTICE "invalid:". */
  maxMessageBytes: number
  /** Hard cap at the WebSocket layer: a frame beyond it closes the connection (1009) before it is buffered. */
  maxFrameBytes: number
  /** Open subscriptions per connection; a REQ reusing an id replaces, and does not count twice. */
  maxSubscriptions: number
  /** Open subscriptions of all the connections of one client address. */
  maxSubscriptionsPerAddress: number
  /** Filters per REQ. */
  maxFilters: number
  /** Values in one filter list (ids, authors, kinds, each #tag). */
  maxFilterValues: number
  /** Largest `limit` honoured per filter; a filter without `limit` gets this many stored events too. */
  maxLimit: number
  /** The same for a filter that can match ephemeral kinds (20000–29999): they are kept only for a reconnecting daemon. */
  maxEphemeralLimit: number
  /** Stored events read per query step; the next page waits until the client has taken the previous one. */
  pageSize: number
  /** The next page is read only while less than this many bytes wait unsent to the client. */
  maxPendingBytes: number
  /** Stored events sent per second to one connection, and to all the connections of one address (bursts: twice). */
  storedEventsPerSecond: number
  storedEventsPerSecondPerAddress: number
  /**
   * Bytes of stored events (and of the live events charged to the read budgets) sent per second to one address
   * (burst: twice). Counted in events alone, an address could be sent a thousand of the largest events a second.
   */
  storedBytesPerSecondPerAddress: number
  /**
   * How long a connection refused a REQ for an open-subscription cap is not read (ms): what it sends meanwhile waits
   * in its own buffers, and what the relay had already read from it waits here, then is handled one at a time.
   */
  overCapPauseMs: number
  /** Subscription id length (NIP-01 says at most 64). */
  maxSubscriptionIdLength: number
  /** Tags per event. */
  maxEventTags: number
  /** Events dated further than this into the future are refused (clocks drift, but not by hours). */
  maxFutureSeconds: number
  /** How long an ephemeral event (kinds 20000–29999) stays queryable after it was received. */
  ephemeralRetentionSeconds: number
  /** Client messages per second a connection may send on average … */
  messagesPerSecond: number
  /** … and in one burst. */
  messageBurst: number
  /** Client messages per second of all the connections of one address (burst: twice); beyond, reading pauses. */
  messagesPerSecondPerAddress: number
  /** Simultaneous connections of strangers; the daemon's own have `reservedConnections` more, beyond every cap. */
  maxConnections: number
  maxConnectionsPerAddress: number
  /** New connections per second from one address (burst: five seconds' worth); beyond, HTTP 429 before the handshake. */
  connectionsPerSecondPerAddress: number
  reservedConnections: number
  /**
   * How long a connection refused before the handshake (over its address's rate or connection cap) waits for its
   * 429 (ms); 0 answers at once. A client that reconnects as soon as it is refused tries so much less often.
   */
  refusalDelayMs: number
  /** A stranger's connection without subscriptions that sends nothing for this long is closed. */
  idleTimeoutMs: number
  /** Events accepted per second from one author and from one address (bursts: five seconds' worth). */
  eventsPerSecondPerAuthor: number
  eventsPerSecondPerAddress: number
  /**
   * The request kinds strangers send to the daemon (policy.ts) cost it a decryption and a parse each, and they reach
   * it whatever the storage budgets say (an ephemeral event is relayed, not stored). So they have budgets of their
   * own, per address: the largest request event accepted (bytes of the whole EVENT message), the bytes of requests
   * accepted per second (burst: five seconds' worth; over it the connection also stops being read until the budget
   * has refilled), and the keys not seen from the address before that may send requests per minute (burst: one
   * minute's worth). A fresh key is what a new account costs a stranger; the daemon's own cap is node-wide, as a
   * relay does not tell it where an event came from.
   */
  maxRequestBytes: number
  requestBytesPerSecondPerAddress: number
  newKeysPerMinutePerAddress: number
  /** Storage budgets in bytes: in all, per author and per writing address (the daemon's own events are exempt). */
  maxStoreBytes: number
  maxAuthorBytes: number
  maxAddressBytes: number
  /** Free bytes the data dir keeps for the payments database: below it the relay stores nothing. 0: no floor. */
  minFreeBytes: number
  /** false: only what the daemon serves is accepted (policy.ts); true: a general relay, still under every quota. */
  openWrites: boolean
  /**
   * true: the request and reply kinds go to a stranger only when it authenticated (NIP-42) as their author or
   * addressee (private-reads.ts); false: to any subscriber, as on any relay.
   */
  privateRequests: boolean
  /** Peer addresses of reverse proxies whose X-Forwarded-For names the client; no one else's is read. */
  trustedProxies: string[]
  /** Bytes queued unsent to one connection before it is dropped as a slow consumer. */
  maxBufferedBytes: number
  /** Interval between server pings; a connection that did not answer the previous ping is closed. */
  heartbeatMs: number
  /** Interval of the sweep that deletes expired events (queries already hide them). */
  sweepMs: number
}

/**
 * Defaults of a relay started on its own (tests, a relay on a trusted network): the per-address and per-author
 * budgets are as good as off, and writes are open. The daemon's embedded relay and `relaypay relay` take theirs
 * from the `[nostr] relay_*` config keys, whose defaults are the strict ones meant for the internet
 * (src/config/schema.ts, docs/exposing.md).
 */
export const defaultRelayLimits: RelayLimits = {
  maxMessageBytes: 256 * 1024,
  maxFrameBytes: 1024 * 1024,
  maxSubscriptions: 20,
  maxSubscriptionsPerAddress: 20 * 1024,
  maxFilters: 10,
  maxFilterValues: 1000,
  maxLimit: 500,
  maxEphemeralLimit: 10,
  pageSize: 100,
  maxPendingBytes: 1024 * 1024,
  storedEventsPerSecond: 1_000_000,
  storedEventsPerSecondPerAddress: 1_000_000,
  storedBytesPerSecondPerAddress: 1024 * 1024 * 1024,
  overCapPauseMs: 500,
  maxSubscriptionIdLength: 64,
  maxEventTags: 2000,
  maxFutureSeconds: 15 * 60,
  // The daemon resubscribes with `since = last seen − slack` after a restart or a dropped connection; ten minutes
  // covers a restart, and matches upstream's `since: now − 10 min` subscription (docs/pub-protocol.md, "Nostr kinds").
  ephemeralRetentionSeconds: 10 * 60,
  // Generous: the daemon's own connection publishes every reply and push; the limit is against floods, not load.
  messagesPerSecond: 1000,
  messageBurst: 2000,
  messagesPerSecondPerAddress: 1_000_000,
  maxConnections: 1024,
  maxConnectionsPerAddress: 1024,
  connectionsPerSecondPerAddress: 1_000_000,
  reservedConnections: 64,
  refusalDelayMs: 0,
  idleTimeoutMs: 60_000,
  eventsPerSecondPerAuthor: 1_000_000,
  eventsPerSecondPerAddress: 1_000_000,
  maxRequestBytes: 256 * 1024,
  requestBytesPerSecondPerAddress: 1024 * 1024 * 1024,
  newKeysPerMinutePerAddress: 1_000_000,
  maxStoreBytes: 256 * 1024 * 1024,
  maxAuthorBytes: 4 * 1024 * 1024,
  maxAddressBytes: 16 * 1024 * 1024,
  minFreeBytes: 1024 * 1024 * 1024,
  openWrites: true,
  privateRequests: false,
  trustedProxies: [],
  maxBufferedBytes: 16 * 1024 * 1024,
  heartbeatMs: 30_000,
  sweepMs: 60_000,
}

/** Merges overrides into the defaults and refuses nonsense (zero or negative numbers where 0 means nothing, a frame cap below the message cap). */
export function resolveLimits(overrides: Partial<RelayLimits> = {}): RelayLimits {
  const limits = { ...defaultRelayLimits, ...overrides }
  for (const [name, value] of Object.entries(limits)) {
    if (typeof value !== 'number') continue
    const floor = name === 'minFreeBytes' || name === 'refusalDelayMs' ? 0 : Number.MIN_VALUE
    if (!(value >= floor) || Number.isNaN(value)) throw new Error(`relay limit ${name} must be a positive number`)
  }
  if (limits.maxFrameBytes < limits.maxMessageBytes) {
    throw new Error('relay limit maxFrameBytes must be at least maxMessageBytes')
  }
  if (5 * limits.requestBytesPerSecondPerAddress < limits.maxRequestBytes) {
    // Its burst must hold one request of the largest size, or such a request could never pass.
    throw new Error('relay limit requestBytesPerSecondPerAddress must be at least a fifth of maxRequestBytes')
  }
  return limits
}

/**
 * A token bucket refilled from the injected clock on each take, so it needs no timer and a test can drive it.
 */
export interface TokenBucket {
  /** Takes `n` tokens (one by default) if there are that many; false, taking none, when there are not. */
  take(n?: number): boolean
  /** Takes up to `n` tokens; returns how many it took. */
  takeUpTo(n: number): number
  /** Takes `n` tokens whatever is there: the bucket may go below zero, and refills from there. */
  charge(n: number): void
  /** Whole tokens available now. */
  available(): number
  /** Milliseconds until one token is back. */
  msUntilOne(): number
  /** Milliseconds until `n` tokens are there (never, for more than the burst: then until the bucket is full). */
  msUntil(n: number): number
  /** True when the bucket is full again (its owner may forget it). */
  full(): boolean
}

/** Rates are read at every call, so limits replaced at run time apply to buckets already made. */
export function tokenBucket(clock: Clock, perSecond: number | (() => number), burst: number | (() => number)): TokenBucket {
  const rate = typeof perSecond === 'number' ? () => perSecond : perSecond
  const cap = typeof burst === 'number' ? () => burst : burst
  let tokens = cap()
  let refilledAt = clock.now()
  const refill = () => {
    const now = clock.now()
    // A clock that steps back (NTP, a test) must not drain the bucket: time that ran backwards refills nothing.
    tokens = Math.min(cap(), tokens + (Math.max(0, now - refilledAt) / 1000) * rate())
    refilledAt = now
  }
  const msUntil = (n: number) => {
    refill()
    const wanted = Math.min(n, cap())
    return tokens >= wanted ? 0 : Math.ceil(((wanted - tokens) / rate()) * 1000)
  }
  return {
    take: (n = 1) => {
      refill()
      if (tokens < n) return false
      tokens -= n
      return true
    },
    takeUpTo(n) {
      refill()
      const taken = Math.max(0, Math.min(n, Math.floor(tokens)))
      tokens -= taken
      return taken
    },
    charge(n) {
      refill()
      tokens -= n
    },
    available() {
      refill()
      return Math.floor(tokens)
    },
    msUntilOne: () => msUntil(1),
    msUntil,
    full() {
      refill()
      return tokens >= cap()
    },
  }
}
