// Messages of the operator's views (the console, docs/console.md): lists and searches across wallets that upstream's
// admin API has no call for, and the ledger audit on demand.
import { bool, enumOf, int, intParam, list, message, optional, text } from '../dsl.js'

export const OperatorApp = message('OperatorApp', {
  id: text(),
  name: text(),
  npub: text(), // the app's Nostr public key, hex
  allow_user_creation: bool(),
  users: int(),
  owner_balance_sats: int(),
  created_at: int(), // unix seconds
})

export const OperatorApps = message('OperatorApps', { apps: list(OperatorApp) })

export const OperatorUserSearch = message('OperatorUserSearch', {
  query: optional(text()), // part of an identifier, a user id, or a Nostr pubkey (hex or npub)
  limit: optional(intParam()),
})

export const OperatorUser = message('OperatorUser', {
  user_id: text(),
  identifier: text(), // the app-user identifier ('' for an app's owner wallet)
  app_name: text(),
  app_id: text(),
  nostr_pub: text(),
  balance_sats: int(),
  locked: bool(),
  created_at: int(),
})

export const OperatorUsers = message('OperatorUsers', { users: list(OperatorUser) })

export const OperatorPaymentSearch = message('OperatorPaymentSearch', {
  query: optional(text()), // a payment hash (or its start), a user id or an app-user identifier
  status: optional(enumOf('OperatorPaymentStatus', ['pending', 'succeeded', 'failed', 'paid', 'unpaid', 'expired'])),
  since: optional(intParam()), // unix seconds, inclusive
  until: optional(intParam()), // unix seconds, exclusive
  limit: optional(intParam()),
})

export const OperatorPayment = message('OperatorPayment', {
  direction: enumOf('OperatorPaymentDirection', ['incoming', 'outgoing']),
  payment_hash: text(),
  user_id: text(),
  identifier: text(),
  amount_sats: int(),
  service_fee_sats: int(),
  routing_fee_sats: int(),
  internal: bool(),
  status: text(), // outgoing: pending, succeeded, failed; incoming: paid, unpaid, expired
  memo: text(),
  created_at: int(),
  resolved_at: int(), // 0 while unresolved
  payment_request: text(),
  failure_reason: text(),
})

export const OperatorPayments = message('OperatorPayments', { payments: list(OperatorPayment) })

export const OperatorUserTokenRequest = message('OperatorUserTokenRequest', { identifier: text() })
export const OperatorUserToken = message('OperatorUserToken', { token: text(), user_id: text(), app_id: text() })

export const OperatorWalletLinkRequest = message('OperatorWalletLinkRequest', { identifier: text() })

export const OperatorRotateAppTokenRequest = message('OperatorRotateAppTokenRequest', { app_id: text() })
export const OperatorAppToken = message('OperatorAppToken', { app_id: text(), name: text(), auth_token: text() })

export const OperatorAudit = message('OperatorAudit', {
  ran: bool(), // false until an audit has run in this process
  ok: bool(),
  at: int(), // unix seconds
  wallets: int(),
  transactions: int(),
  wallets_total_sats: int(),
  problems: list(text()),
})

// The node page: what the node is, who it talks to, what it holds. Sats throughout (LND's units for these).
export const OperatorNode = message('OperatorNode', {
  pubkey: text(),
  alias: text(),
  network: text(),
  version: text(),
  block_height: int(),
  synced_to_chain: bool(),
  synced_to_graph: bool(),
  uris: list(text()), // pubkey@host:port the node listens on; empty when it listens nowhere
  active_channels: int(),
  pending_channels: int(),
  peers: int(),
  chain_balance_sats: int(), // confirmed on-chain
  unconfirmed_chain_balance_sats: int(),
  outbound_sats: int(), // our side of the open channels: what the node can send
  inbound_sats: int(), // the peers' side: what the node can receive
})

export const OperatorPeer = message('OperatorPeer', {
  pubkey: text(),
  alias: text(), // from the node's graph; '' when the graph does not know the peer
  address: text(), // host:port
  inbound: bool(), // the peer connected to us
  connected_at: int(), // unix seconds
})
export const OperatorPeers = message('OperatorPeers', { peers: list(OperatorPeer) })

export const OperatorChannel = message('OperatorChannel', {
  channel_id: text(), // short channel id, decimal
  channel_point: text(), // funding_txid:output_index
  peer_pubkey: text(),
  peer_alias: text(), // from the node's graph; '' when the graph does not know the peer
  capacity_sats: int(),
  local_balance_sats: int(), // our side: what we can send
  remote_balance_sats: int(), // the peer's side: what we can receive
  active: bool(),
  private: bool(),
  label: text(),
  force_close_delay_blocks: int(), // blocks our side stays locked after a force close; 0 when the node does not say
})
export const OperatorChannels = message('OperatorChannels', { channels: list(OperatorChannel) })

export const OperatorNodeAddress = message('OperatorNodeAddress', { address: text() })

export const OperatorInvite = message('OperatorInvite', {
  invite_token: text(),
  app_id: text(),
  sats: optional(int()), // recorded when it was made, never credited
  used: bool(),
  used_by: text(), // the Nostr key (hex) that used it; '' while unused
  created_at: int(), // unix seconds
  used_at: int(), // unix seconds; 0 while unused
})
export const OperatorInvites = message('OperatorInvites', { invites: list(OperatorInvite) })
