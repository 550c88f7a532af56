// The wallet host API: the LNbits-compatible routes that host-side tools and the
// extensions' clients use to read wallets, move money and switch extensions on per account. Status codes
// follow upstream: creating a payment answers 201, creating a wallet 200 (upstream sets no status there).
import { operation } from '../operation.js'
import { Empty } from '../dsl.js'
import {
  HostCreatePaymentRequest,
  HostCreatePaymentResponse,
  HostCreateWalletRequest,
  HostCreatedWallet,
  HostExtensionRequest,
  HostGetPaymentRequest,
  HostGetPaymentResponse,
  HostWallet,
  SimpleStatus,
} from '../messages/host.js'

const area = 'wallet-host'

export const walletHostOperations = [
  operation({
    name: 'HostGetWallet',
    area,
    auth: 'walletInvoice',
    dialect: 'detail',
    http: { method: 'GET', path: '/api/v1/wallet', body: 'none' },
    input: Empty,
    output: HostWallet,
    summary: "Reads the key's wallet: name and balance in msat, and its id when the admin key is used.",
  }),
  operation({
    name: 'HostCreateWallet',
    area,
    auth: 'walletAdmin',
    dialect: 'detail',
    http: { method: 'POST', path: '/api/v1/wallet' },
    input: HostCreateWalletRequest,
    output: HostCreatedWallet,
    summary: "Adds a wallet, with its own balance and keys, to the account that owns the key's wallet.",
  }),
  operation({
    name: 'HostCreatePayment',
    area,
    // Invoice keys may receive; the handler demands the admin key when `out` is true, as upstream does.
    auth: 'walletInvoice',
    dialect: 'detail',
    http: { method: 'POST', path: '/api/v1/payments', status: 201 },
    input: HostCreatePaymentRequest,
    output: HostCreatePaymentResponse,
    summary: "Creates an invoice on the key's wallet (`out: false`) or pays `bolt11` from it (`out: true`, admin key).",
  }),
  operation({
    name: 'HostGetPayment',
    area,
    auth: 'walletInvoice',
    dialect: 'detail',
    http: { method: 'GET', path: '/api/v1/payments/{payment_hash}', body: 'none' },
    input: HostGetPaymentRequest,
    output: HostGetPaymentResponse,
    summary: 'Reports whether a payment or invoice is paid, with its details when the key owns it.',
  }),
  operation({
    name: 'HostEnableExtension',
    area,
    auth: 'walletAdmin',
    dialect: 'detail',
    http: { method: 'PUT', path: '/api/v1/extension/{ext_id}/enable', body: 'none' },
    input: HostExtensionRequest,
    output: SimpleStatus,
    summary: "Enables an extension for the account that owns the key's wallet.",
  }),
  operation({
    name: 'HostDisableExtension',
    area,
    auth: 'walletAdmin',
    dialect: 'detail',
    http: { method: 'PUT', path: '/api/v1/extension/{ext_id}/disable', body: 'none' },
    input: HostExtensionRequest,
    output: SimpleStatus,
    summary: "Disables an extension for the account that owns the key's wallet; disabling twice is harmless.",
  }),
]
