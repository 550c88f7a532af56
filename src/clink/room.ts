// The CLINK room: offers (kind 21001), debits (21002), remote management (21003) and enroll (21004)
// served over the relays, and the user operations that steer them. Each request is a catalogue operation
// (ClinkOfferRequest, ClinkDebitRequest, ClinkManageRequest; caller kind clinkRequester): the relay
// transport's CLINK codec decrypts it, claims it once and dispatches it here; this room answers it, or parks it for
// the user's decision (pushed on GetLiveDebitRequests / GetLiveManageRequests through `user.push` events) and answers
// later with a `clink.answer` domain event, which the transport sends.
import type { Logger } from 'pino'
import { type Observable, type Clock, type DomainEvent, type HandlerTable, type CallContext } from '../bus/index.js'
import type { SqlStore } from '../store/index.js'
import type { Wallet } from '../wallet/index.js'
import type { LightningNode } from '../node/index.js'
import {
  clinkDebitKind, clinkEnrollKind, clinkManageKind, clinkOfferKind, type ClinkKind, type ClinkSender, type ClinkRequest, type ClinkAnswer, type ClinkServer,
} from './wire.js'
import { createDebits } from './debit-part.js'
import { offerStore } from './offer-store.js'
import { createOffersPart } from './handlers/offers.js'
import { createManagePart } from './handlers/manage.js'
import { liveRequestHandlers } from './handlers/live-requests.js'
import { createEnrollPart, type EnrollSettings } from './handlers/enroll.js'

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

/** One kind's half of the room: what it answers and the user operations it serves. */
export interface ClinkPart {
  handlers: HandlerTable
  handle?(request: ClinkRequest, outbox: () => ClinkSender | undefined): Promise<ClinkAnswer | undefined>
  /** A request a stopped run had taken (ClinkServer.resume). */
  resume?(request: ClinkRequest): Promise<ClinkAnswer | 'later' | undefined>
  /** The room started (the relays are up): what waited for them may be sent now. */
  ready?(): void | Promise<void>
  stop?(): void
}

export interface Clink {
  handlers: HandlerTable
  server: ClinkServer
  /** The relays are up: messages may be sent from now on, and what waited for them goes out. */
  start(): void
  /** The relays are going away (a stop): messages wait again, for the next run. */
  pause(): void
  stop(): void
}

/** The operation that carries each kind's requests (schema/operations/clink.ts). */
const requestOperations: Record<ClinkKind, string> = {
  [clinkOfferKind]: 'ClinkOfferRequest',
  [clinkDebitKind]: 'ClinkDebitRequest',
  [clinkManageKind]: 'ClinkManageRequest',
  [clinkEnrollKind]: 'ClinkEnrollRequest',
}

/** A request as the codec hands it to the dispatcher. */
interface RequestInput {
  body: unknown
  created_at: number
  clink_version?: string
  nonce_target?: string
}

/** Makes the room; resolves once what a stopped run left half done is adopted (debit payments it was making). */
export async function createClink(deps: ClinkDeps): Promise<Clink> {
  // Messages leave as domain events; until the relays are up they wait (the parts keep them and send them on start).
  let started = false
  const outbox: ClinkSender = {
    send(message) {
      deps.emit({ type: 'clink.answer', ...message })
      return true
    },
  }
  const currentOutbox = () => (started ? outbox : undefined)
  // One offer table: the user's operations and payers' requests read it, managers over kind 21003 write it too.
  const offers = offerStore({ sql: deps.sql, now: () => deps.clock.now(), random: deps.random })
  const common = {
    ...deps,
    offers,
    now: () => deps.clock.now(),
    allowLoopbackCallbacks: deps.allowLoopbackCallbacks ?? false,
  }
  // Each kind's part registers here: offers (21001), debits (21002), manage (21003), enroll (21004).
  const parts: Partial<Record<ClinkKind, ClinkPart>> = {
    [clinkOfferKind]: createOffersPart(common, currentOutbox),
    [clinkDebitKind]: await createDebits(deps, currentOutbox),
    [clinkManageKind]: createManagePart(common, currentOutbox),
    [clinkEnrollKind]: createEnrollPart(common),
  }
  const all = Object.values(parts)
  const requestHandlers = Object.fromEntries(
    (Object.entries(requestOperations) as unknown as [string, string][]).map(([kind, op]) => [
      op,
      async (input: RequestInput, ctx: CallContext) => {
        if (ctx.caller.kind !== 'clinkRequester') throw new Error('a CLINK request without its requester')
        const request: ClinkRequest = {
          kind: Number(kind) as ClinkKind,
          id: ctx.requestId,
          requester: ctx.caller.pubkey,
          appId: ctx.caller.appId,
          createdAt: input.created_at,
          tags: [
            ...(input.clink_version === undefined ? [] : [['clink_version', input.clink_version]]),
            ...(input.nonce_target === undefined ? [] : [['nonce', '', input.nonce_target]]),
          ],
          body: input.body,
        }
        const answer = await handle(request)
        return answer ? { payload: answer.payload, clink_version: answer.clinkVersion ?? false } : { parked: true }
      },
    ]),
  ) as HandlerTable

  async function handle(request: ClinkRequest): Promise<ClinkAnswer | undefined> {
    const part = parts[request.kind]
    if (!part?.handle) {
      deps.log.info({ kind: request.kind, id: request.id }, 'CLINK request dropped: this kind is not served')
      return undefined
    }
    return part.handle(request, currentOutbox)
  }

  return {
    handlers: Object.assign({}, requestHandlers, liveRequestHandlers(deps.events$), ...all.map(part => part.handlers)) as HandlerTable,
    server: {
      async resume(request) {
        try {
          return await parts[request.kind]?.resume?.(request)
        } catch (err) {
          deps.log.error({ err, id: request.id }, 'could not tell how an interrupted CLINK request ended')
          return undefined
        }
      },
    },
    start() {
      started = true
      for (const part of all) {
        Promise.resolve(part.ready?.()).catch(err => deps.log.error({ err }, 'sending what waited for the relays failed'))
      }
    },
    pause() {
      started = false
    },
    stop() {
      started = false
      for (const part of all) part.stop?.()
    },
  }
}
