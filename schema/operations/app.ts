// Application operations (upstream's App caller kind): users, invoices, payments and transfers on behalf of
// users, npub linking, and mock test helpers. HTTP only, with the application token from AddApp/AuthApp.
import { operation } from '../operation.js'
import { Empty } from '../messages/common.js'
import { NewInvoiceResponse, PayInvoiceResponse } from '../messages/invoices.js'
import {
  AddAppInvoiceRequest, AddAppUserInvoiceRequest, AddAppUserRequest, AppUser, Application,
  GetAppUserLNURLInfoRequest, GetAppUserRequest, PayAppUserInvoiceRequest, SendAppUserToAppPaymentRequest,
  SendAppUserToAppUserPaymentRequest, SetMockAppBalanceRequest, SetMockAppUserBalanceRequest,
} from '../messages/apps.js'
import { LnurlPayInfoResponse } from '../messages/lnurl.js'
import { WalletLink, WalletLinkRevoked } from '../messages/wallet-links.js'
import {
  GetNPubLinking, NPubLinking, RequestNPubLinkingTokenRequest, RequestNPubLinkingTokenResponse,
} from '../messages/linking.js'

export const appOperations = [
  operation({
    name: 'GetApp', area: 'app', auth: 'app', dialect: 'pub',
    http: { method: 'POST', path: '/api/app/get', body: 'none' },
    input: Empty, output: Application,
    summary: "The calling application: name, id, balance (its owner account's) and hex npub.",
  }),
  operation({
    name: 'AddAppUser', area: 'app', auth: 'app', dialect: 'pub',
    http: { method: 'POST', path: '/api/app/user/add' },
    input: AddAppUserRequest, output: AppUser,
    summary: 'Creates an app user by `identifier`, or returns the existing one when `fail_if_exists` is false; a non-zero opening balance needs balance migration enabled.',
  }),
  operation({
    name: 'AddAppInvoice', area: 'app', auth: 'app', dialect: 'pub',
    http: { method: 'POST', path: '/api/app/add/invoice' },
    input: AddAppInvoiceRequest, output: NewInvoiceResponse,
    summary: 'An invoice credited to the application itself, with an optional paid-callback URL.',
  }),
  operation({
    name: 'AddAppUserInvoice', area: 'app', auth: 'app', dialect: 'pub',
    http: { method: 'POST', path: '/api/app/user/add/invoice' },
    input: AddAppUserInvoiceRequest, output: NewInvoiceResponse,
    summary: "An invoice credited to an existing app user, with optional zap request, payer data, offer, blinded path and paid-callback.",
  }),
  operation({
    name: 'GetAppUser', area: 'app', auth: 'app', dialect: 'pub',
    http: { method: 'POST', path: '/api/app/user/get' },
    input: GetAppUserRequest, output: AppUser,
    summary: 'An app user by identifier, with its account information and withdrawable amount.',
  }),
  operation({
    name: 'AppCreateWalletLink', area: 'app', auth: 'app', dialect: 'pub', unknownFields: 'refuse',
    http: { method: 'POST', path: '/api/app/user/wallet-link' },
    input: GetAppUserRequest, output: WalletLink,
    summary: "A wallet page link (`/wallet/#<secret>`, on `[http] public_url`) for the app's own user `user_identifier`, shown only here; the wallet's earlier link, and the NWC connections it made on the page, stop working at once. Relaypay addition.",
  }),
  operation({
    name: 'AppRevokeWalletLink', area: 'app', auth: 'app', dialect: 'pub', unknownFields: 'refuse',
    http: { method: 'POST', path: '/api/app/user/wallet-link/revoke' },
    input: GetAppUserRequest, output: WalletLinkRevoked,
    summary: "Revokes the wallet page link of the app's own user `user_identifier`, and the NWC connections it made on the page (`revoked` false: there was none). Relaypay addition.",
  }),
  operation({
    name: 'PayAppUserInvoice', area: 'app', auth: 'app', dialect: 'pub',
    http: { method: 'POST', path: '/api/app/invoice/pay' },
    input: PayAppUserInvoiceRequest, output: PayInvoiceResponse,
    summary: "Pays a bolt11 invoice from an app user's balance, under the same rules as PayInvoice.",
  }),
  operation({
    name: 'SendAppUserToAppUserPayment', area: 'app', auth: 'app', dialect: 'pub',
    http: { method: 'POST', path: '/api/app/user/internal/pay' },
    input: SendAppUserToAppUserPaymentRequest, output: Empty,
    summary: 'Internal transfer between two app users; the receiver is created if missing.',
  }),
  operation({
    name: 'SendAppUserToAppPayment', area: 'app', auth: 'app', dialect: 'pub',
    http: { method: 'POST', path: '/api/app/internal/pay' },
    input: SendAppUserToAppPaymentRequest, output: Empty,
    summary: 'Internal transfer from an app user to the application.',
  }),
  operation({
    name: 'GetAppUserLNURLInfo', area: 'app', auth: 'app', dialect: 'pub',
    http: { method: 'POST', path: '/api/app/user/lnurl/pay/info' },
    input: GetAppUserLNURLInfoRequest, output: LnurlPayInfoResponse,
    summary: 'LUD-06 payRequest for an app user; a non-empty `base_url_override` replaces the callback base.',
  }),
  operation({
    name: 'SetMockAppUserBalance', area: 'app', auth: 'app', dialect: 'pub',
    testMode: true,
    http: { method: 'POST', path: '/api/app/mock/user/blance/set' },
    input: SetMockAppUserBalanceRequest, output: Empty,
    summary: "Test mode: sets an app user's balance, creating the user if needed; otherwise upstream's 'mock disabled' error. Upstream stub; relaypay implements it.",
  }),
  operation({
    name: 'SetMockAppBalance', area: 'app', auth: 'app', dialect: 'pub',
    testMode: true,
    http: { method: 'POST', path: '/api/app/mock/blance/set' },
    input: SetMockAppBalanceRequest, output: Empty,
    summary: "Test mode: sets the application's balance; otherwise upstream's 'mock disabled' error. Upstream stub; relaypay implements it.",
  }),
  operation({
    name: 'GetNPubLinkingState', area: 'app', auth: 'app', dialect: 'pub',
    http: { method: 'POST', path: '/api/app/user/npub/state' },
    input: GetNPubLinking, output: NPubLinking,
    summary: 'Whether an app user is unlinked, has a pending linking token, or is linked to an npub.',
  }),
  operation({
    name: 'RequestNPubLinkingToken', area: 'app', auth: 'app', dialect: 'pub',
    http: { method: 'POST', path: '/api/app/user/npub/token' },
    input: RequestNPubLinkingTokenRequest, output: RequestNPubLinkingTokenResponse,
    summary: 'Issues a 2-minute token with which a relay key links itself to this app user; fails if a token is pending or an npub is linked.',
  }),
  operation({
    name: 'ResetNPubLinkingToken', area: 'app', auth: 'app', dialect: 'pub',
    http: { method: 'POST', path: '/api/app/user/npub/token/reset' },
    input: RequestNPubLinkingTokenRequest, output: RequestNPubLinkingTokenResponse,
    summary: 'Like RequestNPubLinkingToken, but also allowed when an npub is already linked (re-linking).',
  }),
]
