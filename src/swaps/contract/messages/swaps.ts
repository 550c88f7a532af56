// Invoice swaps (chain → LN, admin) and transaction swaps (LN → chain, admin and users).
// Fields: upstream's structs.proto.
import { bool, int, list, message, oneof, optional, text } from '../../../../schema/dsl.js'
import { UserOperation } from '../../../../schema/messages/operations.js'

export const TxFeesReq = message('TxFeesReq', {
  fees: oneof({ sat_per_v_byte: int(), target_conf: int() }),
})

export const InvoiceSwapRequest = message('InvoiceSwapRequest', {
  amount_sats: int(),
  fees_req: optional(TxFeesReq),
})

export const InvoiceSwapQuote = message('InvoiceSwapQuote', {
  swap_operation_id: text(),
  invoice: text(),
  invoice_amount_sats: int(),
  address: text(),
  transaction_amount_sats: int(),
  chain_fee_sats: int(),
  service_fee_sats: int(), // always 0
  service_url: text(),
  swap_fee_sats: int(),
  tx_id: text(),
  paid_at_unix: int(),
  expires_at_block_height: int(),
  sat_per_v_byte: int(),
})

export const InvoiceSwapQuoteList = message('InvoiceSwapQuoteList', {
  quotes: list(InvoiceSwapQuote),
})

export const InvoiceSwapOperation = message('InvoiceSwapOperation', {
  quote: InvoiceSwapQuote,
  operation_payment: optional(UserOperation),
  failure_reason: optional(text()),
  completed_at_unix: optional(int()),
  refund_address: optional(text()),
  refund_at_unix: optional(int()),
  refund_tx_id: optional(text()),
})

export const InvoiceSwapsList = message('InvoiceSwapsList', {
  swaps: list(InvoiceSwapOperation),
  current_block_height: int(),
})

export const PayAdminInvoiceSwapRequest = message('PayAdminInvoiceSwapRequest', {
  swap_operation_id: text(),
  sat_per_v_byte: optional(int()),
  no_claim: optional(bool()),
})

export const RefundAdminInvoiceSwapRequest = message('RefundAdminInvoiceSwapRequest', {
  swap_operation_id: text(),
  sat_per_v_byte: int(),
})

export const AdminInvoiceSwapResponse = message('AdminInvoiceSwapResponse', {
  tx_id: text(),
})

export const TransactionSwapRequest = message('TransactionSwapRequest', {
  transaction_amount_sats: int(),
})

export const TransactionSwapQuote = message('TransactionSwapQuote', {
  swap_operation_id: text(),
  invoice_amount_sats: int(),
  transaction_amount_sats: int(), // requested on-chain amount
  swap_fee_sats: int(),
  chain_fee_sats: int(),
  service_fee_sats: int(), // Pub service fee on the swap invoice
  service_url: text(),
  expires_at_block_height: int(),
  paid_at_unix: int(),
  completed_at_unix: int(),
})

export const TransactionSwapQuoteList = message('TransactionSwapQuoteList', {
  quotes: list(TransactionSwapQuote),
})

export const TxSwapOperation = message('TxSwapOperation', {
  quote: TransactionSwapQuote,
  operation_payment: optional(UserOperation),
  failure_reason: optional(text()),
  address_paid: optional(text()),
  tx_id: optional(text()),
})

export const TxSwapsList = message('TxSwapsList', {
  swaps: list(TxSwapOperation),
})

export const PayAdminTransactionSwapRequest = message('PayAdminTransactionSwapRequest', {
  address: text(),
  swap_operation_id: text(),
})

export const AdminTxSwapResponse = message('AdminTxSwapResponse', {
  tx_id: text(),
  network_fee: int(),
})
