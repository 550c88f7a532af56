// CLINK requests as they reach the dispatcher: the relay transport's CLINK codec decrypts a kind
// 21001–21004 event into its JSON body (or its text, when it is not JSON: the room answers that as an invalid
// request in the kind's own error shape), the event's created_at and its clink_version tag. The body is checked by
// the CLINK room, which answers every fault in the spec's codes.
import { bool, int, json, message, optional, text } from '../../../../schema/dsl.js'

export const ClinkRequestEvent = message('ClinkRequestEvent', {
  body: json().optional(),
  created_at: int(), // unix seconds
  clink_version: optional(text()),
  nonce_target: optional(text()), // the target committed in a NIP-13 ["nonce", counter, target] tag (enroll)
})

/** The answer sent on the request's kind (`clink_version` adds that tag), or `parked` until the user decides. */
export const ClinkRequestAnswer = message('ClinkRequestAnswer', {
  payload: optional(json()),
  clink_version: optional(bool()),
  parked: optional(bool()),
})
