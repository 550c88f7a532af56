// The wallet host API's payments (the LNbits-compatible routes host-side tools and the extensions' clients use):
// creating an invoice or a payment on a key's wallet and reading one back. Creating a payment answers 201, as
// upstream. The wallet's own routes of this API (wallets, extensions per account) are the wallet room's.
import { operation } from '../../../schema/operation.js'
import {
  HostCreatePaymentRequest, HostCreatePaymentResponse, HostGetPaymentRequest, HostGetPaymentResponse,
} from '../../../schema/messages/host.js'

export const hostApiOperations = [
  operation({
    name: 'HostCreatePayment',
    area: 'wallet-host',
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
    area: 'wallet-host',
    auth: 'walletInvoice',
    dialect: 'detail',
    http: { method: 'GET', path: '/api/v1/payments/{payment_hash}', body: 'none' },
    input: HostGetPaymentRequest,
    output: HostGetPaymentResponse,
    summary: 'Reports whether a payment or invoice is paid, with its details when the key owns it.',
  }),
]
