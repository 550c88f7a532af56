// The operator's views: what the console shows that upstream's admin API has no call for. The admin
// token (or a console session) only; answers in the detail dialect.
import { operation } from '../operation.js'
import { Empty } from '../dsl.js'
import {
  OperatorApps, OperatorAppToken, OperatorAudit, OperatorRotateAppTokenRequest, OperatorPaymentSearch, OperatorPayments, OperatorUserSearch, OperatorUserToken,
  OperatorUserTokenRequest, OperatorUsers, OperatorNode, OperatorPeers, OperatorChannels, OperatorNodeAddress, OperatorInvites,
  OperatorWalletLinkRequest,
} from '../messages/operator.js'
import { WalletLink, WalletLinkRevoked } from '../messages/wallet-links.js'
import { ModelNameRequest, TranscriptionModel } from '../messages/models.js'

const operator = { area: 'operator', auth: 'admin', dialect: 'detail' } as const

export const operatorOperations = [
  operation({
    name: 'OperatorListApps', ...operator,
    http: { method: 'GET', path: '/api/operator/apps', body: 'none' },
    input: Empty, output: OperatorApps,
    summary: 'Every application with its user count and its owner wallet balance.',
  }),
  operation({
    name: 'OperatorRotateAppToken', ...operator,
    http: { method: 'POST', path: '/api/operator/apps/token' },
    input: OperatorRotateAppTokenRequest, output: OperatorAppToken,
    summary: "A new token for the app `app_id`; every token issued for it before stops working at once (AuthApp then hands out the new generation).",
  }),
  operation({
    name: 'OperatorSearchUsers', ...operator,
    http: { method: 'GET', path: '/api/operator/users', query: ['query', 'limit'], body: 'none' },
    input: OperatorUserSearch, output: OperatorUsers,
    summary: 'Wallets whose identifier, user id or Nostr key contains `query` (npub accepted), newest first, with balance and ban state; at most `limit` (default 50, up to 500).',
  }),
  operation({
    name: 'OperatorUserToken', ...operator,
    http: { method: 'POST', path: '/api/operator/users/token' },
    input: OperatorUserTokenRequest, output: OperatorUserToken,
    summary: "A user token for the app user `identifier`, so the operator can act for that wallet (its NWC connections, offers, Lightning address, wallet keys).",
  }),
  operation({
    name: 'OperatorCreateWalletLink', ...operator,
    http: { method: 'POST', path: '/api/operator/users/wallet-link' },
    input: OperatorWalletLinkRequest, output: WalletLink,
    summary: "A wallet page link (`/wallet/#<secret>`) for the app user `identifier`, shown only here; the wallet's earlier link stops working at once, and the NWC connections that link made on the page end.",
  }),
  operation({
    name: 'OperatorRevokeWalletLink', ...operator,
    http: { method: 'POST', path: '/api/operator/users/wallet-link/revoke' },
    input: OperatorWalletLinkRequest, output: WalletLinkRevoked,
    summary: "Revokes the wallet page link of the app user `identifier`: the page refuses it from the next request on, and the NWC connections it made on the page end (`revoked` false: there was none).",
  }),
  operation({
    name: 'OperatorListPayments', ...operator,
    http: { method: 'GET', path: '/api/operator/payments', query: ['query', 'status', 'since', 'until', 'limit'], body: 'none' },
    input: OperatorPaymentSearch, output: OperatorPayments,
    summary: 'Invoices and outgoing payments, newest first, matching a payment hash prefix, user id or identifier, a status and a time range; with service and routing fees.',
  }),
  operation({
    name: 'OperatorGetAudit', ...operator,
    http: { method: 'GET', path: '/api/operator/audit', body: 'none' },
    input: Empty, output: OperatorAudit,
    summary: 'The last ledger audit of this process (the one at start, or the last one asked for).',
  }),
  operation({
    name: 'OperatorRunAudit', ...operator,
    http: { method: 'POST', path: '/api/operator/audit', body: 'none' },
    input: Empty, output: OperatorAudit,
    summary: 'Runs the ledger audit (as `relaypay audit`) on a worker thread and returns its verdict.',
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
  operation({
    name: 'OperatorListInvites', ...operator,
    http: { method: 'GET', path: '/api/operator/invites', body: 'none' },
    input: Empty, output: OperatorInvites,
    summary: 'Every one-time invite link (CreateOneTimeInviteLink), newest first, with whether and when it was used and by which key.',
  }),
  operation({
    name: 'OperatorDeleteModel', ...operator,
    http: { method: 'DELETE', path: '/api/operator/models/{name}', body: 'none' },
    input: ModelNameRequest, output: TranscriptionModel,
    summary: 'Deletes a downloaded transcription model from the cache (409 while it downloads); it can be downloaded again.',
  }),
]
