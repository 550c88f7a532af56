// Unauthenticated operations: health, LNURL pay and withdraw, the Lightning address, mock test helpers, and
// admin enrollment (upstream's Guest caller kind). HTTP only, except EnrollAdminToken, which is a User operation
// served under /api/guest and also over the relay transport.
import { operation } from '../operation.js'
import { Empty, EncryptionExchangeRequest } from '../messages/common.js'
import { SetMockInvoiceAsPaidRequest } from '../messages/invoices.js'
import {
  GetLnurlPayInfoRequest, GetLnurlWithdrawInfoRequest, HandleLnurlAddressRequest, HandleLnurlPayRequest,
  HandleLnurlPayResponse, HandleLnurlWithdrawRequest, LnurlPayInfoResponse, LnurlWithdrawInfoResponse,
  GetLnurlChannelInfoRequest, HandleLnurlChannelRequest, LnurlChannelInfoResponse,
} from '../messages/lnurl.js'
import { EnrollAdminTokenRequest } from '../messages/linking.js'

export const guestOperations = [
  operation({
    name: 'Health', area: 'guest', auth: 'guest', dialect: 'pub',
    http: { method: 'GET', path: '/api/health', body: 'none' },
    input: Empty, output: Empty,
    summary: 'OK when the node answers and is synced to chain and graph; otherwise an error saying which.',
  }),
  operation({
    name: 'EncryptionExchange', area: 'guest', auth: 'guest', dialect: 'pub',
    http: { method: 'POST', path: '/api/encryption/exchange' },
    input: EncryptionExchangeRequest, output: Empty,
    summary: 'Accepted and ignored (a vestigial upstream HTTP encryption feature); answers OK.',
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
    name: 'GetLnurlWithdrawInfo', area: 'guest', auth: 'guest', dialect: 'pub',
    http: { method: 'GET', path: '/api/guest/lnurl_withdraw/info', query: ['k1'], body: 'none' },
    input: GetLnurlWithdrawInfoRequest, output: LnurlWithdrawInfoResponse,
    summary: 'LUD-03 withdrawRequest for the withdraw key `k1`. Upstream stub; relaypay implements it.',
  }),
  operation({
    name: 'HandleLnurlWithdraw', area: 'guest', auth: 'guest', dialect: 'pub',
    http: { method: 'GET', path: '/api/guest/lnurl_withdraw/handle', query: ['k1', 'pr'], body: 'none' },
    input: HandleLnurlWithdrawRequest, output: Empty,
    summary: "LUD-03 callback: consumes the withdraw key `k1` and pays the invoice `pr` from its owner's balance. Upstream stub; relaypay implements it.",
  }),
  operation({
    name: 'GetLnurlPayInfo', area: 'guest', auth: 'guest', dialect: 'pub',
    http: { method: 'GET', path: '/api/guest/lnurl_pay/info', query: ['k1'], body: 'none' },
    input: GetLnurlPayInfoRequest, output: LnurlPayInfoResponse,
    summary: 'LUD-06 payRequest for the user owning the pay key `k1`.',
  }),
  operation({
    name: 'HandleLnurlPay', area: 'guest', auth: 'guest', dialect: 'pub',
    http: { method: 'GET', path: '/api/guest/lnurl_pay/handle', query: ['k1', 'amount', 'nostr', 'lnurl', 'comment'], body: 'none' },
    input: HandleLnurlPayRequest, output: HandleLnurlPayResponse,
    summary: "LUD-06 callback: an invoice for `amount` millisats to the pay key's owner; `nostr` carries a NIP-57 zap request.",
  }),
  operation({
    name: 'GetLnurlChannelInfo', area: 'guest', auth: 'guest', dialect: 'pub', unknownFields: 'refuse',
    http: { method: 'GET', path: '/api/guest/lnurl_channel/info', query: ['k1'], body: 'none' },
    input: GetLnurlChannelInfoRequest, output: LnurlChannelInfoResponse,
    summary: 'LUD-02 channelRequest for the channel key `k1`: the node URI to connect to and the callback. Relaypay addition.',
  }),
  operation({
    name: 'HandleLnurlChannel', area: 'guest', auth: 'guest', dialect: 'pub', unknownFields: 'refuse',
    http: { method: 'GET', path: '/api/guest/lnurl_channel/handle', query: ['k1', 'remoteid', 'private'], body: 'none' },
    input: HandleLnurlChannelRequest, output: Empty,
    summary: 'LUD-02 callback: the node opens a channel to `remoteid`, which must be connected as a peer. Relaypay addition.',
  }),
  operation({
    name: 'HandleLnurlAddress', area: 'guest', auth: 'guest', dialect: 'pub',
    http: { method: 'GET', path: '/.well-known/lnurlp/:address_name', body: 'none' },
    input: HandleLnurlAddressRequest, output: LnurlPayInfoResponse,
    summary: 'Lightning address (LUD-16): the payRequest of the user whose hex nostr pubkey is `address_name`.',
  }),
  operation({
    name: 'EnrollAdminToken', area: 'guest', auth: 'user', dialect: 'pub', nostr: true,
    http: { method: 'POST', path: '/api/guest/npub/enroll/admin' },
    input: EnrollAdminTokenRequest, output: Empty,
    summary: "Makes the caller's relay key the admin key when `admin_token` matches the enrollment file, which is then deleted.",
  }),
]
