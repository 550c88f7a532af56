// Kinds 21001–21004 (CLINK offers, debits, manage, enroll: docs/pub-protocol.md, "CLINK"): addressed to an app key,
// NIP-44 decrypted, the request as a catalogue call (ClinkOfferRequest …, caller kind clinkRequester) and the answer
// on the same kind, tags `p` = requester and `e` = request id, encrypted the way the request was. What a request
// means is the CLINK room's business (src/clink): a parked request is answered later by the room's `clink.answer`
// domain event, which `deliver` sends; a request a stopped run had taken is the room's to resume.
import type { Logger } from 'pino'
import { isOperationError, type Clock } from '../../../bus/index.js'
import { catalogue } from '../../../../schema/catalogue.js'
import {
  clinkKinds, clinkOfferKind, interruptedAnswer, invalidAnswer, isClinkKind,
  type ClinkAnswer, type ClinkKind, type ClinkMessage, type ClinkRequest, type ClinkServer,
} from '../../../clink/index.js'
import { decryptPayload, encryptWith, type CipherScheme } from '../../../nostr-codecs/index.js'
import type { ConversationKeys } from '../conversation-keys.js'
import type { AppKey, AppKeyring } from '../app-keys.js'
import type { StoredReply } from '../processed-requests.js'
import type { SendEvent } from '../sign.js'
import { noReply, type Decoded, type NostrCodec } from '../codec.js'
import { unixSeconds } from '../../../units/index.js'

/** The catalogue operation of each kind (`nostrCodec.kind`). */
const operations = new Map(
  catalogue.flatMap(entry => {
    const codec = (entry as { nostrCodec?: { kind: number } }).nostrCodec
    return codec && isClinkKind(codec.kind) ? [[codec.kind, entry.name] as const] : []
  }),
)

export interface ClinkCodecDeps {
  /** The CLINK room's say on requests a stopped run had taken; without a room those get "Temporary Failure". */
  server: ClinkServer | undefined
  apps: AppKeyring
  keys: ConversationKeys
  /** Signs and publishes an event of ours. */
  send: SendEvent
  clock: Clock
  log: Logger
}

/** A decoded CLINK request: the room's view of it, and who answers it in which cipher. */
interface ClinkInbound {
  app: AppKey
  scheme: CipherScheme
  request: ClinkRequest
}

export interface ClinkCodec extends NostrCodec<AppKey, ClinkInbound> {
  /** Sends a message the room sends on its own (a `clink.answer` event); false when the app is unknown. */
  deliver(message: ClinkMessage): boolean
}

/** An answer's tags: the requester, the request it answers, and the CLINK version (every answer of every kind). */
function answerTags(to: string, replyTo: string): string[][] {
  return [['p', to], ['e', replyTo], ['clink_version', '1']]
}

export function clinkCodec(deps: ClinkCodecDeps): ClinkCodec {
  const { log } = deps
  const nowUnix = () => unixSeconds(deps.clock.now())

  /** Encrypts and dates an answer; returns what to store and then send (`publish`). */
  function seal(app: AppKey, to: string, scheme: CipherScheme, answer: ClinkAnswer): StoredReply {
    const content = encryptWith(scheme, JSON.stringify(answer.payload), deps.keys.get(scheme, app.secretKey, app.pubkey, to))
    return { sentAt: nowUnix(), contents: [content], ...(answer.clinkVersion ? { clinkVersion: true } : {}) }
  }
  /** Signs and publishes a sealed answer on the request's kind, tagged p = requester and e = the request. */
  function publish(app: AppKey, to: string, kind: number, replyTo: string, sealed: StoredReply): void {
    const tags = answerTags(to, replyTo)
    deps.send({ kind, created_at: sealed.sentAt, tags, content: sealed.contents[0]! }, app.secretKey)
  }
  const reply = ({ app, scheme, request }: ClinkInbound, answer: ClinkAnswer) => seal(app, request.requester, scheme, answer)

  return {
    kinds: clinkKinds,
    keys: () => deps.apps.all().map(app => app.pubkey),
    addressee: (_event, target) => deps.apps.byPubkey(target),
    decode({ event, to: app }): Decoded<ClinkInbound> {
      let opened: { scheme: CipherScheme; plaintext: string }
      try {
        opened = decryptPayload(event.content, s => deps.keys.get(s, app.secretKey, app.pubkey, event.pubkey))
      } catch (err) {
        return { type: 'drop', reason: `does not decrypt: ${(err as Error).message}` }
      }
      // Content that decrypts but is not JSON is handed on as its text: the room answers it as an invalid request
      // in the kind's own error shape, so the requester is not left waiting.
      let body: unknown
      try {
        body = JSON.parse(opened.plaintext)
      } catch {
        body = opened.plaintext
      }
      const request: ClinkRequest = {
        kind: event.kind as ClinkKind,
        id: event.id,
        requester: event.pubkey,
        appId: app.appId,
        createdAt: event.created_at,
        tags: event.tags,
        body,
      }
      const version = event.tags.find(tag => tag[0] === 'clink_version')?.[1]
      // NIP-13: the target the author committed to (its proof of work is the id's leading zero bits, checked by the room).
      const nonceTarget = event.tags.find(tag => tag[0] === 'nonce' && tag.length >= 3)?.[2]
      const call = {
        // No operation for the kind (CLINK not served): the dispatcher refuses it; the requester hears Temporary Failure.
        op: operations.get(request.kind) ?? `kind ${request.kind}`,
        credentials: { nostr: { pubkey: request.requester, appId: request.appId } },
        input: {
          body,
          created_at: request.createdAt,
          ...(version !== undefined ? { clink_version: version } : {}),
          ...(nonceTarget !== undefined ? { nonce_target: nonceTarget } : {}),
        },
        requestId: request.id,
      }
      return { type: 'call', request: { app, scheme: opened.scheme, request }, call }
    },
    // The room's answer now; nothing while it parks the request (its answer follows as a `clink.answer` event).
    answer(inbound, output) {
      const answer = output as { payload?: Record<string, unknown>; clink_version?: boolean; parked?: boolean } | undefined
      if (!answer?.payload || answer.parked) return noReply
      return reply(inbound, { payload: answer.payload, ...(answer.clink_version ? { clinkVersion: true } : {}) })
    },
    fail(inbound, err) {
      // A refusal before the room (input the dispatcher cannot read) or a fault outside the room's own answers: the
      // requester hears it in the kind's error shape instead of waiting out its own timeout.
      const { request } = inbound
      const invalid = isOperationError(err) && err.code === 'invalid_input'
      log.info({ kind: request.kind, id: request.id, from: request.requester, err: String(err) }, 'CLINK request refused before the room')
      const payload = (invalid ? invalidAnswer : interruptedAnswer)(request.kind)
      return reply(inbound, { payload, clinkVersion: request.kind === clinkOfferKind })
    },
    // Every request reads as a call; the room answers what is wrong with it in the kind's own error shape.
    refuse: () => noReply,
    async interrupted({ request: inbound }) {
      const { request } = inbound
      const resumed = await deps.server?.resume?.(request)
      if (resumed === 'later') return noReply
      return reply(inbound, resumed ?? { payload: interruptedAnswer(request.kind), clinkVersion: request.kind === clinkOfferKind })
    },
    publish: ({ event, to: app }, sealed) => publish(app, event.pubkey, event.kind, event.id, sealed),
    resend({ event, to: app }, stored) {
      // The same content and tags re-sent later than the first copy, so it gets a new event id.
      const again = { ...stored, sentAt: Math.max(nowUnix(), stored.sentAt + 1) }
      publish(app, event.pubkey, event.kind, event.id, again)
      return again
    },
    deliver(message) {
      const app = deps.apps.byAppId(message.appId)
      if (!app) return false
      // Unsolicited answers follow NIP-44 v2, the CLINK scheme.
      publish(app, message.to, message.kind, message.replyTo, seal(app, message.to, 'nip44v2', message))
      return true
    },
  }
}
