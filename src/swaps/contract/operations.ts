// The operations the swaps room serves: invoice swaps (chain to Lightning, the admin's) and transaction swaps
// (Lightning to chain, the admin's and the users').
import { operation } from '../../../schema/operation.js'
import { Empty } from '../../../schema/dsl.js'
import {
  AdminInvoiceSwapResponse, AdminTxSwapResponse, InvoiceSwapQuoteList, InvoiceSwapRequest, InvoiceSwapsList,
  PayAdminInvoiceSwapRequest, PayAdminTransactionSwapRequest, RefundAdminInvoiceSwapRequest, TransactionSwapQuoteList,
  TransactionSwapRequest, TxSwapsList,
} from './messages/swaps.js'

export const swapsOperations = [
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
]
