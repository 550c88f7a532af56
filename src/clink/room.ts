// The CLINK room (reference/pub-protocol.md §5): offers (kind 21001), debits (21002) and remote management (21003)
// served over the relays, and the user operations that steer them. The transport (src/transports/nostr/
// clink-server.ts) hands each decrypted request to `server.handle` exactly once; this room answers it, or parks it
// for the user's decision (pushed on GetLiveDebitRequests / GetLiveManageRequests through `user.push` events) and
// answers later through the outbox.
import type { Logger } from 'pino'
import type { Observable } from '../bus/rx.js'
import type { Db } from '../store/index.js'
import type { Clock } from '../bus/context.js'
import type { DomainEvent } from '../bus/events.js'
import type { HandlerTable } from '../bus/handler.js'
import type { Wallet } from '../wallet/index.js'
import type { LightningNode } from '../node/index.js'
import {
  clinkDebitKind, clinkManageKind, clinkOfferKind, type ClinkKind, type ClinkOutbox, type ClinkRequest, type ClinkAnswer, type ClinkServer,
} from '../transports/nostr/index.js'
import { createDebits } from './debits.js'
import { offerStore } from './offer-store.js'
import { createOffersPart } from './offers.js'
import { createManagePart } from './manage.js'

export interface ClinkDeps {
  db: Db
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
  /** How long a parked debit request waits for the user's decision (`[clink] debit_request_seconds`; default 10 min). */
  debitRequestLifetimeMs?: number
}

/** One kind's half of the room: what it answers and the user operations it serves. */
export interface ClinkPart {
  handlers: HandlerTable
  handle?(request: ClinkRequest, outbox: () => ClinkOutbox | undefined): Promise<ClinkAnswer | undefined>
  /** A request a stopped run had taken (ClinkServer.resume). */
  resume?(request: ClinkRequest): ClinkAnswer | 'later' | undefined
  /** The outbox was attached (the relays are up): what waited for it may be sent now. */
  ready?(): void
  stop?(): void
}

export interface Clink {
  handlers: HandlerTable
  server: ClinkServer
  stop(): void
}

export function createClink(deps: ClinkDeps): Clink {
  let outbox: ClinkOutbox | undefined
  const currentOutbox = () => outbox
  // One offer table: the user's operations and payers' requests read it, managers over kind 21003 write it too.
  const offers = offerStore({ db: deps.db, now: () => deps.clock.now(), random: deps.random })
  const common = {
    ...deps,
    offers,
    now: () => deps.clock.now(),
    allowLoopbackCallbacks: deps.allowLoopbackCallbacks ?? false,
  }
  // Each kind's part registers here: offers (21001), debits (21002), manage (21003).
  const parts: Partial<Record<ClinkKind, ClinkPart>> = {
    [clinkOfferKind]: createOffersPart(common, currentOutbox),
    [clinkDebitKind]: createDebits(deps, currentOutbox),
    [clinkManageKind]: createManagePart(common, currentOutbox),
  }
  const all = Object.values(parts)
  return {
    handlers: Object.assign({}, ...all.map(part => part.handlers)) as HandlerTable,
    server: {
      async handle(request) {
        const part = parts[request.kind]
        if (!part?.handle) {
          deps.log.info({ kind: request.kind, id: request.id }, 'CLINK request dropped: this kind is not served')
          return undefined
        }
        return part.handle(request, currentOutbox)
      },
      resume(request) {
        try {
          return parts[request.kind]?.resume?.(request)
        } catch (err) {
          deps.log.error({ err, id: request.id }, 'could not tell how an interrupted CLINK request ended')
          return undefined
        }
      },
      attach(next) {
        outbox = next
        if (next) for (const part of all) part.ready?.()
      },
    },
    stop() {
      for (const part of all) part.stop?.()
    },
  }
}
