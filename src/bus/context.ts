// What a handler receives besides its input: who is calling, and per-call tools. Long-lived dependencies
// (database, node, event stream) are closed over by each room's factory instead of riding in the context.
import type { Logger } from 'pino'
import type { AuthKind } from '../../schema/operation.js'

export type Caller =
  | { kind: 'guest' }
  /** `walletLinkId`: authenticated by that wallet link's secret (the wallet page), not by a user token. */
  | { kind: 'user'; userId: string; appId: string; appUserId: string; walletLinkId?: string }
  | { kind: 'admin'; adminId: string }
  | { kind: 'metrics'; operatorId: string; appId: string }
  | { kind: 'app'; appId: string }
  | { kind: 'guestPub'; pub: string; appId: string }
  | { kind: 'wallet'; walletId: string; accountId: string; keyType: 'admin' | 'invoice' }
  | { kind: 'operator' }
  /** A NIP-47 request's connection: the client key of an unrevoked, unexpired connection allowed the method. */
  | { kind: 'nwc'; connectionId: string; userId: string }
  /** The author of a CLINK request (kinds 21001–21003) and the app whose key it addressed. */
  | { kind: 'clinkRequester'; pubkey: string; appId: string }

/** The caller shape each auth kind yields. */
export type CallerFor<K extends AuthKind> = K extends 'guest'
  ? { kind: 'guest' }
  : K extends 'user'
    ? Extract<Caller, { kind: 'user' }>
    : K extends 'admin'
      ? Extract<Caller, { kind: 'admin' }>
      : K extends 'metrics'
        ? Extract<Caller, { kind: 'metrics' }>
        : K extends 'app'
          ? Extract<Caller, { kind: 'app' }>
          : K extends 'guestPub'
            ? Extract<Caller, { kind: 'guestPub' }>
            : K extends 'walletInvoice' | 'walletAdmin'
              ? Extract<Caller, { kind: 'wallet' }>
              : K extends 'operator'
                ? Extract<Caller, { kind: 'operator' }>
                : K extends 'guestOrWallet'
                  ? Extract<Caller, { kind: 'guest' | 'wallet' }>
                  : K extends 'nwcConnection'
                    ? Extract<Caller, { kind: 'nwc' }>
                    : K extends 'clinkRequester'
                      ? Extract<Caller, { kind: 'clinkRequester' }>
                      : Extract<Caller, { kind: 'user' | 'wallet' | 'operator' }>

/** What a transport hands to authentication: the raw credentials it saw, nothing interpreted yet. */
export interface Credentials {
  /** HTTP `authorization` header. */
  authorization?: string
  /** HTTP `X-Api-Key` header or `api-key` query parameter (wallet keys). */
  apiKey?: string
  /** Nostr: the verified author of the request event, and the app its `p` tag addressed. */
  nostr?: { pubkey: string; appId: string }
  /** Nostr kind 23194 (NIP-47): the verified author, and the service key (one per NWC connection) it addressed. */
  nwc?: { pubkey: string; servicePubkey: string }
}

/** Milliseconds since the epoch; injected so schedules, expiry and retries are testable. */
export interface Clock {
  now(): number
}

export const systemClock: Clock = { now: () => Date.now() }

/** A one-shot timer source; injected so simulated delays and schedules are driven by tests instead of slept through. */
export interface Timers {
  /** Runs `fn` once after `ms`; the returned function cancels it. */
  after(ms: number, fn: () => void): () => void
}

export const systemTimers: Timers = {
  after(ms, fn) {
    const timer = setTimeout(fn, ms)
    return () => clearTimeout(timer)
  },
}

export type Transport = 'http' | 'nostr' | 'cli' | 'batch' | 'internal'

export interface CallContext<C = Caller> {
  caller: C
  requestId: string
  transport: Transport
  log: Logger
  clock: Clock
  /** Aborted when the daemon stops or the caller goes away. */
  signal: AbortSignal
  /** HTTP only: the socket's peer address (no forwarded header is trusted), for per-address limits on guests. */
  clientAddress?: string
}
