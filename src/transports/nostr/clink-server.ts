// Kinds 21001–21003 (CLINK offers, debits, manage: reference/pub-protocol.md §4, §5) arrive on the same
// subscription as the RPC kind. This is their codec: after the shared signature and exactly-once stage (inbound.ts:
// the same SQLite claims as kind 21000, so a debit redelivered by a second relay or after a restart never runs
// twice), NIP-44 decryption, the
// request as a catalogue call (ClinkOfferRequest …, caller kind clinkRequester) through the dispatcher, and the
// answer — same kind, tags `p` = requester and `e` = request id, encrypted the way the request was. What a request
// means is the CLINK room's business (src/clink): a parked request is answered later by the room's `clink.answer`
// domain event, which `deliver` sends.
import type { Event } from 'nostr-tools/pure'
import type { Logger } from 'pino'
import { lastValueFrom, type Clock, type Dispatcher } from '../../bus/index.js'
import { catalogue } from '../../../schema/catalogue.js'
import {
  clinkDebitKind, clinkKinds, clinkManageKind, clinkOfferKind, isClinkKind,
  type ClinkAnswer, type ClinkKind, type ClinkMessage, type ClinkRequest, type ClinkServer,
} from '../../clink/index.js'
import { decryptPayload, encryptWith, type CipherScheme } from './cipher.js'
import type { ConversationKeys } from './conversation-keys.js'
import type { AppKey, AppKeyring } from './app-keys.js'
import type { Claim, ProcessedRequests, StoredReply } from './processed-requests.js'
import { claimStage, type ClaimStage } from './inbound.js'
import type { SendEvent } from './sign.js'
import type { VerifyEvent } from './verify.js'

export { clinkKinds, isClinkKind }

/** The catalogue operation of each kind (`nostrCodec.kind`). */
const operations = new Map(
  catalogue.flatMap(entry => {
    const codec = (entry as { nostrCodec?: { kind: number } }).nostrCodec
    return codec && isClinkKind(codec.kind) ? [[codec.kind, entry.name] as const] : []
  }),
)

/** Said to a requester whose request was taken by a daemon run that stopped before answering it (never re-run). */
const interruptedAnswers: Record<ClinkKind, Record<string, unknown>> = {
  [clinkOfferKind]: { code: 2, error: 'Temporary Failure' },
  [clinkDebitKind]: { res: 'GFY', code: 2, error: 'Temporary Failure' },
  [clinkManageKind]: { res: 'GFY', code: 2, error: 'Temporary Failure' },
}
const noReply: StoredReply = { sentAt: 0, contents: [] }

export interface ClinkTransportDeps {
  dispatcher: Pick<Dispatcher, 'dispatch'>
  /** The CLINK room's say on requests a stopped run had taken; without a room those get "Temporary Failure". */
  server: ClinkServer | undefined
  apps: AppKeyring
  processed: ProcessedRequests
  keys: ConversationKeys
  /** Signs and publishes an event of ours. */
  send: SendEvent
  verify: VerifyEvent
  clock: Clock
  log: Logger
  /** The daemon's one signature → claim stage, shared by every kind (inbound.ts). */
  stage?: ClaimStage
}

export interface ClinkTransport {
  receive(event: Event, app: AppKey): void
  /** Sends a message the room sends on its own (a `clink.answer` event); false when the app is unknown. */
  deliver(message: ClinkMessage): boolean
  idle(): Promise<void>
}

/** An answer's tags: the requester, the request it answers, and the CLINK version where the answer carries it. */
function answerTags(to: string, replyTo: string, clinkVersion: boolean | undefined): string[][] {
  return [['p', to], ['e', replyTo], ...(clinkVersion ? [['clink_version', '1']] : [])]
}

export function clinkTransport(deps: ClinkTransportDeps): ClinkTransport {
  const { processed, log } = deps
  // The shared signature → claim stage; its own when this codec runs alone (tests).
  const stage = deps.stage ?? claimStage(deps)
  const nowUnix = () => Math.floor(deps.clock.now() / 1000)

  /** Encrypts, signs and publishes an answer; returns what to store for a re-send. */
  function publish(app: AppKey, to: string, kind: ClinkKind, replyTo: string, scheme: CipherScheme, answer: ClinkAnswer, notBefore = 0): StoredReply {
    const content = encryptWith(scheme, JSON.stringify(answer.payload), deps.keys.get(scheme, app.secretKey, app.pubkey, to))
    const tags = answerTags(to, replyTo, answer.clinkVersion)
    const sentAt = Math.max(nowUnix(), notBefore)
    deps.send({ kind, created_at: sentAt, tags, content }, app.secretKey)
    return { sentAt, contents: [content], ...(answer.clinkVersion ? { clinkVersion: true } : {}) }
  }

  /**
   * The request's scheme and body. Content that decrypts but is not JSON is handed on as its text: the room
   * answers it as an invalid request in the kind's own error shape, so the requester is not left waiting.
   */
  function decrypt(event: Event, app: AppKey): { scheme: CipherScheme; body: unknown } | undefined {
    let opened: { scheme: CipherScheme; plaintext: string }
    try {
      opened = decryptPayload(event.content, s => deps.keys.get(s, app.secretKey, app.pubkey, event.pubkey))
    } catch (err) {
      log.debug({ id: event.id, reason: (err as Error).message }, 'dropped a CLINK request that does not decrypt')
      return undefined
    }
    try {
      return { scheme: opened.scheme, body: JSON.parse(opened.plaintext) as unknown }
    } catch {
      return { scheme: opened.scheme, body: opened.plaintext }
    }
  }

  async function run(claim: Claim, event: Event & { kind: ClinkKind }, app: AppKey): Promise<void> {
    if (claim.state === 'answered') {
      const stored = claim.reply
      const content = stored.contents[0]
      if (content === undefined) return
      // The same content and tags re-sent later than the first copy, so it gets a new event id.
      const tags = answerTags(event.pubkey, event.id, stored.clinkVersion)
      const sentAt = Math.max(nowUnix(), stored.sentAt + 1)
      deps.send({ kind: event.kind, created_at: sentAt, tags, content }, app.secretKey)
      await processed.answer(event.id, { ...stored, sentAt })
      return
    }
    const opened = decrypt(event, app)
    if (!opened) return void (await processed.answer(event.id, noReply))
    const request: ClinkRequest = {
      kind: event.kind,
      id: event.id,
      requester: event.pubkey,
      appId: app.appId,
      createdAt: event.created_at,
      tags: event.tags,
      body: opened.body,
    }
    if (claim.state === 'interrupted') {
      const resumed = deps.server?.resume?.(request)
      if (resumed === 'later') return void (await processed.answer(event.id, noReply))
      const answer = resumed ?? { payload: interruptedAnswers[event.kind], clinkVersion: event.kind === clinkOfferKind }
      await processed.answer(event.id, publish(app, event.pubkey, event.kind, event.id, opened.scheme, answer))
      return
    }
    const answer = await dispatch(request)
    await processed.answer(event.id, answer ? publish(app, event.pubkey, event.kind, event.id, opened.scheme, answer) : noReply)
  }

  /** The room's answer now, or undefined when it parked the request (or CLINK is not served: dropped). */
  async function dispatch(request: ClinkRequest): Promise<ClinkAnswer | undefined> {
    const op = operations.get(request.kind)
    const version = request.tags.find(tag => tag[0] === 'clink_version')?.[1]
    let answer: { payload?: Record<string, unknown>; clink_version?: boolean; parked?: boolean } | undefined
    try {
      answer = (await lastValueFrom(
        deps.dispatcher.dispatch({
          op: op ?? `kind ${request.kind}`,
          credentials: { nostr: { pubkey: request.requester, appId: request.appId } },
          input: { body: request.body, created_at: request.createdAt, ...(version !== undefined ? { clink_version: version } : {}) },
          transport: 'nostr',
          requestId: request.id,
        }),
      )) as typeof answer
    } catch (err) {
      // No room registered (CLINK not served) or a fault outside the room's own answers: nothing the spec can say.
      log.info({ kind: request.kind, id: request.id, from: request.requester, err: String(err) }, 'CLINK request dropped unanswered')
      return undefined
    }
    if (!answer?.payload || answer.parked) return undefined
    return { payload: answer.payload, ...(answer.clink_version ? { clinkVersion: true } : {}) }
  }

  return {
    receive(event, app) {
      if (!isClinkKind(event.kind)) return
      stage.take(event, app.pubkey, claim => run(claim, event as Event & { kind: ClinkKind }, app))
    },
    deliver(message) {
      const app = deps.apps.byAppId(message.appId)
      if (!app) return false
      // Unsolicited answers follow NIP-44 v2, the CLINK scheme.
      publish(app, message.to, message.kind, message.replyTo, 'nip44v2', message)
      return true
    },
    idle: () => stage.idle(),
  }
}
