// The WebRTC upgrade of the metrics caller (upstream's experimental one; docs/pub-protocol.md, "Kind 21000"): the
// caller submits an offer (and then its candidates) through SubmitWebRtcMessage and gets the answer back; the
// daemon's candidates go to the caller's key as SubToWebRtcCandidates pushes; over the data channel the caller
// asks for usage and bundle metrics files (metrics-channel.ts). Uses werift, a WebRTC stack in TypeScript.
import { randomBytes } from 'node:crypto'
import { Subject, type Observable, type HandlerTable } from '../bus/index.js'
import type { Logger } from 'pino'
import type { MetricsFileRequest } from './metrics-channel.js'
import { createPeerTable, type WebRtcSettings } from './peers.js'
import { webRtcHandlers } from './handlers/webrtc.js'
import type { KeyPush } from './key-push.js'

export type { WebRtcSettings } from './peers.js'
export type { KeyPush } from './key-push.js'
export { packetDataBytes, packetType } from './metrics-channel.js'

/** The request id upstream gives candidate pushes. */
export const candidatesStream = 'SubToWebRtcCandidates'


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
    handlers: webRtcHandlers({ settings: deps.settings, peers, pushes$: pushes }),
    pushes$: pushes.asObservable(),
    peerCount: () => peers.size(),
    stop: async () => {
      await peers.stop()
      pushes.complete()
    },
  }
}
