// BOLT11 encoding, signing and decoding for the embedded node, through the `bolt11` package: its encode + sign
// take our regtest/signet network objects, the node key and a timestamp we choose (from the injected clock), and
// its decode checks the checksum and recovers the payee key from the signature, which is what paying needs.
//
// `bolt11` pulls in bitcoinjs-lib and lodash, some 230 CommonJS files; the build bundles them into one
// (src/vendor/bolt11.ts), which loads in about half the CPU time; the LND backend never loads it.
import type { PaymentRequestObject } from 'bolt11'
import { OperationError } from '../../bus/index.js'
import * as bolt11 from '../../vendor/bolt11.js'
import type { DecodedInvoice } from '../lightning-node.js'
import { refuseNonInvoice } from '../invoice-text.js'
import type { NetworkParams } from './network-params.js'

// BOLT11 defaults when an invoice omits the field.
const bolt11DefaultExpirySeconds = 3600
const bolt11DefaultMinFinalCltvExpiry = 18
/** LND's default final CLTV delta (lncfg.DefaultFinalCltvRejectDelta + margin) for invoices it issues. */
const minFinalCltvExpiry = 80

export interface InvoiceFields {
  params: NetworkParams
  secretKey: Uint8Array
  paymentHash: string
  paymentSecret: string
  amountMsat?: number
  description?: string
  descriptionHash?: string
  timestampSec: number
  expirySeconds: number
}

/** A signed payment request. */
export function encodeInvoice(fields: InvoiceFields): string {
  const tags: PaymentRequestObject['tags'] = [
    { tagName: 'payment_hash', data: fields.paymentHash },
    { tagName: 'payment_secret', data: fields.paymentSecret },
    fields.descriptionHash === undefined
      ? { tagName: 'description', data: fields.description ?? '' }
      : { tagName: 'purpose_commit_hash', data: fields.descriptionHash },
    { tagName: 'expire_time', data: fields.expirySeconds },
    { tagName: 'min_final_cltv_expiry', data: minFinalCltvExpiry },
    {
      tagName: 'feature_bits',
      // What LND advertises on its invoices: TLV onion and payment secret required, multi-part supported.
      data: {
        word_length: 4,
        var_onion_optin: { required: true, supported: true },
        payment_secret: { required: true, supported: true },
        basic_mpp: { required: false, supported: true },
      },
    },
  ]
  const unsigned = bolt11.encode(
    {
      network: fields.params.invoice,
      timestamp: fields.timestampSec,
      ...(fields.amountMsat ? { millisatoshis: String(fields.amountMsat) } : {}),
      tags,
    },
    false,
  )
  const signed = bolt11.sign(unsigned, Buffer.from(fields.secretKey))
  if (!signed.paymentRequest) throw new Error('bolt11 signing produced no payment request')
  return signed.paymentRequest
}

/** Decodes and verifies an invoice for this network; invalid_input otherwise. */
export function decodeInvoice(paymentRequest: string, params: NetworkParams): DecodedInvoice {
  refuseNonInvoice(paymentRequest, params.name)
  const request = paymentRequest.trim().toLowerCase()
  const coin = invoiceCoin(request)
  if (coin === undefined) throw new OperationError('invalid_input', 'invalid payment request')
  if (coin !== params.invoice.bech32) {
    // LND's wording (lnrpc DecodePayReq / SendPaymentV2).
    throw new OperationError('invalid_input', `invoice not for current active network '${params.name}'`)
  }
  let decoded: ReturnType<typeof bolt11.decode>
  try {
    decoded = bolt11.decode(request, params.invoice)
  } catch {
    throw new OperationError('invalid_input', 'invalid payment request')
  }
  const tags = decoded.tagsObject
  if (!tags.payment_hash || !decoded.payeeNodeKey || decoded.timestamp === undefined) {
    throw new OperationError('invalid_input', 'invalid payment request: no payment hash')
  }
  const amountMsat = decoded.millisatoshis ? Number(decoded.millisatoshis) : undefined
  if (amountMsat !== undefined && !Number.isSafeInteger(amountMsat)) {
    throw new OperationError('invalid_input', 'invalid payment request: amount out of range')
  }
  const createdAt = decoded.timestamp * 1000
  return {
    paymentRequest: request,
    paymentHash: tags.payment_hash,
    payeePubkey: decoded.payeeNodeKey,
    ...(amountMsat ? { amountMsat } : {}),
    ...(tags.description !== undefined ? { description: tags.description } : {}),
    ...(tags.purpose_commit_hash !== undefined ? { descriptionHash: tags.purpose_commit_hash } : {}),
    createdAt,
    expiresAt: createdAt + (tags.expire_time ?? bolt11DefaultExpirySeconds) * 1000,
    minFinalCltvExpiry: tags.min_final_cltv_expiry ?? bolt11DefaultMinFinalCltvExpiry,
    ...(tags.payment_secret ? { paymentAddr: tags.payment_secret } : {}),
  }
}

/** The coin part of the human-readable prefix (`bcrt` in `lnbcrt2500n1…`), or undefined if there is none. */
function invoiceCoin(request: string): string | undefined {
  const separator = request.lastIndexOf('1')
  if (separator < 0) return undefined
  return /^ln([a-z]+?)(\d+[munp]?)?$/.exec(request.slice(0, separator))?.[1]
}
