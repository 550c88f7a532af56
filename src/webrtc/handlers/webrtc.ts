// SubmitWebRtcMessage (an offer, then candidates; the answer back) and SubToWebRtcCandidates (the daemon's own
// candidates, pushed to the caller's key as they are found).
import { filter, map, type Observable, OperationError, type HandlerTable, type OutputOf } from '../../bus/index.js'
import type { PeerOwner, PeerTable, WebRtcSettings } from '../peers.js'
import { parseCandidate, parseOffer } from '../signals.js'
import type { KeyPush } from '../key-push.js'

export interface WebRtcHandlerDeps {
  settings: WebRtcSettings
  peers: PeerTable
  /** Every candidate push, of every caller. */
  pushes$: Observable<KeyPush>
}

export function webRtcHandlers({ settings, peers, pushes$ }: WebRtcHandlerDeps): HandlerTable {
  return {
    SubmitWebRtcMessage: async (input, ctx) => {
      if (!settings.enabled) throw new OperationError('forbidden', 'the WebRTC upgrade is disabled ([webrtc] enabled = false)')
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
      pushes$.pipe(
        filter(push => push.appId === ctx.caller.appId && push.pubkey === ctx.caller.operatorId),
        map(push => candidateOf(push) as OutputOf<'SubToWebRtcCandidates'>),
      ),
  }
}

/** The item of a candidate push: the message without its envelope (the transport adds status and requestId). */
function candidateOf(push: KeyPush): Record<string, unknown> {
  const { status: _status, requestId: _requestId, ...item } = push.payload
  return item
}
