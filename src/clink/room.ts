// The CLINK room: offers (kind 21001), debits (21002), remote management (21003) and enroll (21004) served over the
// relays, and the user operations that steer them. Each request is a catalogue operation (ClinkOfferRequest,
// ClinkDebitRequest, ClinkManageRequest, ClinkEnrollRequest; caller kind clinkRequester): the room's codec
// (nostr-codec.ts), which the relay transport runs, decrypts it, the transport claims it once, and the dispatcher
// calls the handler of its kind's part (parts.ts, requestHandler) like any other operation's. The part answers it,
// or parks it for the user's decision (pushed on GetLiveDebitRequests / GetLiveManageRequests through `user.push`
// events) and answers later with a `clink.answer` domain event, which the codec sends.
import type { HandlerTable } from '../bus/index.js'
import type { ServeKinds } from '../nostr-codecs/index.js'
import { clinkDebitKind, clinkEnrollKind, clinkManageKind, clinkOfferKind, type ClinkKind, type ClinkSender } from './wire.js'
import { clinkNostrKinds } from './nostr-codec.js'
import type { ClinkDeps, ClinkPart } from './parts.js'
import { createDebits } from './handlers/debit-part.js'
import { offerStore } from './offer-store.js'
import { createOffersPart } from './handlers/offers.js'
import { createManagePart } from './handlers/manage.js'
import { liveRequestHandlers } from './handlers/live-requests.js'
import { createEnrollPart } from './handlers/enroll.js'

export interface Clink {
  handlers: HandlerTable
  /** The CLINK kinds for the relay transport: their codec, which asks the room about requests a stopped run took. */
  nostrKinds: ServeKinds
  /** The relays are up: messages may be sent from now on, and what waited for them goes out. */
  start(): void
  /** The relays are going away (a stop): messages wait again, for the next run. */
  pause(): void
  stop(): void
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
  return {
    handlers: all.reduce<HandlerTable>((table, part) => ({ ...table, ...part.handlers }), liveRequestHandlers(deps.events$)),
    nostrKinds: clinkNostrKinds({
      async resume(request) {
        try {
          return await parts[request.kind]?.resume?.(request)
        } catch (err) {
          deps.log.error({ err, id: request.id }, 'could not tell how an interrupted CLINK request ended')
          return undefined
        }
      },
    }),
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
