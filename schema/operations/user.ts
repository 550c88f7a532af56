// User operations (upstream's User caller kind): account, invoices, payments, on-chain, swaps, LNURL links, CLINK
// offers, debits and manage grants, live streams and batching; plus the wallet-host operations on the user's own
// account. Auth: the user token over HTTP, or any relay key over the relay transport.
import { operation } from '../operation.js'
import { Empty } from '../messages/common.js'
import {
  CallbackUrl, BatchUserRequest, BatchUserResponse, HttpCreds, MessagingToken, MigrationUpdate, UserHealthState,
  UserInfo,
} from '../messages/users.js'
import {
  DecodeInvoiceRequest, DecodeInvoiceResponse, GetPaymentStateRequest, NewAddressRequest, NewAddressResponse,
  NewInvoiceRequest, NewInvoiceResponse, PayAddressRequest, PayAddressResponse, PayInvoiceRequest,
  PayInvoiceResponse, PaymentState,
} from '../messages/invoices.js'
import { GetUserOperationsRequest, GetUserOperationsResponse, LiveUserOperation } from '../messages/operations.js'
import { TransactionSwapQuoteList, TransactionSwapRequest, TxSwapsList } from '../messages/swaps.js'
import {
  LightningAddress, LnurlLinkResponse, LnurlPayInvoice, LnurlPayInvoiceRequest, LnurlPayOffer, LnurlPayTarget, SetLightningAddressRequest,
} from '../messages/lnurl.js'
import {
  AddProductRequest, GetUserOfferInvoicesReq, NewProductInvoiceRequest, OfferConfig, OfferCreateRequest, OfferId,
  OfferInvoices, OfferUpdateRequest, Product, UserOffers,
} from '../messages/offers.js'
import {
  DebitAuthorizationRequest, DebitAuthorizations, DebitOperation, DebitResponse, LiveDebitRequest,
} from '../messages/debits.js'
import {
  LiveManageRequest, ManageAuthorization, ManageAuthorizationRequest, ManageAuthorizations, ManageOperation,
} from '../messages/manage.js'
import { CreatedWallet, CreateWalletRequest, ExtensionRequest, WalletKeys } from '../messages/wallets.js'

export const userOperations = [
  operation({
    name: 'UserHealth', area: 'user', auth: 'user', dialect: 'pub', nostr: true, repeatable: true,
    http: { method: 'POST', path: '/api/user/health', body: 'none' },
    input: Empty, output: UserHealthState,
    summary: 'An empty `downtime_reason` when payments work, else what is wrong with the node (never an error answer).',
  }),
  operation({
    name: 'GetUserInfo', area: 'user', auth: 'user', dialect: 'pub', nostr: true, repeatable: true,
    http: { method: 'POST', path: '/api/user/info', body: 'none' },
    input: Empty, output: UserInfo,
    summary: 'Balance, withdrawable amount, fee parameters, CLINK pointers (noffer, ndebit, nmanage), callback and bridge URLs.',
  }),
  operation({
    name: 'UpdateCallbackUrl', area: 'user', auth: 'user', dialect: 'pub', nostr: true,
    http: { method: 'POST', path: '/api/user/cb/update' },
    input: CallbackUrl, output: CallbackUrl,
    summary: "Saves the URL called when the user's invoices are paid, and echoes it.",
  }),
  operation({
    name: 'AddProduct', area: 'user', auth: 'user', dialect: 'pub', nostr: true,
    http: { method: 'POST', path: '/api/user/product/add' },
    input: AddProductRequest, output: Product,
    summary: 'Creates a fixed-price product and its offer string.',
  }),
  operation({
    name: 'NewProductInvoice', area: 'user', auth: 'user', dialect: 'pub', nostr: true,
    http: { method: 'GET', path: '/api/user/product/get/invoice', query: ['id'], body: 'none' },
    input: NewProductInvoiceRequest, output: NewInvoiceResponse,
    summary: 'An invoice for product `id` at its price; paying it credits the product owner. Upstream stub; relaypay implements it.',
  }),
  operation({
    name: 'GetUserOperations', area: 'user', auth: 'user', dialect: 'pub', nostr: true, repeatable: true,
    http: { method: 'POST', path: '/api/user/operations' },
    input: GetUserOperationsRequest, output: GetUserOperationsResponse,
    summary: "The user's history in six cursor-paginated lists: invoices, on-chain and user-to-user payments, in and out.",
  }),
  operation({
    name: 'NewAddress', area: 'user', auth: 'user', dialect: 'pub', nostr: true,
    http: { method: 'POST', path: '/api/user/chain/new' },
    input: NewAddressRequest, output: NewAddressResponse,
    summary: "The user's reusable on-chain receive address, created with the requested type on first use.",
  }),
  operation({
    name: 'PayAddress', area: 'user', auth: 'user', dialect: 'pub', nostr: true,
    http: { method: 'POST', path: '/api/user/chain/pay' },
    input: PayAddressRequest, output: PayAddressResponse,
    summary: 'Pays an on-chain address: instantly when it belongs to this service, otherwise through a quoted transaction swap.',
  }),
  operation({
    name: 'GetTransactionSwapQuotes', area: 'user', auth: 'user', dialect: 'pub', nostr: true,
    http: { method: 'POST', path: '/api/user/swap/transaction/quote' },
    input: TransactionSwapRequest, output: TransactionSwapQuoteList,
    summary: "Swap provider quotes for sending `transaction_amount_sats` on-chain from the user's balance.",
  }),
  operation({
    name: 'ListTxSwaps', area: 'user', auth: 'user', dialect: 'pub', nostr: true,
    http: { method: 'POST', path: '/api/user/swap/transaction/list', body: 'none' },
    input: Empty, output: TxSwapsList,
    summary: "The user's transaction swaps with their progress.",
  }),
  operation({
    name: 'NewInvoice', area: 'user', auth: 'user', dialect: 'pub', nostr: true,
    http: { method: 'POST', path: '/api/user/invoice/new' },
    input: NewInvoiceRequest, output: NewInvoiceResponse,
    summary: 'A bolt11 invoice credited to the user (amount > 0, expiry at most 1 h, optional zap request or blinded path).',
  }),
  operation({
    name: 'DecodeInvoice', area: 'user', auth: 'user', dialect: 'pub', nostr: true, repeatable: true,
    http: { method: 'POST', path: '/api/user/invoice/decode' },
    input: DecodeInvoiceRequest, output: DecodeInvoiceResponse,
    summary: 'The amount in sats of a bolt11 invoice.',
  }),
  operation({
    name: 'PayInvoice', area: 'user', auth: 'user', dialect: 'pub', nostr: true,
    http: { method: 'POST', path: '/api/user/invoice/pay' },
    input: PayInvoiceRequest, output: PayInvoiceResponse,
    summary: "Pays a bolt11 invoice that carries an amount from the user's balance, plus the service fee.",
  }),
  operation({
    name: 'GetPaymentState', area: 'user', auth: 'user', dialect: 'pub', nostr: true, repeatable: true,
    http: { method: 'POST', path: '/api/user/payment/state' },
    input: GetPaymentStateRequest, output: PaymentState,
    summary: "State of one of the user's outgoing payments: paid time (0 pending, -1 failed), amount and fees.",
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
  operation({
    name: 'GetUserOffers', area: 'user', auth: 'user', dialect: 'pub', nostr: true,
    http: { method: 'GET', path: '/api/user/offers/get', body: 'none' },
    input: Empty, output: UserOffers,
    summary: "The user's CLINK offers; the default offer is created on first use.",
  }),
  operation({
    name: 'GetUserOffer', area: 'user', auth: 'user', dialect: 'pub', nostr: true,
    http: { method: 'POST', path: '/api/user/offer/get' },
    input: OfferId, output: OfferConfig,
    summary: "One of the user's offers.",
  }),
  operation({
    name: 'GetUserOfferInvoices', area: 'user', auth: 'user', dialect: 'pub', nostr: true,
    http: { method: 'POST', path: '/api/user/offer/get/invoices' },
    input: GetUserOfferInvoicesReq, output: OfferInvoices,
    summary: 'Invoices issued for an offer, paid ones or all, with the payer data captured for each.',
  }),
  operation({
    name: 'UpdateUserOffer', area: 'user', auth: 'user', dialect: 'pub', nostr: true,
    http: { method: 'POST', path: '/api/user/offer/update' },
    input: OfferUpdateRequest, output: Empty,
    summary: "Changes an offer's label, price, callback, requested payer data and options.",
  }),
  operation({
    name: 'DeleteUserOffer', area: 'user', auth: 'user', dialect: 'pub', nostr: true,
    http: { method: 'POST', path: '/api/user/offer/delete' },
    input: OfferId, output: Empty,
    summary: "Deletes one of the user's offers.",
  }),
  operation({
    name: 'AddUserOffer', area: 'user', auth: 'user', dialect: 'pub', nostr: true,
    http: { method: 'POST', path: '/api/user/offer/add' },
    input: OfferCreateRequest, output: OfferId,
    summary: 'Creates a CLINK offer (price 0: the payer chooses the amount) and returns its id.',
  }),
  operation({
    name: 'GetDebitAuthorizations', area: 'user', auth: 'user', dialect: 'pub', nostr: true, repeatable: true,
    http: { method: 'GET', path: '/api/user/debit/get', body: 'none' },
    input: Empty, output: DebitAuthorizations,
    summary: 'The CLINK debit grants and bans the user has made, with their rules.',
  }),
  operation({
    name: 'GetManageAuthorizations', area: 'user', auth: 'user', dialect: 'pub', nostr: true, repeatable: true,
    http: { method: 'GET', path: '/api/user/manage/get', body: 'none' },
    input: Empty, output: ManageAuthorizations,
    summary: 'The CLINK manage grants and bans the user has made.',
  }),
  operation({
    name: 'AuthorizeManage', area: 'user', auth: 'user', dialect: 'pub', nostr: true,
    http: { method: 'POST', path: '/api/user/manage/authorize' },
    input: ManageAuthorizationRequest, output: ManageAuthorization,
    summary: "Allows a key to manage the user's offers, or bans it with `ban`.",
  }),
  operation({
    name: 'ResetManage', area: 'user', auth: 'user', dialect: 'pub', nostr: true,
    http: { method: 'POST', path: '/api/user/manage/reset' },
    input: ManageOperation, output: Empty,
    summary: 'Removes the manage grant or ban of a key.',
  }),
  operation({
    name: 'EditDebit', area: 'user', auth: 'user', dialect: 'pub', nostr: true,
    http: { method: 'POST', path: '/api/user/debit/edit' },
    input: DebitAuthorizationRequest, output: Empty,
    summary: 'Allows a key to debit the user under the given rules (expiry, amount per interval).',
  }),
  operation({
    name: 'BanDebit', area: 'user', auth: 'user', dialect: 'pub', nostr: true,
    http: { method: 'POST', path: '/api/user/debit/ban' },
    input: DebitOperation, output: Empty,
    summary: 'Bans a key from requesting debits.',
  }),
  operation({
    name: 'ResetDebit', area: 'user', auth: 'user', dialect: 'pub', nostr: true,
    http: { method: 'POST', path: '/api/user/debit/reset' },
    input: DebitOperation, output: Empty,
    summary: 'Removes the debit grant or ban of a key.',
  }),
  operation({
    name: 'RespondToDebit', area: 'user', auth: 'user', dialect: 'pub', nostr: true,
    http: { method: 'POST', path: '/api/user/debit/finish' },
    input: DebitResponse, output: Empty,
    summary: 'Answers a pending debit request: deny it, pay its invoice, or authorize the key under rules.',
  }),
  operation({
    name: 'GetLiveDebitRequests', area: 'user', auth: 'user', dialect: 'pub', nostr: true, stream: true,
    http: { method: 'POST', path: '/api/user/debit/sub', body: 'none' },
    input: Empty, output: LiveDebitRequest,
    summary: "Stream of incoming debit requests that need the user's answer (relay transport only).",
  }),
  operation({
    name: 'GetLiveManageRequests', area: 'user', auth: 'user', dialect: 'pub', nostr: true, stream: true,
    http: { method: 'POST', path: '/api/user/manage/sub', body: 'none' },
    input: Empty, output: LiveManageRequest,
    summary: "Stream of incoming manage requests from keys without a grant (relay transport only).",
  }),
  operation({
    name: 'GetLiveUserOperations', area: 'user', auth: 'user', dialect: 'pub', nostr: true, stream: true,
    http: { method: 'POST', path: '/api/user/operations/sub', body: 'none' },
    input: Empty, output: LiveUserOperation,
    summary: "Stream of the user's operations as they happen, each with the new balance (relay transport only).",
  }),
  operation({
    name: 'GetMigrationUpdate', area: 'user', auth: 'user', dialect: 'pub', nostr: true, stream: true,
    http: { method: 'POST', path: '/api/user/migrations/sub', body: 'none' },
    input: Empty, output: MigrationUpdate,
    summary: 'Stream of service migration notices: closure date or new relays (relay transport only).',
  }),
  operation({
    name: 'GetHttpCreds', area: 'user', auth: 'user', dialect: 'pub', nostr: true,
    http: { method: 'POST', path: '/api/user/http_creds', body: 'none' },
    input: Empty, output: HttpCreds,
    summary: 'The service URL and a user token for HTTP calls, when HTTP upgrade is allowed.',
  }),
  operation({
    name: 'EnrollMessagingToken', area: 'user', auth: 'user', dialect: 'pub', nostr: true,
    http: { method: 'POST', path: '/api/user/messaging/enroll' },
    input: MessagingToken, output: Empty,
    summary: "Registers a device's push-messaging token for the user.",
  }),
  operation({
    name: 'BatchUser', area: 'user', auth: 'user', dialect: 'pub', nostr: true, batch: true,
    http: { method: 'POST', path: '/api/user/batch' },
    input: BatchUserRequest, output: BatchUserResponse,
    summary: 'Runs up to 10 non-stream user operations in order in one call, answering one OK or ERROR object per entry.',
  }),
  operation({
    name: 'GetWalletKeys', area: 'user', auth: 'user', dialect: 'pub', unknownFields: 'refuse', nostr: true,
    http: { method: 'POST', path: '/api/user/wallet/keys', body: 'none' },
    input: Empty, output: WalletKeys,
    summary: "The admin and invoice keys of the caller's wallet, for the extension and wallet-host routes.",
  }),
  operation({
    name: 'RotateWalletKeys', area: 'user', auth: 'user', dialect: 'pub', unknownFields: 'refuse', nostr: true,
    http: { method: 'POST', path: '/api/user/wallet/keys/rotate', body: 'none' },
    input: Empty, output: WalletKeys,
    summary: "Replaces both keys of the caller's wallet; the old keys stop working.",
  }),
  operation({
    name: 'CreateWallet', area: 'user', auth: 'user', dialect: 'pub', unknownFields: 'refuse', nostr: true,
    http: { method: 'POST', path: '/api/user/wallet/create' },
    input: CreateWalletRequest, output: CreatedWallet,
    summary: "Adds a wallet with its own balance and keys to the caller's account.",
  }),
  operation({
    name: 'EnableExtension', area: 'user', auth: 'user', dialect: 'pub', unknownFields: 'refuse', nostr: true,
    http: { method: 'POST', path: '/api/user/extension/enable' },
    input: ExtensionRequest, output: Empty,
    summary: "Enables an extension (e.g. `restaurant`, `payroll`) for the caller's account.",
  }),
  operation({
    name: 'DisableExtension', area: 'user', auth: 'user', dialect: 'pub', unknownFields: 'refuse', nostr: true,
    http: { method: 'POST', path: '/api/user/extension/disable' },
    input: ExtensionRequest, output: Empty,
    summary: "Disables an extension for the caller's account.",
  }),
]
