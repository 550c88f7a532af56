// The operations the node room serves: the node's info, balances and seed, channels, peers and fees, chain
// transactions, decoding an invoice, the test-mode invoice helper, and the operator's views of the node.
import { operation } from '../../../schema/operation.js'
import { Empty } from '../../../schema/dsl.js'
import { operator } from '../../../schema/sections.js'
import {
  DecodeInvoiceRequest, DecodeInvoiceResponse, SetMockInvoiceAsPaidRequest,
} from '../../../schema/messages/invoices.js'
import {
  AddPeerRequest, AssetsAndLiabilities, AssetsAndLiabilitiesReq, AssetsAndLiabilitiesReqV2, AssetsAndLiabilitiesV2,
  BumpTx, CloseChannelRequest, CloseChannelResponse, NodeChannels, NodeGetInfoRequest, NodeGetInfoResponse, NodeSeed,
  OpenChannelRequest, OpenChannelResponse, UpdateChannelPolicyRequest,
} from '../../../schema/messages/node.js'
import {
  OperatorChannels, OperatorNode, OperatorNodeAddress, OperatorPeers,
} from '../../../schema/messages/operator.js'

export const nodeOperations = [
  operation({
    name: 'NodeGetInfo', area: 'admin', auth: 'admin', dialect: 'pub', nostr: true,
    http: { method: 'POST', path: '/api/admin/node/getinfo' },
    aliases: [{ name: 'LndGetInfo', path: '/api/admin/lnd/getinfo' }],
    input: NodeGetInfoRequest, output: NodeGetInfoResponse,
    summary: 'Node alias, chain and graph sync flags, and whether the watchdog has locked outgoing payments (`nodeId` is ignored).',
  }),
  operation({
    name: 'GetAssetsAndLiabilities', area: 'admin', auth: 'admin', dialect: 'pub', nostr: true,
    http: { method: 'POST', path: '/api/admin/assets/liabilities' },
    input: AssetsAndLiabilitiesReq, output: AssetsAndLiabilities,
    summary: "Users' total balance (wallets not locked) against the node's on-chain and channel balances, with the node's recent payments (`limit_payments`, default 20), settled invoices (`limit_invoices`, default 100) and newest 50 chain transactions, at most 50 a list; each operation a wallet booked is tracked USER with its `user_id`.",
  }),
  operation({
    name: 'GetAssetsAndLiabilitiesV2', area: 'admin', auth: 'admin', dialect: 'pub', nostr: true,
    http: { method: 'POST', path: '/api/admin/assets/liabilities/v2' },
    input: AssetsAndLiabilitiesReqV2, output: AssetsAndLiabilitiesV2,
    summary: "Users' total balance (wallets not locked) against the node's balances, each of its lists a page (20 unless asked, 1 to 50) with its cursor: hand `next_index_offset` back as the list's `*_index_offset`, and for the chain lists `start_height` as `tx_start_height`. Operations a wallet booked are tracked USER with their `user_id`. Both request arrays are required (send `[]`).",
  }),
  operation({
    name: 'BumpTx', area: 'admin', auth: 'admin', dialect: 'pub', nostr: true,
    http: { method: 'POST', path: '/api/admin/tx/bump' },
    input: BumpTx, output: Empty,
    summary: 'Bumps the fee of an unconfirmed on-chain transaction through its output `txid:output_index` to `sat_per_vbyte` (> 0).',
  }),
  operation({
    name: 'GetSeed', area: 'admin', auth: 'admin', dialect: 'pub', nostr: true,
    http: { method: 'GET', path: '/api/admin/seed', body: 'none' },
    input: Empty, output: NodeSeed,
    summary: "The node wallet's 24-word seed, when relaypay created the node wallet.",
  }),
  operation({
    name: 'ListChannels', area: 'admin', auth: 'admin', dialect: 'pub', nostr: true,
    http: { method: 'GET', path: '/api/admin/channels', body: 'none' },
    input: Empty, output: NodeChannels,
    summary: "Open channels with our side's routing policy and, for inactive ones, since when they are down.",
  }),
  operation({
    name: 'AddPeer', area: 'admin', auth: 'admin', dialect: 'pub', nostr: true,
    http: { method: 'POST', path: '/api/admin/peer' },
    input: AddPeerRequest, output: Empty,
    summary: 'Connects the node to the peer `pubkey@host:port`.',
  }),
  operation({
    name: 'UpdateChannelPolicy', area: 'admin', auth: 'admin', dialect: 'pub', nostr: true,
    http: { method: 'POST', path: '/api/admin/channel/policy/update' },
    input: UpdateChannelPolicyRequest, output: Empty,
    summary: 'Sets the routing policy of one channel (`channel_point`) or of all channels (`all`); fails if the node reports a failed update.',
  }),
  operation({
    name: 'OpenChannel', area: 'admin', auth: 'admin', dialect: 'pub', nostr: true,
    http: { method: 'POST', path: '/api/admin/channel/open' },
    input: OpenChannelRequest, output: OpenChannelResponse,
    summary: 'Opens a channel to a peer, closing later to `close_address` or a fresh P2WKH address; returns the pending channel id.',
  }),
  operation({
    name: 'CloseChannel', area: 'admin', auth: 'admin', dialect: 'pub', nostr: true,
    http: { method: 'POST', path: '/api/admin/channel/close' },
    input: CloseChannelRequest, output: CloseChannelResponse,
    summary: 'Closes (or force-closes) the channel `funding_txid:output_index`; returns the closing transaction id.',
  }),
  operation({
    name: 'SetMockInvoiceAsPaid', area: 'guest', auth: 'guest', dialect: 'pub',
    testMode: true,
    http: { method: 'POST', path: '/api/node/mock/invoice/paid' },
    aliases: [{ path: '/api/lnd/mock/invoice/paid' }],
    input: SetMockInvoiceAsPaidRequest, output: Empty,
    summary: "Test mode: settles a mock invoice (for `amount` when it has none); otherwise upstream's 'mock disabled' error. Upstream stub; relaypay implements it.",
  }),
  operation({
    name: 'DecodeInvoice', area: 'user', auth: 'user', dialect: 'pub', nostr: true, repeatable: true,
    http: { method: 'POST', path: '/api/user/invoice/decode' },
    input: DecodeInvoiceRequest, output: DecodeInvoiceResponse,
    summary: 'The amount in sats of a bolt11 invoice.',
  }),
  operation({
    name: 'OperatorGetNode', ...operator,
    http: { method: 'GET', path: '/api/operator/node', body: 'none' },
    input: Empty, output: OperatorNode,
    summary: "The node: its key and the `pubkey@host:port` addresses it listens on, sync, channel and peer counts, its on-chain balance and its liquidity (outbound: our side of the channels; inbound: the peers' side), in sats.",
  }),
  operation({
    name: 'OperatorListPeers', ...operator,
    http: { method: 'GET', path: '/api/operator/node/peers', body: 'none' },
    input: Empty, output: OperatorPeers,
    summary: "The peers the node is connected to, with their alias from the node's graph, their address and which side connected.",
  }),
  operation({
    name: 'OperatorListChannels', ...operator,
    http: { method: 'GET', path: '/api/operator/node/channels', body: 'none' },
    input: Empty, output: OperatorChannels,
    summary: "The open channels with their peer (key, and alias from the node's graph where it knows one), both sides' balances in sats and how many blocks our side stays locked after a force close.",
  }),
  operation({
    name: 'OperatorNewNodeAddress', ...operator,
    http: { method: 'POST', path: '/api/operator/node/address', body: 'none' },
    input: Empty, output: OperatorNodeAddress,
    summary: "A fresh on-chain (P2WPKH) address of the node's own wallet, to fund channels; what it receives credits no user.",
  }),
]
