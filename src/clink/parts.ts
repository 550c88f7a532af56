// What the room's parts (one per CLINK kind: offers, debits, manage, enroll) are made of and made from, beside the
// room rather than in it, so that room.ts imports the parts and no part imports the room.
import type { Logger } from 'pino'
import type { Observable, Clock, DomainEvent, HandlerTable, Handler } from '../bus/index.js'
import type { SqlStore } from '../store/index.js'
import type { Wallet } from '../wallet/index.js'
import type { LightningNode } from '../node/index.js'
import type { ClinkAnswer, ClinkKind, ClinkRequest } from './wire.js'

export interface EnrollSettings {
  /** Leading zero bits a new key's request id must have (0: no proof of work asked). */
  powBits: number
  /** How far a request's created_at may be from now, in ms. */
  maxDeltaMs: number
  /** New accounts enroll opens in any 60 s, node wide. */
  accountsPerMinute: number
}

export interface ClinkDeps {
  /** The room's tables. */
  sql: SqlStore
  wallet: Wallet
  node: LightningNode
  events$: Observable<DomainEvent>
  emit(event: DomainEvent): void
  /** The relay written into noffer / ndebit / nmanage pointers. */
  relayUrl(): string
  clock: Clock
  random(bytes: number): Uint8Array
  log: Logger
  /** Offer callback URLs may name loopback addresses (tests); the SSRF guard refuses them otherwise. */
  allowLoopbackCallbacks?: boolean
  /** Why a relay an offer's zap request names would not get the receipt (the receipt publisher's guard), if not. */
  zapRelayRefusal(url: string): string | undefined
  /** How long a parked debit request waits for the user's decision (`[clink] debit_request_seconds`; default 10 min). */
  debitRequestLifetimeMs?: number
  /** CLINK enroll's proof of work and clock window (`[clink] enroll_*`). */
  enroll: EnrollSettings
}

/**
 * One kind's half of the room: the operations it serves, its kind's request operation among them (a requestHandler,
 * dispatched to it by the catalogue like any other operation).
 */
export interface ClinkPart {
  handlers: HandlerTable
  /** A request a stopped run had taken (ClinkServer.resume). */
  resume?(request: ClinkRequest): Promise<ClinkAnswer | 'later' | undefined>
  /** The room started (the relays are up): what waited for them may be sent now. */
  ready?(): void | Promise<void>
  stop?(): void
}

/** The catalogue operations that carry each kind's requests (contract/operations.ts). */
type RequestOperation = 'ClinkOfferRequest' | 'ClinkDebitRequest' | 'ClinkManageRequest' | 'ClinkEnrollRequest'

/**
 * The handler of a kind's request operation: the request as the CLINK codec decoded it (its body, time and tags),
 * answered by `answer` now, or parked (answered later by a `clink.answer` event) when it gives nothing.
 */
export function requestHandler<N extends RequestOperation>(
  kind: ClinkKind,
  answer: (request: ClinkRequest) => Promise<ClinkAnswer | undefined>,
): Handler<N> {
  const handler: Handler<RequestOperation> = async (input, ctx) => {
    const answered = await answer({
      kind,
      id: ctx.requestId,
      requester: ctx.caller.pubkey,
      appId: ctx.caller.appId,
      createdAt: input.created_at,
      tags: [
        ...(input.clink_version === undefined ? [] : [['clink_version', input.clink_version]]),
        ...(input.nonce_target === undefined ? [] : [['nonce', '', input.nonce_target]]),
      ],
      body: input.body,
    })
    return answered ? { payload: answered.payload, clink_version: answered.clinkVersion ?? false } : { parked: true }
  }
  // The four operations share their input and output messages; only the name differs.
  return handler as unknown as Handler<N>
}
