// Who may read the request kinds, when the relay keeps them private (`privateRequests`, off by default). A request
// and its reply are encrypted, but their authors, addressees and timing are not: any subscriber would see who talks
// to which wallet, and when. In private mode the request and reply kinds (and NWC's notifications) go to a
// stranger's connection only when it has authenticated (NIP-42) as the event's author or as a key its `p` tag names;
// everything else is served as before. The daemon's own connections see everything.
//
// Upstream's clients do not authenticate to relays, so private mode turns them away: it is for installs whose
// wallets do (nostr-tools answers a challenge when its relay has `onauth`).
import { randomBytes } from 'node:crypto'
import { parseEventShape, type NostrEvent } from './nostr-event.js'
import type { RelayLimits } from './limits.js'
import { nwcAnswerKinds, relayAuthKind as authKind, requestKinds } from '../nostr-kinds/index.js'

/** The kinds a stranger sees only as their author or addressee in private mode: requests, replies, NWC's answers. */
export const privateKinds: ReadonlySet<number> = new Set([...requestKinds, ...nwcAnswerKinds])
/** How far an AUTH event's date may be from now (NIP-42 suggests about ten minutes). */
const authWindowSeconds = 600
/** Keys one connection may authenticate as (NIP-42 allows several). */
const maxKeysPerConnection = 16

export interface ReaderIdentity {
  /** This connection's challenge (random, sent once in an AUTH message). */
  readonly challenge: string
  /** Whether the connection has authenticated as any key. */
  authenticated(): boolean
  /**
   * Answers a client's AUTH message: a notice when it holds no event; else the event's id and the refusal (its
   * shape, kind, challenge, relay and date; the signature last), or no refusal when the key is now authenticated.
   */
  answer(value: unknown, ctx: AuthContext): { notice: string } | { id: string; refusal?: string }
  /** Whether the connection may be sent this event in private mode. */
  mayRead(event: Pick<NostrEvent, 'kind' | 'pubkey' | 'tags'>): boolean
}

export interface AuthContext {
  /** Whether the challenge was sent on this connection (one that never asked is answered no). */
  challenged: boolean
  /** The Host header the connection came with. */
  host: string | undefined
  nowSeconds: number
  limits: RelayLimits
  verify(event: NostrEvent): boolean
}

export function readerIdentity(): ReaderIdentity {
  const challenge = randomBytes(16).toString('hex')
  const keys = new Set<string>()
  /** Why an AUTH event does not authenticate its key; undefined when it now does. */
  const refusal = (event: NostrEvent, ctx: AuthContext): string | undefined => {
    if (!ctx.challenged) return 'auth-required: no challenge was sent on this connection'
    if (event.kind !== authKind) return `invalid: an AUTH event is of kind ${authKind}`
    const tag = (name: string) => event.tags.find(t => t[0] === name)?.[1]
    if (tag('challenge') !== challenge) return "auth-required: the challenge is not this connection's"
    if (!sameHost(tag('relay'), ctx.host)) return 'invalid: the relay tag names another relay'
    if (Math.abs(event.created_at - ctx.nowSeconds) > authWindowSeconds) return 'invalid: an AUTH event is dated within ten minutes of now'
    if (!keys.has(event.pubkey) && keys.size >= maxKeysPerConnection) return `blocked: at most ${maxKeysPerConnection} keys per connection`
    if (!ctx.verify(event)) return 'invalid: signature does not verify'
    keys.add(event.pubkey)
    return undefined
  }
  return {
    challenge,
    authenticated: () => keys.size > 0,
    answer(value, ctx) {
      let event: NostrEvent
      try {
        event = parseEventShape(value, ctx.limits.maxEventTags)
      } catch (err) {
        return { notice: (err as Error).message }
      }
      const refused = refusal(event, ctx)
      return refused === undefined ? { id: event.id } : { id: event.id, refusal: refused }
    },
    mayRead(event) {
      if (!privateKinds.has(event.kind)) return true
      if (keys.has(event.pubkey)) return true
      return event.tags.some(t => t[0] === 'p' && keys.has(t[1]!))
    },
  }
}

/**
 * The `relay` tag must name this relay: the host (and port) the client connected to, as its Host header says. A
 * reverse proxy in front must pass the client's Host header on.
 */
function sameHost(relay: string | undefined, host: string | undefined): boolean {
  if (!relay || !host) return false
  try {
    return new URL(relay).host.toLowerCase() === host.toLowerCase()
  } catch {
    return false
  }
}
