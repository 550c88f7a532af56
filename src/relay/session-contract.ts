// What a client session (client-session.ts) needs from the relay it belongs to, who is on the other end, and what
// the relay can ask of a session in return.
import type { Duplex } from 'node:stream'
import type { Logger } from 'pino'
import type { Clock } from '../bus/index.js'
import type { EventStore } from './event-store.js'
import type { SaveQueue } from './save-queue.js'
import type { RelayLimits, TokenBucket } from './limits.js'
import type { NostrEvent } from './nostr-event.js'
import type { AddressState } from './addresses.js'
import type { Reader } from './reader.js'
import type { ServedKeys } from './policy.js'

/** What a session needs from the relay it belongs to. */
export interface RelayCore {
  /** Replaced whole when the limits change at run time: read it at each use, never keep a copy. */
  limits: RelayLimits
  clock: Clock
  log: Logger
  store: EventStore
  /** Stores an event with the others of this turn (save-queue.ts); answers after the commit. */
  saves: SaveQueue
  verify(event: NostrEvent): boolean
  /** When set, used instead of `verify`: the verdict may come later (a signature checked on another thread). */
  verifyLater?: (event: NostrEvent, done: (valid: boolean) => void) => void
  /**
   * Hands a newly accepted event to every session's live subscriptions; true when one that heard it names it by
   * `#p`: whoever it is addressed to was listening.
   */
  broadcast(event: NostrEvent, raw: string): boolean
  reader: Reader
  /** Keys the daemon serves (policy.ts). */
  served: ServedKeys
  /** True while the data dir has less free space than `minFreeBytes`. */
  diskLow(): boolean
  /** An own session's subscriptions changed: the served keys are learnt again. */
  ownSubscriptionsChanged(): void
  /** Counts a refusal by its NIP-01 prefix, for the relay's stats. */
  refused(reason: string): void
  /** Write budgets per author, shared by every session; the relay forgets full ones now and then. */
  authorBuckets: Map<string, TokenBucket>
}

/** Who is on the other end. */
export interface SessionContext {
  /** One of the daemon's own connections (it presented the relay's secret). */
  own: boolean
  address: string
  state: AddressState
  /**
   * The connection's TCP socket (the upgrade request's): what is sent in one turn of the event loop is written
   * with one system call (see send).
   */
  tcp?: Pick<Duplex, 'cork' | 'uncork'>
  /** The Host header of the upgrade request: the relay an AUTH event must name (NIP-42). */
  host?: string
}

export interface ClientSession {
  /** Handles one client message (a WebSocket text frame). */
  receive(data: Buffer): void
  /** Sends a newly accepted event to the matching subscriptions; true when one of them names it by `#p`. */
  deliver(event: NostrEvent, raw: string): boolean
  subscriptionCount(): number
  /** When the client last sent a message (clock ms). */
  lastActivity(): number
  /** The `#p` values of its subscriptions (the keys an own session serves). */
  addressedKeys(): string[]
  /** The connection closed: its subscriptions no longer count against its address. */
  release(): void
}
