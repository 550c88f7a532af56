// The WebRTC upgrade of the metrics caller (upstream's experimental one; docs/pub-protocol.md, "Kind 21000"): the
// caller submits an offer (and then its candidates) through SubmitWebRtcMessage and gets the answer back; the
// daemon's candidates go to the caller's key as SubToWebRtcCandidates pushes; over the data channel the caller
// asks for usage and bundle metrics files (metrics-channel.ts). Uses werift, a WebRTC stack in TypeScript.
import { randomBytes } from 'node:crypto'
import { Subject, filter, map, type Observable, OperationError, type HandlerTable, type OutputOf } from '../bus/index.js'
import type { Logger } from 'pino'
import type { MetricsFileRequest } from './metrics-channel.js'
import { createPeerTable, type PeerOwner, type WebRtcSettings } from './peers.js'
import { parseCandidate, parseOffer } from './signals.js'

export type { WebRtcSettings } from './peers.js'
export { packetDataBytes, packetType } from './metrics-channel.js'

/** The request id upstream gives candidate pushes. */
export const candidatesStream = 'SubToWebRtcCandidates'

/** A message for the relay transport to send to one key, unasked (a push). */
export interface KeyPush {
  appId: string
  pubkey: string
  payload: Record<string, unknown>
}

export interface WebRtcDeps {
  settings: WebRtcSettings
  /** The metrics room's file reader (Metrics.metricsFile). */
  metricsFile(request: MetricsFileRequest, callerAppId: string): Uint8Array
  log: Logger
  random?: (bytes: number) => Uint8Array
}

export interface WebRtc {
  handlers: HandlerTable
  /** Candidate pushes for the relay transport. */
  pushes$: Observable<KeyPush>
  /** Open peer connections. */
  peerCount(): number
  /** Closes every peer connection. */
  stop(): Promise<void>
}

export function createWebRtc(deps: WebRtcDeps): WebRtc {
  const pushes = new Subject<KeyPush>()
  const peers = createPeerTable({
    settings: deps.settings,
    metricsFile: (request, owner) => deps.metricsFile(request, owner.appId),
    pushCandidate: (owner, candidate) =>
      pushes.next({ appId: owner.appId, pubkey: owner.pubkey, payload: { status: 'OK', candidate, requestId: candidatesStream } }),
    random: deps.random ?? (bytes => randomBytes(bytes)),
    log: deps.log,
  })

  return {
    handlers: {
      SubmitWebRtcMessage: async (input, ctx) => {
        if (!deps.settings.enabled) throw new OperationError('forbidden', 'the WebRTC upgrade is disabled ([webrtc] enabled = false)')
        const { caller } = ctx
        // Upstream keys a connection by app and caller key. Candidates can only be pushed to a relay caller; an
        // HTTP caller finds every candidate in the answer.
        const owner: PeerOwner = {
          key: `${caller.appId}:${caller.operatorId}`,
          appId: caller.appId,
          pubkey: ctx.transport === 'nostr' ? caller.operatorId : undefined,
        }
        const message = input.message
        if (message.type === 'offer') return { answer: await peers.offer(owner, parseOffer(message.offer)) }
        await peers.candidate(owner, parseCandidate(message.candidate))
        return {}
      },
      // The candidates of the caller's own connection, as they are found after each offer; the relay transport
      // pushes each under the stream's name.
      SubToWebRtcCandidates: (_input, ctx) =>
        pushes.pipe(
          filter(push => push.appId === ctx.caller.appId && push.pubkey === ctx.caller.operatorId),
          map(push => candidateOf(push) as OutputOf<'SubToWebRtcCandidates'>),
        ),
    },
    pushes$: pushes.asObservable(),
    peerCount: () => peers.size(),
    stop: async () => {
      await peers.stop()
      pushes.complete()
    },
  }
}

/** The item of a candidate push: the message without its envelope (the transport adds status and requestId). */
function candidateOf(push: KeyPush): Record<string, unknown> {
  const { status: _status, requestId: _requestId, ...item } = push.payload
  return item
}
