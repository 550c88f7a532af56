// Kind-21000 requests → the dispatcher → replies (reference/pub-protocol.md §3.4–3.6): the Pub envelope codec. The
// in-flight set, the signature and the exactly-once claim are the shared stage's (inbound.ts); here come
// decryption (nip44v1 or v2, whichever the request used) and the envelope rules. Requests that break a rule (do not decrypt, are no envelope, claim another
// author) are dropped without a reply, as upstream does, and remembered as answered-with-nothing so a redelivery
// is dropped too. A well-formed envelope that names no operation served here, or carries a body that is not an
// object, is answered with an ERROR under its requestId (upstream drops it, leaving its client to time out).
import { lastValueFrom, type Dispatcher, isOperationError, type Clock, type AccessLog } from '../../bus/index.js'
import type { Event } from 'nostr-tools/pure'
import type { Logger } from 'pino'
import { decryptPayload, type CipherScheme } from './cipher.js'
import type { ConversationKeys } from './conversation-keys.js'
import type { AppKey } from './app-keys.js'
import type { Claim, ProcessedRequests } from './processed-requests.js'
import { claimStage, type ClaimStage } from './inbound.js'
import type { ReplySender } from './reply-sender.js'
import type { VerifyEvent } from './verify.js'
import { envelopeInput, errorReply, okReply, parseEnvelope, type RequestEnvelope } from './envelope.js'
import { liveStreams, type LiveStreams } from './live-streams.js'

/** Said to a client whose request was taken by a daemon run that stopped before answering it. */
export const interruptedReason = 'the service restarted while handling this request; its outcome is unknown'

/** An unknown rpcName is quoted back this far: enough to see a typo, not a way to make us echo a large text. */
const maxNameInReply = 64

/** What is stored for a request dropped without a reply, so its redeliveries are dropped too. */
const noReply = { sentAt: 0, contents: [] }

export interface RpcServerDeps {
  dispatcher: Pick<Dispatcher, 'resolve' | 'dispatch'>
  processed: ProcessedRequests
  keys: ConversationKeys
  sender: ReplySender
  verify: VerifyEvent
  clock: Clock
  log: Logger
  /** The daemon's one signature → claim stage, shared by every kind (inbound.ts). */
  stage?: ClaimStage
  /** Requests refused before the dispatcher (no such operation, a body that is no object) get their line here. */
  accessLog?: AccessLog
  /** The open stream subscriptions, shared with the linked-key pushes; its own when this server runs alone (tests). */
  streams?: LiveStreams
}

export interface RpcServer {
  /** A kind-21000 event addressed to `app`, already checked for age. */
  receive(event: Event, app: AppKey): void
  /** Resolves when every request taken so far has been answered. */
  idle(): Promise<void>
}

export function rpcServer(deps: RpcServerDeps): RpcServer {
  const { processed, sender, log } = deps
  // The shared signature → claim stage; its own when this server runs alone (tests).
  const stage = deps.stage ?? claimStage(deps)
  const streams = deps.streams ?? liveStreams({ dispatcher: deps.dispatcher, sender, log })

  function receive(event: Event, app: AppKey): void {
    stage.take(event, app.pubkey, claim => run(claim, event, app))
  }

  async function run(claim: Claim, event: Event, app: AppKey): Promise<void> {
    if (claim.state === 'answered') {
      if (claim.reply.contents.length > 0) await processed.answer(event.id, sender.resend(app, event.pubkey, claim.reply))
      return
    }
    await (claim.state === 'interrupted' ? answerInterrupted(event, app) : handle(event, app))
  }

  async function handle(event: Event, app: AppKey): Promise<void> {
    const opened = open(event, app)
    if (!opened) {
      await processed.answer(event.id, noReply)
      return
    }
    const { envelope, scheme } = opened
    sender.rememberScheme(event.pubkey, scheme)
    const entry = deps.dispatcher.resolve(envelope.rpcName)
    const refuse = async (reason: string) => {
      log.debug({ rpcName: envelope.rpcName.slice(0, maxNameInReply), id: event.id, reason }, 'refused a request over the relay')
      deps.accessLog?.({
        transport: 'nostr',
        operation: entry?.name ?? null,
        caller: 'none',
        outcome: entry ? 'invalid_input' : 'not_found',
        status: 'error',
        durationMs: 0,
        requestId: envelope.requestId,
      })
      await processed.answer(event.id, sender.send(app, event.pubkey, scheme, errorReply(reason, envelope.requestId)))
    }
    if (!entry) return refuse(`unknown rpcName: ${JSON.stringify(envelope.rpcName.slice(0, maxNameInReply))}`)
    const codec = (entry as { nostrCodec?: { kind: number; request: string } }).nostrCodec
    if (codec) return refuse(`${entry.name} is served on Nostr kind ${codec.kind} as "${codec.request}", not as an rpcName`)
    if (!entry.nostr) return refuse(`${entry.name} is not served over the relay: call it over HTTP`)
    if (envelope.invalid) return refuse(envelope.invalid)
    if (entry.stream) {
      // The subscription stays open; what the stream emits is pushed with requestId = rpc name (live-streams.ts).
      const refused = await streams.open({
        stream: entry.name, app, peer: event.pubkey, scheme, requestId: envelope.requestId, input: envelopeInput(envelope),
      })
      await processed.answer(event.id, refused ?? noReply)
      return
    }
    const answers = deps.dispatcher.dispatch({
      op: entry.name,
      credentials: { nostr: { pubkey: event.pubkey, appId: app.appId } },
      input: envelopeInput(envelope),
      transport: 'nostr',
      requestId: envelope.requestId,
    })
    let reply: Record<string, unknown>
    try {
      reply = okReply(await lastValueFrom(answers, { defaultValue: undefined }), envelope.requestId)
    } catch (err) {
      reply = errorReply(isOperationError(err) ? err.message : 'internal error', envelope.requestId)
    }
    await processed.answer(event.id, sender.send(app, event.pubkey, scheme, reply))
  }

  /** Decrypts with the request's scheme and applies the envelope rules; undefined means "drop silently". */
  function open(event: Event, app: AppKey): { envelope: RequestEnvelope; scheme: CipherScheme } | undefined {
    let plaintext: string
    let scheme: CipherScheme
    try {
      ;({ plaintext, scheme } = decryptPayload(event.content, s => deps.keys.get(s, app.secretKey, app.pubkey, event.pubkey)))
    } catch (err) {
      log.debug({ id: event.id, reason: (err as Error).message }, 'dropped a request that does not decrypt')
      return undefined
    }
    const envelope = parseEnvelope(plaintext)
    if (!envelope) {
      log.debug({ id: event.id }, 'dropped a request that is not a request envelope')
      return undefined
    }
    if (envelope.authIdentifier !== event.pubkey) {
      log.debug({ id: event.id }, 'dropped a request whose authIdentifier is not its author')
      return undefined
    }
    return { envelope, scheme }
  }

  /** A request an earlier run took but never answered: answer honestly instead of running it a second time. */
  async function answerInterrupted(event: Event, app: AppKey): Promise<void> {
    const opened = open(event, app)
    await processed.answer(
      event.id,
      opened ? sender.send(app, event.pubkey, opened.scheme, errorReply(interruptedReason, opened.envelope.requestId)) : noReply,
    )
  }

  return { receive, idle: () => stage.idle() }
}
