// Node administration messages (Admin): info, seed, channels, peers, policy, on-chain bumps, assets and
// liabilities. Our Node* names replace upstream's Lnd* ones (docs/pub-protocol.md, "Names and JSON"); nested Lnd*
// types, which no published name replaces, keep upstream's. Fields: upstream's structs.proto.
import { Empty, bool, enumOf, int, list, message, oneof, optional, text } from '../dsl.js'

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
