// What a Nostr request kind is to the daemon's relay transport: a codec, a small declaration per kind. The
// transport's one inbound pipeline does everything kinds share — one subscription, size/age/shape, the signature, the
// exactly-once claim in the one claim store, the repeat of a stored reply, the dispatcher — and asks the codec only
// what differs between kinds: which keys its requests are addressed to, how a request reads as a catalogue call, how
// an answer or an error is written back, and what a request an earlier run took but never answered is told.
// A kind's codec lives with the room that knows the protocol (NIP-47 in src/nwc, CLINK in src/clink; the Pub RPC of
// kind 21000, the transport's own wire, in the transport): the composition root hands each room's `ServeKinds` to
// the transport, which lends it the parts below. So one protocol is changed in one room, and the transport imports
// no domain.
import type { Event, EventTemplate } from 'nostr-tools/pure'
import type { Logger } from 'pino'
import type { AccessLog, Call, Clock, DomainEvent } from '../bus/index.js'
import type { KeyScheme } from './cipher.js'

/** A stored reply: its encrypted contents (one per shard; none when the request was dropped) and when it was sent. */
export interface StoredReply {
  /** created_at (unix s) of the last events that carried it; a re-send must be dated later to get a new event id. */
  sentAt: number
  contents: string[]
  /** A CLINK answer carried `["clink_version","1"]`: a re-send must carry it too. */
  clinkVersion?: boolean
}

/** Signs as the key's owner and publishes (to every service relay), in call order. */
export type SendEvent = (template: EventTemplate, secretKey: Uint8Array) => void

/** Conversation keys per (scheme, app key, peer), remembered: an ECDH costs far more than the cipher. */
export interface ConversationKeys {
  get(scheme: KeyScheme, secretKey: Uint8Array, appPubkey: string, peer: string): Uint8Array
}

/** An app's key: requests name the app in their `p` tag, and the reply is signed by the key addressed. */
export interface AppKey {
  appId: string
  name: string
  pubkey: string
  secretKey: Uint8Array
}

export interface AppKeyring {
  byPubkey(pubkey: string): AppKey | undefined
  byAppId(appId: string): AppKey | undefined
  all(): AppKey[]
  /** Reloads from the apps table; true when the set of keys changed (a new app: the filter must grow). */
  refresh(): Promise<boolean>
}

/** The key a request is addressed to (its `p` tag), which signs the answer. */
export interface Addressee {
  pubkey: string
  secretKey: Uint8Array
}

/** A request as the pipeline hands it to its codec, once its signature holds. */
export interface Inbound<To extends Addressee = Addressee> {
  event: Event
  to: To
  /** performance.now() when the request arrived, for the duration of its access line. */
  arrivedAt: number
}

/** A catalogue call as a codec reads it from a request; the pipeline adds the transport and dispatches it. */
export type CodecCall = Pick<Call, 'op' | 'credentials' | 'input' | 'requestId' | 'onOutcome'>

/**
 * What a codec makes of a request:
 * - `drop`: not a request it can answer (does not decrypt, is no request of this kind): no answer, and remembered
 *   as answered with nothing so that a redelivery is dropped too;
 * - `refuse`: well-formed enough to answer, but no call can run (no such operation, a cipher it does not speak):
 *   answered at once with `refuse`, without the dispatcher;
 * - `call`: a catalogue call for the dispatcher, answered with `answer` or `fail`;
 * - `stream`: a subscription the codec keeps open itself (`openStream`), whose items follow as pushes.
 * `request` is the codec's own reading (its cipher, its request id…), handed back to each of its answers.
 */
export type Decoded<R> =
  | { type: 'drop'; reason: string }
  | { type: 'refuse'; request: R }
  | { type: 'call'; request: R; call: CodecCall }
  | { type: 'stream'; request: R; call: CodecCall }

/**
 * A request kind's codec. Every method that answers seals the answer (encrypted, dated, not yet sent) and returns it:
 * the pipeline stores it for a repeat of the request and only then has the codec `publish` it (signed by the
 * addressee), so an answer never leaves before a repeat would find it; `noReply` when there is nothing to send.
 */
export interface NostrCodec<To extends Addressee = Addressee, R = unknown> {
  /** The request kinds it serves. */
  readonly kinds: readonly number[]
  /** Every key its requests may be addressed to: the subscription's `#p` for its kinds (none: not subscribed). */
  keys(): string[]
  /**
   * The addressee of an event of sound shape and age whose `p` tag names `target`, or undefined to drop it before
   * any work (not one of our keys, or a check that needs no signature fails: a NIP-47 request past its expiration).
   */
  addressee(event: Event, target: string): To | undefined
  /** Decrypts and reads a request whose signature holds, before its claim (a repeatable read is never claimed). */
  decode(request: Inbound<To>): Decoded<R>
  /** Answers a call with the operation's output; `noReply` when nothing is to be sent now (a parked CLINK request). */
  answer(request: R, output: unknown): StoredReply
  /** Answers a call whose operation failed; may rethrow what it has no words for (the request then stays unanswered). */
  fail(request: R, error: unknown): StoredReply
  /** Answers a request no call can serve (a `refuse` of decode). */
  refuse(request: R): StoredReply
  /**
   * Answers a request an earlier run of the daemon took and never answered: it is never run a second time, so its
   * outcome is unknown unless the room that served it knows (a CLINK debit it paid: the room reads its storage,
   * hence the promise). `decoded` is never a drop.
   */
  interrupted(decoded: Exclude<Decoded<R>, { type: 'drop' }>): StoredReply | Promise<StoredReply>
  /** Opens a `stream` of decode; resolves with what to store (nothing once the subscription is accepted). */
  openStream?(request: R, call: CodecCall): Promise<StoredReply>
  /** Sends a sealed answer of this request, dated as it was sealed (once it is stored). */
  publish(request: Inbound<To>, sealed: StoredReply): void
  /**
   * Sends a stored reply again for a repeat of its request (another relay, a resubscription, a restart), dated after
   * the last copy so that it is a new event. Only called for replies that sent something.
   */
  resend(request: Inbound<To>, stored: StoredReply): StoredReply
}

/** A codec of any addressee and request reading: what the pipeline holds, one per kind. */
export type AnyNostrCodec = NostrCodec<any, any>

/** What is stored for a request dropped without a reply, so its redeliveries are dropped too. */
export const noReply: StoredReply = { sentAt: 0, contents: [] }

/** What the transport lends the codecs of a room: its keys and its ways to send, through its one relay pool. */
export interface CodecParts {
  apps: AppKeyring
  keys: ConversationKeys
  /** Signs (on the signature thread when there is one) and publishes, in call order. */
  send: SendEvent
  /** Signs on this thread and publishes at once: what a client asks the relay for right after an HTTP answer. */
  sendNow: SendEvent
  /** The codec serves a key more (`keys()` grew): the transport subscribes again. */
  resubscribe(): void
  clock: Clock
  log: Logger
  /** One line per answered request; none when the access log is off. */
  accessLog?: AccessLog
}

/** The request kinds a room serves over Nostr: their codec, and what the room's kinds do with the daemon's events. */
export interface ServedKinds {
  codec: AnyNostrCodec
  /** A domain event (a CLINK answer to send, an NWC connection made, a payment to notify); errors are logged. */
  onEvent?(event: DomainEvent): void
  /** The relays are subscribed, or changed: publish what the kinds announce (NWC info events). */
  announce?(): void
}

/** What a room hands the transport (through the composition root) to serve its kinds. */
export type ServeKinds = (parts: CodecParts) => ServedKinds
