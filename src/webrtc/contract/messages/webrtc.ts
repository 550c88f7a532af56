// The experimental WebRTC upgrade used by metrics callers. Fields: upstream's structs.proto.
import { message, oneof, optional, text } from '../../../../schema/dsl.js'

export const WebRtcMessage = message('WebRtcMessage', {
  message: oneof({ offer: text(), candidate: text() }),
})

export const WebRtcAnswer = message('WebRtcAnswer', {
  answer: optional(text()),
})

export const WebRtcCandidate = message('WebRtcCandidate', {
  candidate: text(),
})
