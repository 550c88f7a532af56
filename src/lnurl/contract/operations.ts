// The operations the LNURL room serves: LNURL pay, withdraw and channel for guests, the Lightning address, the
// user's own LNURL links, and paying a stranger's pay request (resolved through the callbacks room's outbound guard).
import { operation } from '../../../schema/operation.js'
import { Empty } from '../../../schema/dsl.js'
import { GetAppUserLNURLInfoRequest } from '../../../schema/messages/apps.js'
import {
  GetLnurlChannelInfoRequest, GetLnurlPayInfoRequest, GetLnurlWithdrawInfoRequest, HandleLnurlAddressRequest,
  HandleLnurlChannelRequest, HandleLnurlPayRequest, HandleLnurlPayResponse, HandleLnurlWithdrawRequest,
  LightningAddress, LnurlChannelInfoResponse, LnurlLinkResponse, LnurlPayInfoResponse, LnurlPayInvoice,
  LnurlPayInvoiceRequest, LnurlPayOffer, LnurlPayTarget, LnurlWithdrawInfoResponse, SetLightningAddressRequest,
} from './messages/lnurl.js'

export const lnurlOperations = [
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
    name: 'GetAppUserLNURLInfo', area: 'app', auth: 'app', dialect: 'pub',
    http: { method: 'POST', path: '/api/app/user/lnurl/pay/info' },
    input: GetAppUserLNURLInfoRequest, output: LnurlPayInfoResponse,
    summary: 'LUD-06 payRequest for an app user; a non-empty `base_url_override` replaces the callback base.',
  }),
  operation({
    name: 'GetLnurlWithdrawLink', area: 'user', auth: 'user', dialect: 'pub', nostr: true,
    http: { method: 'GET', path: '/api/user/lnurl_withdraw/link', body: 'none' },
    input: Empty, output: LnurlLinkResponse,
    summary: "An LNURL-withdraw link with which a wallet pulls from the user's balance. Upstream stub; relaypay implements it.",
  }),
  operation({
    name: 'GetLnurlPayLink', area: 'user', auth: 'user', dialect: 'pub', nostr: true,
    http: { method: 'GET', path: '/api/user/lnurl_pay/link', body: 'none' },
    input: Empty, output: LnurlLinkResponse,
    summary: "The user's persistent LNURL-pay link.",
  }),
  operation({
    name: 'SetLightningAddress', area: 'user', auth: 'user', dialect: 'pub', unknownFields: 'refuse', nostr: true,
    http: { method: 'POST', path: '/api/user/lnurl/address' },
    input: SetLightningAddressRequest, output: LightningAddress,
    summary: 'Claims the Lightning address `<name>@<domain>` for the user (replacing an earlier one). Relaypay addition.',
  }),
  operation({
    name: 'ResolveLnurlPay', area: 'user', auth: 'user', dialect: 'pub', unknownFields: 'refuse', nostr: true,
    http: { method: 'POST', path: '/api/user/lnurl/pay/resolve' },
    input: LnurlPayTarget, output: LnurlPayOffer,
    summary: 'What an LNURL-pay link or a Lightning address (`destination`) asks to be paid: its domain, description, amount range and comment length. Relaypay addition.',
  }),
  operation({
    name: 'GetLnurlPayInvoice', area: 'user', auth: 'user', dialect: 'pub', unknownFields: 'refuse', nostr: true,
    http: { method: 'POST', path: '/api/user/lnurl/pay/invoice' },
    input: LnurlPayInvoiceRequest, output: LnurlPayInvoice,
    summary: "An invoice of `amount_sats` from an LNURL-pay link or a Lightning address, checked (amount, LUD-06 description hash), with the payee's LUD-09 `success_action` to show once it is paid (left out when invalid); pay it with PayInvoice. Relaypay addition.",
  }),
  operation({
    name: 'GetLNURLChannelLink', area: 'user', auth: 'user', dialect: 'pub', nostr: true,
    http: { method: 'POST', path: '/api/user/lnurl_channel/url', body: 'none' },
    input: Empty, output: LnurlLinkResponse,
    summary: 'An LNURL-channel link for opening a channel from the node. Upstream stub; relaypay implements it.',
  }),
]
