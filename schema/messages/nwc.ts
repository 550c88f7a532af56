// Nostr Wallet Connect (NIP-47) connections a user manages: each one is a service key pair, the client key that
// may use it, the methods it may call, an optional spending budget and an expiry. Amounts on this wire are sats
// (the pub dialect's unit); NIP-47 itself speaks msat, which src/nwc/ converts at its own edge.
import { bool, enumOf, int, list, message, optional, text } from '../dsl.js'
import { IntervalType } from './debits.js'

/** The NIP-47 methods a connection may be allowed; `notifications` are sent to every live connection. */
export const NwcMethod = enumOf('NwcMethod', [
  'pay_invoice', 'make_invoice', 'lookup_invoice', 'list_transactions', 'get_balance', 'get_info',
])

/** At most `amount_sats` (payments plus their fees) leave the wallet through the connection per rolling interval. */
export const NwcBudget = message('NwcBudget', {
  amount_sats: int(),
  interval: IntervalType, // DAY = 86400 s, WEEK = 7 days, MONTH = 30 days, as CLINK frequency rules
})

export const NwcConnection = message('NwcConnection', {
  connection_id: text(),
  name: text(),
  service_pubkey: text(), // hex: the key the NWC app addresses its requests to
  client_pubkey: text(), // hex: the only key whose requests are answered
  methods: list(NwcMethod),
  budget: optional(NwcBudget),
  spent_sats: int(), // within the budget's current window (all time when there is no budget); fees included
  expires_at_unix: int(), // 0: never
  created_at_unix: int(),
  revoked: bool(),
})

export const CreateNwcConnectionRequest = message('CreateNwcConnectionRequest', {
  name: text(),
  methods: optional(list(NwcMethod)), // absent: every method
  budget: optional(NwcBudget),
  expires_at_unix: optional(int()),
})

export const CreatedNwcConnection = message('CreatedNwcConnection', {
  connection: NwcConnection,
  // nostr+walletconnect://<service pubkey>?relay=…&secret=<client secret>: shown once, never stored
  connection_uri: text(),
})

export const NwcConnections = message('NwcConnections', {
  connections: list(NwcConnection),
})

export const UpdateNwcConnectionRequest = message('UpdateNwcConnectionRequest', {
  connection_id: text(),
  name: optional(text()),
  methods: optional(list(NwcMethod)),
  budget: optional(NwcBudget),
  remove_budget: optional(bool()),
  expires_at_unix: optional(int()), // 0 clears the expiry
})

export const NwcConnectionId = message('NwcConnectionId', {
  connection_id: text(),
})
