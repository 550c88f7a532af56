// NIP-47 on the relays, the codec the relay transport runs kind 23194 through: a request addressed to an NWC
// connection's service key (and
// not past its expiration tag), decrypted with the scheme its `encryption` tag names, read as a catalogue call
// (`{method, params}` → NwcPayInvoice …, caller kind nwcConnection) and answered with kind 23195 in that scheme, one
// access line per answer in NIP-47's words. The connections' info events (13194) and payment notifications (23197
// NIP-44, 23196 NIP-04) leave here too.
import { isOperationError, type DomainEvent } from '../bus/index.js'
import { catalogue } from '../../schema/catalogue.js'
import { nwcConnectionOf } from '../auth/index.js'
import {
  encryptWith, decryptWith, encryptNip04, decryptNip04,
  type Addressee, type CodecParts, type Decoded, type Inbound, type NostrCodec, type ServeKinds, type StoredReply,
} from '../nostr-codecs/index.js'
import { unixSeconds } from '../units/index.js'
import {
  nwcInfoKind, nwcNotificationKindNip04, nwcNotificationKindNip44, nwcRequestKind, nwcResponseKind,
} from '../nostr-kinds/index.js'
import { nip47CodeOf } from './nip47-errors.js'
import type { NwcRelayView } from './relay-view.js'

type NwcEncryption = 'nip44_v2' | 'nip04'
/** What the info event's `encryption` tag announces. */
const supportedEncryptions: readonly NwcEncryption[] = ['nip44_v2', 'nip04']

/** The NIP-47 methods served, by the name a client sends: the catalogue entries this codec serves. */
const operations = new Map(
  catalogue.flatMap(entry => {
    const codec = (entry as { nostrCodec?: { kind: number; request: string } }).nostrCodec
    return codec?.kind === nwcRequestKind ? [[codec.request, entry.name] as const] : []
  }),
)

interface NwcResponse {
  result_type: string
  error: { code: string; message: string } | null
  result: object | null
}

/**
 * `sendNow` publishes the info events, which an app asks the relay for right after the user made its connection (the
 * HTTP answer must not outrun them); the access log gets one line per answered request, in NIP-47's words.
 */
export interface NwcCodecDeps extends Pick<CodecParts, 'keys' | 'send' | 'sendNow' | 'clock' | 'accessLog'> {
  view: NwcRelayView
}

/** A decoded NIP-47 request: the request, who answers it in which scheme, and the refusal when no call can run. */
interface NwcInbound {
  request: Inbound
  scheme: NwcEncryption
  method: string
  refusal?: NwcResponse
  /** The refusal is the cipher's: said even to a request an earlier run took. */
  cipherRefused?: boolean
}

export interface NwcCodec extends NostrCodec<Addressee, NwcInbound> {
  /** Adds a connection's service key to those served; false when it was served already. */
  serve(servicePubkey: string): boolean
  /** Publishes a connection's info event (no-op when it is revoked or expired). */
  announce(servicePubkey: string): void
  /** Publishes every live connection's info event. */
  announceAll(): void
  /** Sends the notifications a domain event causes. */
  notify(event: DomainEvent): Promise<void>
}

export function nwcCodec(deps: NwcCodecDeps): NwcCodec {
  const { view } = deps
  const nowUnix = () => unixSeconds(deps.clock.now())
  // Revoked connections stay served so that their apps hear UNAUTHORIZED rather than silence.
  const serviceKeys = new Set(view.servicePubkeys())

  // Both schemes' keys are remembered per peer: a payment's notice goes out in both.
  const encrypt = (scheme: NwcEncryption, secret: Uint8Array, servicePubkey: string, peer: string, text: string) =>
    scheme === 'nip44_v2'
      ? encryptWith('nip44v2', text, deps.keys.get('nip44v2', secret, servicePubkey, peer))
      : encryptNip04(deps.keys.get('nip04', secret, servicePubkey, peer), text)
  const decrypt = (scheme: NwcEncryption, secret: Uint8Array, servicePubkey: string, peer: string, payload: string) =>
    scheme === 'nip44_v2'
      ? decryptWith('nip44v2', payload, deps.keys.get('nip44v2', secret, servicePubkey, peer))
      : decryptNip04(deps.keys.get('nip04', secret, servicePubkey, peer), payload)

  /** Encrypts and dates an answer (sent by `publish` once stored), and writes its access line. */
  function respond({ request: { event, to, arrivedAt }, scheme }: NwcInbound, response: NwcResponse): StoredReply {
    deps.accessLog?.({
      transport: 'nwc',
      operation: response.result_type || null,
      caller: 'nwc',
      outcome: response.error?.code ?? 'ok',
      status: response.error ? 'error' : 'ok',
      durationMs: performance.now() - arrivedAt,
      requestId: event.id,
    })
    const content = encrypt(scheme, to.secretKey, to.pubkey, event.pubkey, JSON.stringify(response))
    return { sentAt: nowUnix(), contents: [content] }
  }
  /** Signs and publishes an answer: kind 23195 tagged p = the client and e = its request. */
  function publish({ event, to }: Inbound, answer: StoredReply): void {
    const content = answer.contents[0]!
    deps.send({ kind: nwcResponseKind, created_at: answer.sentAt, tags: [['p', event.pubkey], ['e', event.id]], content }, to.secretKey)
  }

  function decode(request: Inbound): Decoded<NwcInbound> {
    const { event, to } = request
    const scheme = requestedEncryption(event.tags)
    if (scheme === undefined) {
      // The client named a scheme we do not speak; NIP-04 is the one every NWC client can read.
      const refusal = failure('', 'UNSUPPORTED_ENCRYPTION', 'supported: nip44_v2, nip04')
      return { type: 'refuse', request: { request, scheme: 'nip04', method: '', refusal, cipherRefused: true } }
    }
    let parsed: { method: string; params: Record<string, unknown> }
    try {
      parsed = parseRequest(decrypt(scheme, to.secretKey, to.pubkey, event.pubkey, event.content))
    } catch (err) {
      return { type: 'drop', reason: `does not decrypt or parse: ${String(err)}` }
    }
    const { method } = parsed
    const inbound: NwcInbound = { request, scheme, method }
    const credentials = { nwc: { pubkey: event.pubkey, servicePubkey: to.pubkey } }
    const op = operations.get(method)
    if (op === undefined) {
      // No operation to authenticate for, but a stranger or a dead connection still hears UNAUTHORIZED first.
      try {
        nwcConnectionOf(credentials, { nwc: view, now: () => deps.clock.now() })
      } catch (err) {
        if (!isOperationError(err)) throw err
        return { type: 'refuse', request: { ...inbound, refusal: failure(method, nip47CodeOf(err), err.message) } }
      }
      return { type: 'refuse', request: { ...inbound, refusal: failure(method, 'NOT_IMPLEMENTED', `method ${method} is not supported`) } }
    }
    const call = {
      op,
      credentials,
      input: parsed.params,
      requestId: event.id,
      onOutcome: () => {}, // the access line is written with the answer, in NIP-47's words
    }
    return { type: 'call', request: inbound, call }
  }

  return {
    kinds: [nwcRequestKind],
    keys: () => [...serviceKeys],
    addressee(event, servicePubkey) {
      const secretKey = view.serviceSecret(servicePubkey)
      if (!secretKey) return undefined
      // NIP-47: a request received after its expiration tag is ignored, not answered.
      const expiration = Number(event.tags.find(tag => tag[0] === 'expiration')?.[1])
      if (Number.isFinite(expiration) && expiration <= nowUnix()) return undefined
      return { pubkey: servicePubkey, secretKey }
    },
    decode,
    answer: (inbound, result) => respond(inbound, { result_type: inbound.method, error: null, result: result as object }),
    fail(inbound, err) {
      if (!isOperationError(err)) throw err
      const code = nip47CodeOf(err)
      return respond(inbound, failure(inbound.method, code, code === 'INTERNAL' ? 'internal error' : err.message))
    },
    refuse: inbound => respond(inbound, inbound.refusal!),
    interrupted({ request: inbound }) {
      if (inbound.cipherRefused) return respond(inbound, inbound.refusal!)
      return respond(inbound, failure(inbound.method, 'INTERNAL', 'the request was interrupted by a restart; look the payment up before retrying'))
    },
    publish,
    resend(request, stored) {
      // The same request again (another relay, a resubscription, a restart): the stored answer, nothing re-run.
      const again = { sentAt: Math.max(nowUnix(), stored.sentAt + 1), contents: stored.contents } // same date: same event id
      publish(request, again)
      return again
    },
    serve(servicePubkey) {
      if (serviceKeys.has(servicePubkey)) return false
      serviceKeys.add(servicePubkey)
      return true
    },
    announce(servicePubkey) {
      const info = view.announcement(servicePubkey)
      if (info) publishInfo(info)
    },
    announceAll() {
      for (const info of view.announcements()) publishInfo(info)
    },
    async notify(event) {
      for (const { servicePubkey, serviceSecret, clientPubkey, notice } of await view.noticesFor(event)) {
        const text = JSON.stringify(notice)
        // A service speaking both schemes publishes both kinds; each client reads the one it understands.
        for (const [kind, scheme] of [[nwcNotificationKindNip44, 'nip44_v2'], [nwcNotificationKindNip04, 'nip04']] as const) {
          const content = encrypt(scheme, serviceSecret, servicePubkey, clientPubkey, text)
          deps.send({ kind, created_at: nowUnix(), tags: [['p', clientPubkey]], content }, serviceSecret)
        }
      }
    },
  }

  function publishInfo(info: { serviceSecret: Uint8Array; methods: readonly string[] }): void {
    deps.sendNow(
      {
        kind: nwcInfoKind,
        created_at: nowUnix(),
        tags: [
          ['encryption', supportedEncryptions.join(' ')],
          ['notifications', view.notificationTypes.join(' ')],
        ],
        content: [...info.methods, 'notifications'].join(' '),
      },
      info.serviceSecret,
    )
  }
}

function failure(method: string, code: string, message: string): NwcResponse {
  return { result_type: method, error: { code, message }, result: null }
}

/** The scheme a request asks for; undefined for a scheme this service does not speak. */
function requestedEncryption(tags: string[][]): NwcEncryption | undefined {
  const tag = tags.find(t => Array.isArray(t) && t[0] === 'encryption')
  if (!tag) return 'nip04' // NIP-47's rule for older clients that send no tag
  // A request names one scheme; a list (as in info events) is read as the client's preference order.
  const named = String(tag[1] ?? '').split(/\s+/)
  return named.find((name): name is NwcEncryption => (supportedEncryptions as readonly string[]).includes(name))
}

function parseRequest(text: string): { method: string; params: Record<string, unknown> } {
  const parsed: unknown = JSON.parse(text)
  if (typeof parsed !== 'object' || parsed === null) throw new Error('request is not an object')
  const { method, params } = parsed as { method?: unknown; params?: unknown }
  if (typeof method !== 'string') throw new Error('request has no method')
  return { method, params: typeof params === 'object' && params !== null ? (params as Record<string, unknown>) : {} }
}

/**
 * Kind 23194 as the room serves it: the codec; a connection made or changed joins the subscription and announces
 * itself, and a payment notifies the connections of its wallet.
 */
export function nwcNostrKinds(view: NwcRelayView): ServeKinds {
  return parts => {
    const codec = nwcCodec({ ...parts, view })
    return {
      codec,
      onEvent(event: DomainEvent) {
        if (event.type === 'nwc.connection') {
          if (codec.serve(event.servicePubkey)) parts.resubscribe()
          codec.announce(event.servicePubkey)
        } else if (event.type === 'invoice.paid' || event.type === 'payment.settled') {
          codec.notify(event).catch(err => parts.log.error({ err, type: event.type }, 'could not send an NWC notification'))
        }
      },
      announce: () => codec.announceAll(),
    }
  }
}
