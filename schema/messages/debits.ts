// CLINK debit authorizations: rules, grants, live requests and the user's answers.
// Fields: upstream's structs.proto.
import { Empty, bool, enumOf, int, list, message, oneof, optional, text } from '../dsl.js'

export const IntervalType = enumOf('IntervalType', ['DAY', 'WEEK', 'MONTH'])

export const FrequencyRule = message('FrequencyRule', {
  number_of_intervals: int(), // window = N x interval (DAY=86400s, WEEK=7d, MONTH=30d)
  interval: IntervalType,
  amount: int(), // sats cap per window (payment + service fee counted)
})

export const DebitExpirationRule = message('DebitExpirationRule', {
  expires_at_unix: int(), // unix seconds
})

export const DebitRule = message('DebitRule', {
  rule: oneof({ expiration_rule: DebitExpirationRule, frequency_rule: FrequencyRule }),
})

export const DebitAuthorization = message('DebitAuthorization', {
  debit_id: text(), // serial id as string
  authorized: bool(),
  npub: text(),
  rules: list(DebitRule),
})

export const DebitAuthorizations = message('DebitAuthorizations', {
  debits: list(DebitAuthorization),
})

export const DebitAuthorizationRequest = message('DebitAuthorizationRequest', {
  authorize_npub: text(), // hex pubkey of the debit requestor
  rules: list(DebitRule),
  request_id: optional(text()),
})

export const DebitOperation = message('DebitOperation', {
  npub: text(),
})

export const DebitToAuthorize = message('DebitToAuthorize', {
  rules: list(DebitRule),
  invoice: optional(text()),
})

export const DebitResponse = message('DebitResponse', {
  request_id: text(), // echo LiveDebitRequest.request_id (must be non-empty)
  npub: text(), // echo LiveDebitRequest.npub (must be non-empty)
  response: oneof({ denied: Empty, invoice: text(), authorize: DebitToAuthorize }),
})

export const LiveDebitRequest = message('LiveDebitRequest', {
  request_id: text(), // event id of the incoming kind-21002 request
  npub: text(), // hex pubkey of the requestor
  debit: oneof({ invoice: text(), frequency: FrequencyRule, full_access: Empty }),
  k1: optional(text()), // session id from the request (if any)
})
