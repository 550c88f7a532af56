// Kind 21000, the Pub RPC envelope (docs/pub-protocol.md, "Kind 21000"): addressed to an app key, decrypted with
// nip44v1 or v2 (whichever the request used, and its answer uses), read as `{rpcName, requestId, authIdentifier,
// body, query}` and answered through the reply sender (shards when long, tag `p` only; clients match replies by
// requestId). Requests that break a rule (do not decrypt, are no envelope, claim another author) are dropped without
// a reply, as upstream does. An envelope with a requestId that names no operation served here (or none at all), or
// carries a body that is not an object, is answered with an ERROR under its requestId (upstream drops it, leaving its
// client to time out).
import { type Dispatcher, isOperationError, type AccessLog } from '../../../bus/index.js'
import type { Logger } from 'pino'
import {
  decryptPayload, noReply, type AppKey, type AppKeyring, type CipherScheme, type ConversationKeys, type Decoded, type Inbound, type NostrCodec,
} from '../../../nostr-codecs/index.js'
import type { ReplySender } from '../reply-sender.js'
import { envelopeInput, errorReply, okReply, parseEnvelope, type RequestEnvelope } from '../envelope.js'
import type { LiveStreams } from '../live-streams.js'
import { pubRpcKind } from '../../../nostr-kinds/index.js'

/** Said to a client whose request was taken by a daemon run that stopped before answering it. */
export const interruptedReason = 'the service restarted while handling this request; its outcome is unknown'

/** An unknown rpcName is quoted back this far: enough to see a typo, not a way to make us echo a large text. */
const maxNameInReply = 64

export interface PubRpcCodecDeps {
  dispatcher: Pick<Dispatcher, 'resolve'>
  apps: AppKeyring
  keys: ConversationKeys
  sender: ReplySender
  /** The open stream subscriptions, shared with the linked-key pushes. */
  streams: LiveStreams
  log: Logger
  /** Requests refused before the dispatcher (no such operation, a body that is no object) get their line here. */
  accessLog?: AccessLog
}

/** A decoded kind-21000 request: who asked whom, in which cipher, and why it is refused if it is. */
interface PubRequest {
  app: AppKey
  peer: string
  scheme: CipherScheme
  envelope: RequestEnvelope
  /** The catalogue operation named, if any. */
  operation?: string
  refusal?: string
}

export function pubRpcCodec(deps: PubRpcCodecDeps): NostrCodec<AppKey, PubRequest> {
  const { sender, log } = deps
  const send = (request: PubRequest, payload: Record<string, unknown>) => sender.seal(request.app, request.peer, request.scheme, payload)

  function decode({ event, to: app }: Inbound<AppKey>): Decoded<PubRequest> {
    let plaintext: string
    let scheme: CipherScheme
    try {
      ;({ plaintext, scheme } = decryptPayload(event.content, s => deps.keys.get(s, app.secretKey, app.pubkey, event.pubkey)))
    } catch (err) {
      return { type: 'drop', reason: `does not decrypt: ${(err as Error).message}` }
    }
    const envelope = parseEnvelope(plaintext)
    if (!envelope) return { type: 'drop', reason: 'not a request envelope' }
    if (envelope.authIdentifier !== event.pubkey) return { type: 'drop', reason: 'its authIdentifier is not its author' }
    sender.rememberScheme(event.pubkey, scheme)
    const request: PubRequest = { app, peer: event.pubkey, scheme, envelope }
    const entry = deps.dispatcher.resolve(envelope.rpcName)
    const refuse = (refusal: string): Decoded<PubRequest> => ({ type: 'refuse', request: { ...request, refusal } })
    if (!entry) {
      // A nameless envelope says why; a name we do not serve is quoted back.
      if (envelope.rpcName === '' && envelope.invalid) return refuse(envelope.invalid)
      return refuse(`unknown rpcName: ${JSON.stringify(envelope.rpcName.slice(0, maxNameInReply))}`)
    }
    request.operation = entry.name
    const codec = (entry as { nostrCodec?: { kind: number; request: string } }).nostrCodec
    if (codec) return refuse(`${entry.name} is served on Nostr kind ${codec.kind} as "${codec.request}", not as an rpcName`)
    if (!entry.nostr) return refuse(`${entry.name} is not served over the relay: call it over HTTP`)
    if (envelope.invalid) return refuse(envelope.invalid)
    const call = {
      op: entry.name,
      credentials: { nostr: { pubkey: event.pubkey, appId: app.appId } },
      input: envelopeInput(envelope),
      requestId: envelope.requestId,
    }
    return { type: entry.stream ? 'stream' : 'call', request, call }
  }

  return {
    kinds: [pubRpcKind],
    keys: () => deps.apps.all().map(app => app.pubkey),
    addressee: (_event, target) => deps.apps.byPubkey(target),
    decode,
    answer: (request, output) => send(request, okReply(output, request.envelope.requestId)),
    fail: (request, err) =>
      send(request, errorReply(isOperationError(err) ? err.message : 'internal error', request.envelope.requestId)),
    refuse(request) {
      const { envelope, operation } = request
      log.debug({ rpcName: envelope.rpcName.slice(0, maxNameInReply), reason: request.refusal }, 'refused a request over the relay')
      deps.accessLog?.({
        transport: 'nostr',
        operation: operation ?? null,
        caller: 'none',
        outcome: operation ? 'invalid_input' : 'not_found',
        status: 'error',
        durationMs: 0,
        requestId: envelope.requestId,
      })
      return send(request, errorReply(request.refusal ?? 'refused', envelope.requestId))
    },
    // Answered honestly instead of run a second time.
    interrupted: ({ request }) => send(request, errorReply(interruptedReason, request.envelope.requestId)),
    // The subscription stays open; what the stream emits is pushed with requestId = rpc name (live-streams.ts).
    async openStream(request, call) {
      const refused = await deps.streams.open({
        stream: call.op, app: request.app, peer: request.peer, scheme: request.scheme, requestId: call.requestId, input: call.input,
      })
      return refused ?? noReply
    },
    publish: ({ event, to: app }, sealed) => sender.publish(app, event.pubkey, sealed),
    resend: ({ event, to: app }, stored) => sender.resend(app, event.pubkey, stored),
  }
}
