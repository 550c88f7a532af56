// The user operations history: operation records, six-cursor pagination, live pushes and push notifications.
// The upstream misspelling `Payemnts` in GetUserOperationsResponse is part of the wire format.
// Fields: upstream's structs.proto.
import { bool, enumOf, int, list, message, oneof, optional, text } from '../dsl.js'

export const UserOperationType = enumOf('UserOperationType', ['INCOMING_TX', 'OUTGOING_TX', 'INCOMING_INVOICE', 'OUTGOING_INVOICE', 'OUTGOING_USER_TO_USER', 'INCOMING_USER_TO_USER'])

export const UserOperation = message('UserOperation', {
  paidAtUnix: int(), // unix seconds (may be fractional in pushed ops; 0 = pending; -1 = failed)
  type: UserOperationType,
  inbound: bool(),
  amount: int(),
  identifier: text(), // invoice, address, or counterpart user_id
  operationId: text(), // "<UserOperationType>-<serial_id>"
  service_fee: int(),
  network_fee: int(),
  confirmed: bool(),
  tx_hash: text(),
  internal: bool(), // settled inside the node
})

export const OperationsCursor = message('OperationsCursor', {
  ts: int(), // unix seconds of last seen item (only used for incoming invoices)
  id: int(), // serial_id of last seen item; server returns serial_id > id
})

export const UserOperations = message('UserOperations', {
  fromIndex: OperationsCursor, // cursor of first item ({0,0} if empty)
  toIndex: OperationsCursor, // cursor of last item; pass back as next cursor
  operations: list(UserOperation),
})

export const GetUserOperationsRequest = message('GetUserOperationsRequest', {
  latestIncomingInvoice: OperationsCursor,
  latestOutgoingInvoice: OperationsCursor,
  latestIncomingTx: OperationsCursor,
  latestOutgoingTx: OperationsCursor,
  latestIncomingUserToUserPayment: OperationsCursor,
  latestOutgoingUserToUserPayment: OperationsCursor,
  max_size: int(), // page size per category
  /** Upstream's next version: whose operations GetUserOperationsFromAdmin reads; ignored on a user's own call. */
  user_id: optional(text()),
})

export const GetUserOperationsResponse = message('GetUserOperationsResponse', {
  latestOutgoingInvoiceOperations: UserOperations,
  latestIncomingInvoiceOperations: UserOperations,
  latestOutgoingTxOperations: UserOperations,
  latestIncomingTxOperations: UserOperations,
  latestOutgoingUserToUserPayemnts: UserOperations,
  latestIncomingUserToUserPayemnts: UserOperations,
  /** Upstream's next version: the internal user id whose operations these are. */
  user_id: optional(text()),
})

/** Upstream's next version (its admin dashboard): users newest first, `take` clamped to 1..50 (default 20). */
export const UsersAdminInfoRequest = message('UsersAdminInfoRequest', {
  skip: optional(int()),
  take: optional(int()),
})

export const AppUserAdminInfo = message('AppUserAdminInfo', {
  app_user_id: text(), // the app user's identifier
  npub: text(), // the linked Nostr key as stored: 64 hex, or ""
  has_callback_url: bool(),
  has_topic_id: bool(),
})

export const UserAdminInfo = message('UserAdminInfo', {
  user_id: text(),
  balance: int(), // sats
  locked: bool(),
  app_users: list(AppUserAdminInfo),
  owner_of_app_id: optional(text()),
})

export const UsersAdminInfo = message('UsersAdminInfo', {
  users: list(UserAdminInfo),
  total: int(),
})

export const LiveUserOperation = message('LiveUserOperation', {
  operation: UserOperation,
  latest_balance: int(), // sats
})

export const PushNotificationPayload = message('PushNotificationPayload', {
  data: oneof({ received_operation: UserOperation, sent_operation: UserOperation }),
})

export const PushNotificationEnvelope = message('PushNotificationEnvelope', {
  topic_id: text(),
  app_npub_hex: text(),
  encrypted_payload: text(), // NIP-44 v2 (app key -> user key) of PushNotificationPayload JSON
})
