// A user's own account: info, health, callback URL, HTTP credentials, push-messaging tokens, migrations and the
// batch envelope. Fields: upstream's structs.proto; batch: docs/pub-protocol.md, "HTTP".
import { int, json, list, map, message, optional, text } from '../dsl.js'

export const UserInfo = message('UserInfo', {
  userId: text(), // internal user_id (64 hex)
  balance: int(), // sats
  max_withdrawable: int(), // sats
  user_identifier: text(), // app_user identifier (64 hex for nostr-created users)
  service_fee_bps: int(), // SERVICE_FEE_BPS
  network_max_fee_bps: int(), // always 0
  network_max_fee_fixed: int(), // = SERVICE_FEE_FLOOR_SATS
  noffer: text(), // CLINK offer (spontaneous) for the default offer = identifier
  ndebit: text(), // CLINK debit pointer (pointer = identifier)
  callback_url: text(),
  bridge_url: text(), // BRIDGE_URL (default https://shockwallet.app)
  nmanage: text(), // CLINK manage pointer (pointer = identifier)
  topic_id: text(), // 64-hex random id used in push notification envelopes
})

export const UserHealthState = message('UserHealthState', {
  downtime_reason: text(),
})

export const CallbackUrl = message('CallbackUrl', {
  url: text(),
})

export const HttpCreds = message('HttpCreds', {
  url: text(), // SERVICE_URL
  token: text(), // user JWT for HTTP User auth
})

export const MessagingToken = message('MessagingToken', {
  device_id: text(),
  firebase_messaging_token: text(), // FCM token; must be non-empty
})

export const ClosureMigration = message('ClosureMigration', {
  closes_at_unix: int(),
})

export const RelaysMigration = message('RelaysMigration', {
  relays: list(text()),
})

export const MigrationUpdate = message('MigrationUpdate', {
  closure: optional(ClosureMigration),
  relays: optional(RelaysMigration),
})

/**
 * One call inside a BatchUser request: a User operation by its rpcName, with its body (`req`) or, for GET-style
 * operations, its query parameters (`query`). The handler checks the name and the body per entry.
 */
export const BatchUserCall = message('BatchUserCall', {
  rpcName: text(),
  req: optional(json()),
  query: optional(map(text())),
})

/** BatchUser body. The upper bound (10) is checked by the handler, which must answer upstream's reason. */
export const BatchUserRequest = message('BatchUserRequest', {
  requests: list(BatchUserCall),
})

/** One OK/ERROR object per call, in request order. */
export const BatchUserResponse = message('BatchUserResponse', {
  responses: list(json()),
})
