// Invoices, payments and on-chain addresses of a user. Fields: upstream's structs.proto.
import { bool, enumOf, int, message, optional, text } from '../dsl.js'
import { CumulativeFees } from './common.js'

export const NewInvoiceRequest = message('NewInvoiceRequest', {
  amountSats: int(), // sats, must be > 0
  memo: text(),
  zap: optional(text()), // JSON (or URI-encoded JSON) of a kind-9734 zap request
  expiry: optional(int()), // seconds; capped at 3600 (default 3600)
  blind: optional(bool()), // request a blinded-path invoice from LND
})

export const NewInvoiceResponse = message('NewInvoiceResponse', {
  invoice: text(),
})

export const DecodeInvoiceRequest = message('DecodeInvoiceRequest', {
  invoice: text(),
})

export const DecodeInvoiceResponse = message('DecodeInvoiceResponse', {
  amount: int(), // sats
})

export const PayInvoiceRequest = message('PayInvoiceRequest', {
  invoice: text(),
  amount: int(), // must be 0; invoice must carry an amount
  debit_npub: optional(text()), // hex pubkey; payment counted against that debit authorization
  expected_fees: optional(CumulativeFees), // if set must equal server {serviceFeeFloor, serviceFeeBps} exactly
})

export const PayInvoiceResponse = message('PayInvoiceResponse', {
  preimage: text(), // hex; "" for internal (same-node) payments
  amount_paid: int(),
  operation_id: text(), // "OUTGOING_INVOICE-<serial>"
  service_fee: int(),
  network_fee: int(), // upstream always answers 0
  latest_balance: int(), // sats after the payment
})

export const GetPaymentStateRequest = message('GetPaymentStateRequest', {
  invoice: text(),
})

export const PaymentState = message('PaymentState', {
  paid_at_unix: int(), // 0 pending, -1 failed, >0 unix seconds
  amount: int(),
  service_fee: int(),
  network_fee: int(), // upstream always answers 0
  internal: bool(),
  operation_id: text(),
})

export const SetMockInvoiceAsPaidRequest = message('SetMockInvoiceAsPaidRequest', {
  invoice: text(),
  amount: int(),
})

export const AddressType = enumOf('AddressType', ['WITNESS_PUBKEY_HASH', 'NESTED_PUBKEY_HASH', 'TAPROOT_PUBKEY'])

export const NewAddressRequest = message('NewAddressRequest', {
  addressType: AddressType,
})

export const NewAddressResponse = message('NewAddressResponse', {
  address: text(),
})

export const PayAddressRequest = message('PayAddressRequest', {
  address: text(),
  amountSats: int(), // sats (>= 0)
  satsPerVByte: int(), // upstream ignores it
  swap_operation_id: optional(text()), // required for non-internal addresses (from GetTransactionSwapQuotes)
})

export const PayAddressResponse = message('PayAddressResponse', {
  txId: text(),
  operation_id: text(),
  service_fee: int(),
  network_fee: int(), // swap chain fee + swap fee (0 for internal)
})
