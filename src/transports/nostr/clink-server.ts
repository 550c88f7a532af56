// Kinds 21001–21003 (CLINK offers, debits, manage: reference/pub-protocol.md §4, §5) arrive on the same
// subscription as the RPC kind. This is their transport half: the signature, exactly-once (the same SQLite claims
// as kind 21000, so a debit redelivered by a second relay or after a restart never runs twice), NIP-44 decryption,
// and the answer — same kind, tags `p` = requester and `e` = request id, encrypted the way the request was. What a
// request means is the CLINK room's business (src/clink): it gets the decrypted body and returns the answer, or
// nothing when the request is parked for the user's decision and answered later through the outbox.
import type { Event } from 'nostr-tools/pure'
import type { Logger } from 'pino'
import type { Clock } from '../../bus/context.js'
import { decryptPayload, encryptWith, type CipherScheme } from './cipher.js'
import type { ConversationKeys } from './conversation-keys.js'
import type { AppKey, AppKeyring } from './app-keys.js'
import type { Claim, ProcessedRequests, StoredReply } from './processed-requests.js'
import type { SendEvent } from './sign.js'
import type { VerifyEvent } from './verify.js'

export const clinkOfferKind = 21001
export const clinkDebitKind = 21002
export const clinkManageKind = 21003
export const clinkKinds = [clinkOfferKind, clinkDebitKind, clinkManageKind] as const
export type ClinkKind = (typeof clinkKinds)[number]

/** A decrypted CLINK request addressed to one of our app keys. */
export interface ClinkRequest {
  kind: ClinkKind
  /** The request event's id: the `e` tag of every answer, and the key that makes it run once. */
  id: string
  requester: string
  appId: string
  createdAt: number
  tags: string[][]
  /** The parsed JSON content, or the text itself when it is not JSON (not validated: the room checks it). */
  body: unknown
}

/** What a request is answered with; `clinkVersion` adds `["clink_version","1"]` (offer answers and receipts). */
export interface ClinkAnswer {
  payload: Record<string, unknown>
  clinkVersion?: boolean
}

/** A message the room sends on its own: a receipt after payment, the answer to a request the user decided later. */
export interface ClinkMessage extends ClinkAnswer {
  appId: string
  to: string
  kind: ClinkKind
  /** The request it answers (`e` tag). */
  replyTo: string
}

export interface ClinkOutbox {
  /** Signs and publishes; false when the app is unknown (the message is not sent). */
  send(message: ClinkMessage): boolean
}

/** The CLINK room as the transport sees it. */
export interface ClinkServer {
  /** Answers a request now, or resolves undefined when it was parked and will be answered through the outbox. */
  handle(request: ClinkRequest): Promise<ClinkAnswer | undefined>
  /**
   * A request taken by a run that stopped before answering (never run again): the room's answer when it knows how
   * that run ended (a debit it paid), 'later' when it answered or will answer through the outbox, undefined when it
   * knows nothing (the requester hears "Temporary Failure").
   */
  resume?(request: ClinkRequest): ClinkAnswer | 'later' | undefined
  /** Given the outbox once the relays are up; messages before that are the room's to keep. */
  attach(outbox: ClinkOutbox | undefined): void
}

/** Said to a requester whose request was taken by a daemon run that stopped before answering it (never re-run). */
const interruptedAnswers: Record<ClinkKind, Record<string, unknown>> = {
  [clinkOfferKind]: { code: 2, error: 'Temporary Failure' },
  [clinkDebitKind]: { res: 'GFY', code: 2, error: 'Temporary Failure' },
  [clinkManageKind]: { res: 'GFY', code: 2, error: 'Temporary Failure' },
}
const noReply: StoredReply = { sentAt: 0, contents: [] }

export interface ClinkTransportDeps {
  server: ClinkServer | undefined
  apps: AppKeyring
  processed: ProcessedRequests
  keys: ConversationKeys
  /** Signs and publishes an event of ours. */
  send: SendEvent
  verify: VerifyEvent
  clock: Clock
  log: Logger
}

export interface ClinkTransport {
  receive(event: Event, app: AppKey): void
  outbox: ClinkOutbox
  idle(): Promise<void>
}

/** An answer's tags: the requester, the request it answers, and the CLINK version where the answer carries it. */
function answerTags(to: string, replyTo: string, clinkVersion: boolean | undefined): string[][] {
  return [['p', to], ['e', replyTo], ...(clinkVersion ? [['clink_version', '1']] : [])]
}

export function isClinkKind(kind: number): kind is ClinkKind {
  return (clinkKinds as readonly number[]).includes(kind)
}

export function clinkTransport(deps: ClinkTransportDeps): ClinkTransport {
  const { processed, log } = deps
  const inFlight = new Map<string, Promise<void>>()
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
    if (!deps.server) {
      log.info({ kind: event.kind, id: event.id, from: event.pubkey }, 'CLINK request dropped: CLINK is not served')
      return void (await processed.answer(event.id, noReply))
    }
    const answer = await deps.server.handle(request)
    await processed.answer(event.id, answer ? publish(app, event.pubkey, event.kind, event.id, opened.scheme, answer) : noReply)
  }

  return {
    receive(event, app) {
      if (!isClinkKind(event.kind) || inFlight.has(event.id)) return
      if (!deps.verify(event)) {
        log.warn({ id: event.id, pubkey: event.pubkey }, 'dropped a CLINK event with a bad id or signature')
        return
      }
      let claim: Claim
      try {
        ;[claim] = processed.claimAll([
          { eventId: event.id, requester: event.pubkey, appPubkey: app.pubkey, createdAt: event.created_at, receivedAt: deps.clock.now() },
        ]) as [Claim]
      } catch (err) {
        log.error({ err, id: event.id }, 'could not record a CLINK request; dropped it')
        return
      }
      const running = run(claim, event as Event & { kind: ClinkKind }, app)
        .catch(err => log.error({ err, id: event.id }, 'CLINK request handling failed'))
        .finally(() => inFlight.delete(event.id))
      inFlight.set(event.id, running)
    },
    outbox: {
      send(message) {
        const app = deps.apps.byAppId(message.appId)
        if (!app) return false
        // Unsolicited answers follow NIP-44 v2, the CLINK scheme.
        publish(app, message.to, message.kind, message.replyTo, 'nip44v2', message)
        return true
      },
    },
    idle: async () => {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight.values()])
    },
  }
}
