// The experimental WebRTC upgrade that metrics callers use.
import { operation } from '../../../schema/operation.js'
import { Empty } from '../../../schema/dsl.js'
import { WebRtcAnswer, WebRtcCandidate, WebRtcMessage } from './messages/webrtc.js'

export const webrtcOperations = [
  operation({
    name: 'SubmitWebRtcMessage', area: 'metrics', auth: 'metrics', dialect: 'pub', nostr: true,
    http: { method: 'POST', path: '/api/upgrade/wrtc' },
    input: WebRtcMessage, output: WebRtcAnswer,
    summary: 'Submits a WebRTC offer or ICE candidate for the metrics data channel and answers with the SDP answer (experimental).',
  }),
  operation({
    name: 'SubToWebRtcCandidates', area: 'metrics', auth: 'metrics', dialect: 'pub', nostr: true, stream: true,
    http: { method: 'POST', path: '/api/upgrade/wrtc/candidates', body: 'none' },
    input: Empty, output: WebRtcCandidate,
    summary: "Stream of the server's ICE candidates for the metrics WebRTC channel (relay transport only).",
  }),
]
