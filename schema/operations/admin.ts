// Operator operations on the node, applications, users, swaps and invite links (upstream's Admin caller kind).
// Auth: the static admin token over HTTP, or the enrolled admin key over the relay transport.
import { operation } from '../operation.js'
import { Empty } from '../messages/common.js'
import {
  AddPeerRequest, AssetsAndLiabilities, AssetsAndLiabilitiesReq, AssetsAndLiabilitiesReqV2, AssetsAndLiabilitiesV2, BumpTx, CloseChannelRequest, CloseChannelResponse,
  NodeChannels, NodeGetInfoRequest, NodeGetInfoResponse, NodeSeed, OpenChannelRequest, OpenChannelResponse,
  UpdateChannelPolicyRequest,
} from '../messages/node.js'
import { AddAppRequest, AuthApp, AuthAppRequest, BanUserRequest, BanUserResponse } from '../messages/apps.js'
import {
  AdminInvoiceSwapResponse, AdminTxSwapResponse, InvoiceSwapQuoteList, InvoiceSwapRequest, InvoiceSwapsList,
  PayAdminInvoiceSwapRequest, PayAdminTransactionSwapRequest, RefundAdminInvoiceSwapRequest,
  TransactionSwapQuoteList, TransactionSwapRequest, TxSwapsList,
} from '../messages/swaps.js'
import {
  CreateOneTimeInviteLinkRequest, CreateOneTimeInviteLinkResponse, GetInviteTokenStateRequest,
  GetInviteTokenStateResponse,
} from '../messages/linking.js'
import { GetUserOperationsRequest, GetUserOperationsResponse, UsersAdminInfo, UsersAdminInfoRequest } from '../messages/operations.js'

export const adminOperations = [
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
    name: 'AddApp', area: 'admin', auth: 'admin', dialect: 'pub', nostr: true,
    http: { method: 'POST', path: '/api/admin/app/add' },
    input: AddAppRequest, output: AuthApp,
    summary: 'Creates an application with a fresh owner account and returns it with its app token; names are unique.',
  }),
  operation({
    name: 'AuthApp', area: 'admin', auth: 'admin', dialect: 'pub', nostr: true,
    http: { method: 'POST', path: '/api/admin/app/auth' },
    input: AuthAppRequest, output: AuthApp,
    summary: 'Issues a fresh app token for the application with this name, optionally changing `allow_user_creation`.',
  }),
  // Upstream's next version (its dashboard branch): the admin's view of users and of any user's operations.
  operation({
    name: 'GetUsersAdminInfo', area: 'admin', auth: 'admin', dialect: 'pub', nostr: true,
    http: { method: 'POST', path: '/api/admin/users/info' },
    input: UsersAdminInfoRequest, output: UsersAdminInfo,
    summary: 'Users, most recently active first (`skip`, `take` 1..50, default 20), with balance, ban state, app identities and the app each owns; `total` counts them all.',
  }),
  operation({
    name: 'GetUserOperationsFromAdmin', area: 'admin', auth: 'admin', dialect: 'pub', nostr: true,
    http: { method: 'POST', path: '/api/admin/user/operations' },
    input: GetUserOperationsRequest, output: GetUserOperationsResponse,
    summary: "GetUserOperations for the user `user_id` (required; a banned user's too), `max_size` clamped to 1..50 per list.",
  }),
  operation({
    name: 'BanUser', area: 'admin', auth: 'admin', dialect: 'pub', nostr: true,
    http: { method: 'POST', path: '/api/admin/user/ban' },
    input: BanUserRequest, output: BanUserResponse,
    summary: "Locks a user and sets its balance to 0; returns the prior balance and the user's app identities.",
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
    name: 'GetAdminInvoiceSwapQuotes', area: 'admin', auth: 'admin', dialect: 'pub', nostr: true,
    http: { method: 'POST', path: '/api/admin/swap/invoice/quote' },
    input: InvoiceSwapRequest, output: InvoiceSwapQuoteList,
    summary: "Swap provider quotes for moving `amount_sats` of the node's on-chain funds into its channels (submarine swap).",
  }),
  operation({
    name: 'ListAdminInvoiceSwaps', area: 'admin', auth: 'admin', dialect: 'pub', nostr: true,
    http: { method: 'POST', path: '/api/admin/swap/invoice/list', body: 'none' },
    input: Empty, output: InvoiceSwapsList,
    summary: "The node's invoice swaps with their progress, and the current block height.",
  }),
  operation({
    name: 'PayAdminInvoiceSwap', area: 'admin', auth: 'admin', dialect: 'pub', nostr: true,
    http: { method: 'POST', path: '/api/admin/swap/invoice/pay' },
    input: PayAdminInvoiceSwapRequest, output: AdminInvoiceSwapResponse,
    summary: "Funds a quoted invoice swap from the node's on-chain wallet; the provider then pays the node's invoice.",
  }),
  operation({
    name: 'RefundAdminInvoiceSwap', area: 'admin', auth: 'admin', dialect: 'pub', nostr: true,
    http: { method: 'POST', path: '/api/admin/swap/invoice/refund' },
    input: RefundAdminInvoiceSwapRequest, output: AdminInvoiceSwapResponse,
    summary: 'Refunds a failed or expired invoice swap to a fresh node address, cooperatively when possible; idempotent.',
  }),
  operation({
    name: 'GetAdminTransactionSwapQuotes', area: 'admin', auth: 'admin', dialect: 'pub', nostr: true,
    http: { method: 'POST', path: '/api/admin/swap/transaction/quote' },
    input: TransactionSwapRequest, output: TransactionSwapQuoteList,
    summary: "Swap provider quotes for sending `transaction_amount_sats` on-chain out of the node's channels (reverse swap).",
  }),
  operation({
    name: 'PayAdminTransactionSwap', area: 'admin', auth: 'admin', dialect: 'pub', nostr: true,
    http: { method: 'POST', path: '/api/admin/swap/transaction/pay' },
    input: PayAdminTransactionSwapRequest, output: AdminTxSwapResponse,
    summary: 'Pays a quoted transaction swap from the node and claims the on-chain funds to `address`.',
  }),
  operation({
    name: 'ListAdminTxSwaps', area: 'admin', auth: 'admin', dialect: 'pub', nostr: true,
    http: { method: 'POST', path: '/api/admin/swap/transaction/list', body: 'none' },
    input: Empty, output: TxSwapsList,
    summary: "The node's transaction swaps with their progress.",
  }),
  operation({
    name: 'CreateOneTimeInviteLink', area: 'admin', auth: 'admin', dialect: 'pub', nostr: true,
    http: { method: 'POST', path: '/api/admin/app/invite/create' },
    input: CreateOneTimeInviteLinkRequest, output: CreateOneTimeInviteLinkResponse,
    summary: "Creates a single-use invite token in the admin's app; `sats` is recorded but not credited on use.",
  }),
  operation({
    name: 'GetInviteLinkState', area: 'admin', auth: 'admin', dialect: 'pub', nostr: true,
    http: { method: 'POST', path: '/api/admin/app/invite/get' },
    input: GetInviteTokenStateRequest, output: GetInviteTokenStateResponse,
    summary: 'Whether an invite token has been used.',
  }),
]
