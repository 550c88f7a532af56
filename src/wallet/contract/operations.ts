// The operations the wallet room serves, whoever calls them: the admin's applications and users, the app's users,
// invoices, payments and transfers, the user's account, invoices, payments, on-chain and history, the wallet host's
// wallets and per-account extensions, and the operator's views of apps, users, payments and the audit.
import { operation } from '../../../schema/operation.js'
import { Empty } from '../../../schema/dsl.js'
import { operator } from '../../../schema/sections.js'
import {
  AddAppInvoiceRequest, AddAppRequest, AddAppUserInvoiceRequest, AddAppUserRequest, AppUser, Application, AuthApp,
  AuthAppRequest, BanUserRequest, BanUserResponse, GetAppUserRequest, PayAppUserInvoiceRequest,
  SendAppUserToAppPaymentRequest, SendAppUserToAppUserPaymentRequest, SetMockAppBalanceRequest,
  SetMockAppUserBalanceRequest,
} from '../../../schema/messages/apps.js'
import {
  HostCreateWalletRequest, HostCreatedWallet, HostExtensionRequest, HostWallet, SimpleStatus,
} from '../../../schema/messages/host.js'
import {
  GetPaymentStateRequest, NewAddressRequest, NewAddressResponse, NewInvoiceRequest, NewInvoiceResponse,
  PayAddressRequest, PayAddressResponse, PayInvoiceRequest, PayInvoiceResponse, PaymentState,
} from '../../../schema/messages/invoices.js'
import { AddProductRequest, NewProductInvoiceRequest, Product } from '../../../schema/messages/offers.js'
import {
  GetUserOperationsRequest, GetUserOperationsResponse, LiveUserOperation, UsersAdminInfo, UsersAdminInfoRequest,
} from '../../../schema/messages/operations.js'
import {
  OperatorAppToken, OperatorApps, OperatorAudit, OperatorPaymentSearch, OperatorPayments,
  OperatorRotateAppTokenRequest, OperatorUserSearch, OperatorUserToken, OperatorUserTokenRequest, OperatorUsers,
} from '../../../schema/messages/operator.js'
import { CallbackUrl, MigrationUpdate, UserHealthState, UserInfo } from '../../../schema/messages/users.js'
import { CreateWalletRequest, CreatedWallet, ExtensionRequest, WalletKeys } from './messages/wallets.js'

export const walletOperations = [
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
    name: 'NewInvoice', area: 'user', auth: 'user', dialect: 'pub', nostr: true,
    http: { method: 'POST', path: '/api/user/invoice/new' },
    input: NewInvoiceRequest, output: NewInvoiceResponse,
    summary: 'A bolt11 invoice credited to the user (amount > 0, expiry at most 1 h, optional zap request or blinded path).',
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
  operation({
    name: 'HostGetWallet',
    area: 'wallet-host',
    auth: 'walletInvoice',
    dialect: 'detail',
    http: { method: 'GET', path: '/api/v1/wallet', body: 'none' },
    input: Empty,
    output: HostWallet,
    summary: "Reads the key's wallet: name and balance in msat, and its id when the admin key is used.",
  }),
  operation({
    name: 'HostCreateWallet',
    area: 'wallet-host',
    auth: 'walletAdmin',
    dialect: 'detail',
    http: { method: 'POST', path: '/api/v1/wallet' },
    input: HostCreateWalletRequest,
    output: HostCreatedWallet,
    summary: "Adds a wallet, with its own balance and keys, to the account that owns the key's wallet.",
  }),
  operation({
    name: 'HostEnableExtension',
    area: 'wallet-host',
    auth: 'walletAdmin',
    dialect: 'detail',
    http: { method: 'PUT', path: '/api/v1/extension/{ext_id}/enable', body: 'none' },
    input: HostExtensionRequest,
    output: SimpleStatus,
    summary: "Enables an extension for the account that owns the key's wallet.",
  }),
  operation({
    name: 'HostDisableExtension',
    area: 'wallet-host',
    auth: 'walletAdmin',
    dialect: 'detail',
    http: { method: 'PUT', path: '/api/v1/extension/{ext_id}/disable', body: 'none' },
    input: HostExtensionRequest,
    output: SimpleStatus,
    summary: "Disables an extension for the account that owns the key's wallet; disabling twice is harmless.",
  }),
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
]
