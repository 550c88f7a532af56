// The CLINK kinds on the relays, 21001–21004 (offers, debits, manage, enroll: docs/pub-protocol.md, "CLINK"): the
// codec the relay transport runs them through. A request is addressed to an app key, NIP-44 decrypted, read as a
// catalogue call (ClinkOfferRequest …, caller kind clinkRequester), and answered on the same kind, tags `p` =
// requester and `e` = request id, encrypted the way the request was. A parked request is answered later by the
// room's `clink.answer` domain event, which `deliver` sends; a request a stopped run had taken is the room's to
// resume (ClinkServer). The transport lends the keys and the sending (CodecParts); it knows nothing of CLINK.
import { isOperationError, type DomainEvent } from '../bus/index.js'
import { catalogue } from '../../schema/catalogue.js'
import {
  clinkKinds, clinkOfferKind, isClinkKind,
  type ClinkAnswer, type ClinkKind, type ClinkMessage, type ClinkRequest, type ClinkServer,
} from './wire.js'
import { interruptedAnswer, invalidAnswer } from './gfy.js'
import {
  decryptPayload, encryptWith, noReply,
  type AppKey, type CipherScheme, type CodecParts, type Decoded, type NostrCodec, type ServeKinds, type StoredReply,
} from '../nostr-codecs/index.js'
import { unixSeconds } from '../units/index.js'

/** The catalogue operation of each kind (`nostrCodec.kind`). */
const operations = new Map(
  catalogue.flatMap(entry => {
    const codec = (entry as { nostrCodec?: { kind: number } }).nostrCodec
    return codec && isClinkKind(codec.kind) ? [[codec.kind, entry.name] as const] : []
  }),
)

export interface ClinkCodecDeps extends Pick<CodecParts, 'apps' | 'keys' | 'send' | 'clock' | 'log'> {
  /** The CLINK room's say on requests a stopped run had taken; without a room those get "Temporary Failure". */
  server: ClinkServer | undefined
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

/** The CLINK kinds as the room serves them: the codec, and the room's own messages (`clink.answer`) sent by it. */
export function clinkNostrKinds(server: ClinkServer): ServeKinds {
  return parts => {
    const codec = clinkCodec({ ...parts, server })
    return {
      codec,
      onEvent(event: DomainEvent) {
        if (event.type !== 'clink.answer' || !isClinkKind(event.kind)) return
        if (!codec.deliver({ ...event, kind: event.kind })) parts.log.warn({ id: event.replyTo }, 'CLINK message not sent: unknown app')
      },
    }
  }
}
