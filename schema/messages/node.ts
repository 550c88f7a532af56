// Node administration messages (Admin): info, seed, channels, peers, policy, on-chain bumps, assets and
// liabilities. Our Node* names replace upstream's Lnd* ones (docs/pub-protocol.md, "Names and JSON"); nested Lnd*
// types, which no published name replaces, keep upstream's. Fields: upstream's structs.proto.
import { Empty, bool, enumOf, int, list, message, oneof, optional, text } from '../dsl.js'
import { OperationsCursor } from './operations.js'

export const NodeGetInfoRequest = message('NodeGetInfoRequest', {
  nodeId: int(), // ignored by server (send 0)
})

export const NodeGetInfoResponse = message('NodeGetInfoResponse', {
  alias: text(),
  synced_to_chain: bool(),
  synced_to_graph: bool(),
  watchdog_barking: bool(), // true when outgoing ops are locked by the watchdog
  mock: optional(bool()), // relaypay addition: true while test mode ([node] mock) lets anyone credit wallets from nothing
})

export const NodeSeed = message('NodeSeed', {
  seed: list(text()),
})

export const ChannelPolicy = message('ChannelPolicy', {
  base_fee_msat: int(),
  fee_rate_ppm: int(), // mapped from LND fee_rate_milli_msat
  max_htlc_msat: int(),
  min_htlc_msat: int(),
  timelock_delta: int(),
})

export const OpenChannel = message('OpenChannel', {
  channel_id: text(),
  capacity: int(),
  active: bool(),
  lifetime: int(),
  local_balance: int(),
  remote_balance: int(),
  label: text(),
  channel_point: text(),
  policy: optional(ChannelPolicy),
  inactive_since_unix: int(), // 0 when active
})

export const NodeChannels = message('NodeChannels', {
  open_channels: list(OpenChannel),
})

export const ClosedChannel = message('ClosedChannel', {
  channel_id: text(),
  capacity: int(),
  closed_height: int(),
  close_tx_timestamp: int(),
})

export const AddPeerRequest = message('AddPeerRequest', {
  pubkey: text(),
  host: text(),
  port: int(), // > 0
})

export const UpdateChannelPolicyRequest = message('UpdateChannelPolicyRequest', {
  update: oneof({ channel_point: text(), all: Empty }),
  policy: ChannelPolicy,
})

export const OpenChannelRequest = message('OpenChannelRequest', {
  node_pubkey: text(),
  local_funding_amount: int(), // sats, > 0
  sat_per_v_byte: int(),
  push_sat: optional(int()),
  close_address: optional(text()), // if empty, a fresh P2WKH address is used
})

export const OpenChannelResponse = message('OpenChannelResponse', {
  channel_id: text(), // hex of pending channel id
})

export const CloseChannelRequest = message('CloseChannelRequest', {
  force: bool(),
  sat_per_v_byte: int(),
  funding_txid: text(), // non-empty
  output_index: int(),
})

export const CloseChannelResponse = message('CloseChannelResponse', {
  closing_txid: text(),
})

export const BumpTx = message('BumpTx', {
  txid: text(),
  output_index: int(),
  sat_per_vbyte: int(), // must be > 0
})

export const AssetsAndLiabilitiesReq = message('AssetsAndLiabilitiesReq', {
  limit_invoices: optional(int()), // max recent invoices per provider in tracked lists
  limit_payments: optional(int()),
  limit_providers: optional(int()),
})

export const TrackedOperationType = enumOf('TrackedOperationType', ['USER', 'ROOT'])

export const TrackedOperation = message('TrackedOperation', {
  ts: int(),
  amount: int(),
  type: TrackedOperationType,
  user_id: optional(text()), // USER matches: the wallet (users.user_id) the operation belongs to
})

export const AssetOperation = message('AssetOperation', {
  ts: int(),
  amount: int(),
  tracked: optional(TrackedOperation),
})

export const TrackedLndProvider = message('TrackedLndProvider', {
  confirmed_balance: int(),
  unconfirmed_balance: int(),
  channels_balance: int(),
  payments: list(AssetOperation),
  invoices: list(AssetOperation),
  incoming_tx: list(AssetOperation),
  outgoing_tx: list(AssetOperation),
})

export const LndAssetProvider = message('LndAssetProvider', {
  pubkey: text(),
  tracked: optional(TrackedLndProvider),
})

export const TrackedLiquidityProvider = message('TrackedLiquidityProvider', {
  balance: int(),
  payments: list(AssetOperation),
  invoices: list(AssetOperation),
})

export const LiquidityAssetProvider = message('LiquidityAssetProvider', {
  pubkey: text(),
  tracked: optional(TrackedLiquidityProvider),
})

export const AssetsAndLiabilities = message('AssetsAndLiabilities', {
  users_balance: int(),
  lnds: list(LndAssetProvider),
  liquidity_providers: list(LiquidityAssetProvider),
})

// Version 2: every list a page with its cursor, so that a node with a long history answers in bounded time.
export const LndProviderFilter = message('LndProviderFilter', {
  pubkey: text(),
  limit_invoices: optional(int()), // default 20, clamped to 1..50
  invoice_index_offset: optional(int()), // 0 or absent: from the newest
  limit_payments: optional(int()),
  payment_index_offset: optional(int()),
  limit_transactions: optional(int()),
  tx_index_offset: optional(int()),
  tx_start_height: optional(int()), // absent: the chain tip; send back the start_height of the first page
})

export const LiquidityProviderFilter = message('LiquidityProviderFilter', {
  pubkey: text(),
  latestIncomingInvoice: optional(OperationsCursor),
  latestOutgoingInvoice: optional(OperationsCursor),
  limit: optional(int()),
})

export const AssetsAndLiabilitiesReqV2 = message('AssetsAndLiabilitiesReqV2', {
  lnd_providers: list(LndProviderFilter),
  liquidity_providers: list(LiquidityProviderFilter),
})

export const LndAssetOperationsPage = message('LndAssetOperationsPage', {
  operations: list(AssetOperation),
  has_more: bool(),
  next_index_offset: optional(int()), // when has_more: the next page's *_index_offset
  start_height: optional(int()), // chain pages: the next page's tx_start_height
})

export const LiquidityAssetOperationsPage = message('LiquidityAssetOperationsPage', {
  operations: list(AssetOperation),
  has_more: bool(),
  next_cursor: optional(OperationsCursor),
  timeout: bool(),
})

export const TrackedLndProviderV2 = message('TrackedLndProviderV2', {
  confirmed_balance: int(),
  unconfirmed_balance: int(),
  channels_balance: int(),
  payments: LndAssetOperationsPage,
  invoices: LndAssetOperationsPage,
  incoming_tx: LndAssetOperationsPage,
  outgoing_tx: LndAssetOperationsPage,
})

export const LndAssetProviderV2 = message('LndAssetProviderV2', {
  pubkey: text(),
  tracked: optional(TrackedLndProviderV2),
})

export const TrackedLiquidityProviderV2 = message('TrackedLiquidityProviderV2', {
  balance: int(),
  payments: LiquidityAssetOperationsPage,
  invoices: LiquidityAssetOperationsPage,
})

export const LiquidityAssetProviderV2 = message('LiquidityAssetProviderV2', {
  pubkey: text(),
  tracked: optional(TrackedLiquidityProviderV2),
})

export const AssetsAndLiabilitiesV2 = message('AssetsAndLiabilitiesV2', {
  users_balance: int(),
  lnds: list(LndAssetProviderV2),
  liquidity_providers: list(LiquidityAssetProviderV2),
})

export const RoutingEvent = message('RoutingEvent', {
  incoming_channel_id: int(),
  incoming_htlc_id: int(),
  outgoing_channel_id: int(),
  outgoing_htlc_id: int(),
  timestamp_ns: int(),
  event_type: text(),
  incoming_amt_msat: int(),
  outgoing_amt_msat: int(),
  failure_string: text(),
  settled: bool(),
  offchain: bool(),
  forward_fail_event: bool(),
})
