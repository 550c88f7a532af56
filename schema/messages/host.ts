// Messages of the wallet host API (src/host-api/), the LNbits-compatible subset
// that host-side tools and the extensions' own clients call. Field names follow upstream LNbits exactly.
// Unlike the pub dialect, these routes validate strictly, as pydantic does:
// a field of the wrong type is a 400, and `null` is accepted only where upstream gives it a meaning.
import { bool, decimal, enumOf, int, json, map, message, text, z } from '../dsl.js'

/** Bound of an invoice's `extra`: small references the extensions' invoice-paid listeners filter on. */
const maxExtraBytes = 4096
/** Upstream `CreateInvoice.memo` bound. */
const maxMemoChars = 640

/** A payment hash: 32 bytes as lowercase or uppercase hex. */
export const paymentHashText = () => text().regex(/^[0-9a-fA-F]{64}$/, 'must be a 64-character hex payment hash')

/** Free-form JSON object stored on an invoice and handed to invoice-paid listeners; `tag` routes it. */
export const InvoiceExtra = map(json()).refine(
  extra => Buffer.byteLength(JSON.stringify(extra), 'utf8') <= maxExtraBytes,
  `must be at most ${maxExtraBytes} bytes of JSON`,
)

/**
 * A response body that is not JSON (CSV exports, pages): the output of every operation whose catalogue entry
 * `produces` a content type. Mirrors `RawBody` in src/bus/handler.ts.
 */
export const RawBody = message('RawBody', {
  contentType: text(),
  body: text(),
  /** Download name, sent as Content-Disposition. */
  filename: text().optional(),
})

export const HostWallet = message('HostWallet', {
  /** Present only when the caller used the wallet's admin key (upstream hides it from invoice keys). */
  id: text().optional(),
  name: text(),
  /** msat */
  balance: int(),
})

export const HostCreateWalletRequest = message('HostCreateWalletRequest', {
  name: text().trim().min(1).max(100),
})

/** A new wallet in the caller's account, with its keys (upstream `Wallet`, the fields we keep). */
export const HostCreatedWallet = message('HostCreatedWallet', {
  id: text(),
  /** The owning account. */
  user: text(),
  name: text(),
  adminkey: text(),
  inkey: text(),
  balance_msat: int(),
})

/**
 * Upstream `CreateInvoice`, the fields we support. `out: false` creates an invoice on the key's wallet;
 * `out: true` pays `bolt11` from it (the handler requires the admin key then: 403 `Invoice (or Admin) key
 * required.`). Upstream defaults `out` to true; we require it, so a forgotten flag never spends.
 */
export const HostCreatePaymentRequest = message('HostCreatePaymentRequest', {
  out: bool(),
  /** In `unit`; sats must be whole. Kept as a decimal string so no float holds money. */
  amount: decimal().optional(),
  /** `sat` (default) or a fiat code the rates module knows; else 400 `The provided unit is not supported`. */
  unit: text().optional(),
  memo: text().max(maxMemoChars).optional(),
  /** Seconds. */
  expiry: int().min(1).optional(),
  extra: InvoiceExtra.optional(),
  bolt11: text().min(1).optional(),
})

/** Answer to `out: false`. */
export const HostInvoiceCreated = message('HostInvoiceCreated', {
  payment_hash: text(),
  payment_request: text(),
  checking_id: text(),
})

export const HostPaymentStatus = enumOf('HostPaymentStatus', ['pending', 'success', 'failed'])

/** Answer to `out: true`. */
export const HostPaymentSent = message('HostPaymentSent', {
  payment_hash: text(),
  checking_id: text(),
  status: HostPaymentStatus,
})

export const HostCreatePaymentResponse = z.union([HostInvoiceCreated, HostPaymentSent]).meta({
  title: 'HostCreatePaymentResponse',
})

export const HostGetPaymentRequest = message('HostGetPaymentRequest', {
  payment_hash: paymentHashText(),
})

/** Upstream `Payment`, the fields we keep. Amounts are signed msat: > 0 incoming, < 0 outgoing. */
export const HostPaymentDetails = message('HostPaymentDetails', {
  checking_id: text(),
  payment_hash: text(),
  wallet_id: text(),
  amount: int(),
  /** msat; negative for outgoing, as upstream stores it. */
  fee: int(),
  bolt11: text(),
  payment_request: text(),
  status: HostPaymentStatus,
  memo: text().nullable(),
  preimage: text().nullable(),
  extra: map(json()),
  /** `extra.tag`, copied at creation. */
  tag: text().nullable(),
  /** ISO-8601 UTC. */
  time: text(),
  /** ISO-8601 UTC; null for outgoing payments. */
  expiry: text().nullable(),
})

/**
 * Upstream answers: paid `{paid: true, preimage}`; failed `{paid: false, status: "failed"}`; pending
 * `{paid: false, preimage: null}`. With the owning wallet's key also `details`, and `status` when pending.
 */
export const HostGetPaymentResponse = message('HostGetPaymentResponse', {
  paid: bool(),
  preimage: text().nullable().optional(),
  status: HostPaymentStatus.optional(),
  details: HostPaymentDetails.optional(),
})

export const HostExtensionRequest = message('HostExtensionRequest', {
  ext_id: text().min(1),
})

/** Upstream `SimpleStatus`, e.g. `{success: true, message: "Extension 'payroll' enabled."}`. */
export const SimpleStatus = message('SimpleStatus', {
  success: bool(),
  message: text(),
})
