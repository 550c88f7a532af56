// What protects the embedded relay from a misbehaving client, with defaults sized for one daemon and its clients
// on one machine. Every number is also published in the NIP-11 document so clients can stay inside it.
import type { Clock } from '../bus/context.js'

export interface RelayLimits {
  /** Largest client message accepted, in bytes; larger ones are refused with OK/NOTICE "invalid:". */
  maxMessageBytes: number
  /** Hard cap at the WebSocket layer: a frame beyond it closes the connection (1009) before it is buffered. */
  maxFrameBytes: number
  /** Open subscriptions per connection; a REQ reusing an id replaces, and does not count twice. */
  maxSubscriptions: number
  /** Filters per REQ. */
  maxFilters: number
  /** Values in one filter list (ids, authors, kinds, each #tag). */
  maxFilterValues: number
  /** Largest `limit` honoured per filter; a filter without `limit` gets this many stored events too. */
  maxLimit: number
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
  /** Simultaneous connections. */
  maxConnections: number
  /** Bytes queued unsent to one connection before it is dropped as a slow consumer. */
  maxBufferedBytes: number
  /** Interval between server pings; a connection that did not answer the previous ping is closed. */
  heartbeatMs: number
  /** Interval of the sweep that deletes expired events (queries already hide them). */
  sweepMs: number
}

export const defaultRelayLimits: RelayLimits = {
  maxMessageBytes: 256 * 1024,
  maxFrameBytes: 1024 * 1024,
  maxSubscriptions: 50,
  maxFilters: 10,
  maxFilterValues: 1000,
  maxLimit: 5000,
  maxSubscriptionIdLength: 64,
  maxEventTags: 2000,
  maxFutureSeconds: 15 * 60,
  // The daemon resubscribes with `since = last seen − slack` after a restart or a dropped connection; ten minutes
  // covers a restart, and matches upstream's `since: now − 10 min` subscription (pub-protocol.md §3.1).
  ephemeralRetentionSeconds: 10 * 60,
  // Generous: the daemon's own connection publishes every reply and push; the limit is against floods, not load.
  messagesPerSecond: 1000,
  messageBurst: 2000,
  maxConnections: 1024,
  maxBufferedBytes: 16 * 1024 * 1024,
  heartbeatMs: 30_000,
  sweepMs: 60_000,
}

/** Merges overrides into the defaults and refuses nonsense (zero or negative numbers, a frame cap below the message cap). */
export function resolveLimits(overrides: Partial<RelayLimits> = {}): RelayLimits {
  const limits = { ...defaultRelayLimits, ...overrides }
  for (const [name, value] of Object.entries(limits)) {
    if (!Number.isFinite(value) || value <= 0) throw new Error(`relay limit ${name} must be a positive number`)
  }
  if (limits.maxFrameBytes < limits.maxMessageBytes) {
    throw new Error('relay limit maxFrameBytes must be at least maxMessageBytes')
  }
  return limits
}

/**
 * A token bucket refilled from the injected clock on each take, so it needs no timer and a test can drive it.
 */
export function tokenBucket(clock: Clock, perSecond: number, burst: number): { take(): boolean } {
  let tokens = burst
  let refilledAt = clock.now()
  return {
    take() {
      const now = clock.now()
      // A clock that steps back (NTP, a test) must not drain the bucket: time that ran backwards refills nothing.
      tokens = Math.min(burst, tokens + (Math.max(0, now - refilledAt) / 1000) * perSecond)
      refilledAt = now
      if (tokens < 1) return false
      tokens -= 1
      return true
    },
  }
}
