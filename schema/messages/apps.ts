// Applications and the users they manage (App and Admin operations). Fields: upstream's structs.proto.
import { bool, int, list, message, optional, text } from '../dsl.js'
import { CumulativeFees, PayerData } from './common.js'
import { NewInvoiceRequest } from './invoices.js'
import { UserInfo } from './users.js'

export const Application = message('Application', {
  name: text(),
  id: text(),
  balance: int(), // sats, = balance of the app owner user
  npub: text(), // HEX x-only pubkey of the app (not bech32) or ""
})

export const AuthApp = message('AuthApp', {
  app: Application,
  auth_token: text(), // app JWT (HS256, payload {appId}) for the HTTP App auth header
})

export const AddAppRequest = message('AddAppRequest', {
  name: text(), // must be non-empty; app names are unique
  allow_user_creation: bool(),
})

export const AuthAppRequest = message('AuthAppRequest', {
  name: text(),
  allow_user_creation: optional(bool()),
})

export const BanUserRequest = message('BanUserRequest', {
  user_id: text(),
})

export const BannedAppUser = message('BannedAppUser', {
  app_name: text(),
  app_id: text(),
  user_identifier: text(),
  nostr_pub: text(),
})

export const BanUserResponse = message('BanUserResponse', {
  balance_sats: int(),
  banned_app_users: list(BannedAppUser),
})

export const AppUser = message('AppUser', {
  identifier: text(),
  info: UserInfo,
  max_withdrawable: int(), // sats, balance minus worst-case service fee
})

export const AddAppUserRequest = message('AddAppUserRequest', {
  identifier: text(),
  fail_if_exists: bool(), // true: error if identifier exists; false: get-or-create
  balance: int(), // sats; non-zero rejected unless ALLOW_BALANCE_MIGRATION=true
})

export const GetAppUserRequest = message('GetAppUserRequest', {
  user_identifier: text(),
})

export const AddAppInvoiceRequest = message('AddAppInvoiceRequest', {
  payer_identifier: text(),
  http_callback_url: text(), // "" or http(s) URL (URI-template allowed), SSRF-filtered
  invoice_req: NewInvoiceRequest,
})

export const AddAppUserInvoiceRequest = message('AddAppUserInvoiceRequest', {
  receiver_identifier: text(),
  payer_identifier: text(),
  http_callback_url: text(),
  invoice_req: NewInvoiceRequest,
  payer_data: optional(PayerData),
  offer_string: optional(text()), // offer id this invoice belongs to (for GetUserOfferInvoices)
  rejectUnauthorized: optional(bool()), // TLS verification for the paid-callback (default true)
  token: optional(text()), // Bearer token sent on the paid-callback
})

export const PayAppUserInvoiceRequest = message('PayAppUserInvoiceRequest', {
  user_identifier: text(),
  invoice: text(),
  amount: int(), // must be 0 (amountless invoices rejected)
  debit_npub: optional(text()), // hex pubkey of a debit requestor to attribute the payment to
  expected_fees: optional(CumulativeFees),
})

export const SendAppUserToAppUserPaymentRequest = message('SendAppUserToAppUserPaymentRequest', {
  from_user_identifier: text(),
  to_user_identifier: text(),
  amount: int(), // sats, > 0, safe integer
})

export const SendAppUserToAppPaymentRequest = message('SendAppUserToAppPaymentRequest', {
  from_user_identifier: text(),
  amount: int(),
})

export const GetAppUserLNURLInfoRequest = message('GetAppUserLNURLInfoRequest', {
  user_identifier: text(),
  base_url_override: text(), // if non-empty, callback = <override>?k1=<key>
})

export const SetMockAppUserBalanceRequest = message('SetMockAppUserBalanceRequest', {
  user_identifier: text(),
  amount: int(), // sats; test mode only (docs/pub-protocol.md, "Test mode")
})

export const SetMockAppBalanceRequest = message('SetMockAppBalanceRequest', {
  amount: int(),
})
