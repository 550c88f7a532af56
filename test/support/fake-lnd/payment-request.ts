// Reading a BOLT11 request the way LND's zpay32 does for DecodePayReq and SendPaymentV2: checksum and signature
// verified, the network checked against the node's, LND's words for each refusal.
import bolt11 from 'bolt11'
import type { Bolt11Network } from './invoice-book.js'
import { lndSays } from './rpc-error.js'

// BOLT11 defaults when an invoice omits the field.
const defaultExpirySec = 3600
const defaultMinFinalCltv = 18

export interface ReadRequest {
  request: string
  paymentHash: string
  destination: string
  /** 0 for an open-amount invoice. */
  amountMsat: number
  timestampSec: number
  expirySec: number
  description: string
  descriptionHash: string
  cltvExpiry: number
  paymentAddr: Buffer
}

/** LND names networks in its errors as btcd does ("regtest", "testnet3", "mainnet", "signet"). */
export function readPaymentRequest(payReq: string, network: Bolt11Network, networkName: string): ReadRequest {
  const request = payReq.trim().toLowerCase()
  const separator = request.lastIndexOf('1')
  const coin = separator < 0 ? undefined : /^ln([a-z]+?)(\d+[munp]?)?$/.exec(request.slice(0, separator))?.[1]
  if (coin === undefined) throw lndSays('invalid bech32 string: no human-readable part')
  if (coin !== network.bech32) throw lndSays(`invoice not for current active network '${networkName}'`)
  let decoded: ReturnType<typeof bolt11.decode>
  try {
    decoded = bolt11.decode(request, network)
  } catch (err) {
    throw lndSays(`invalid payment request: ${err instanceof Error ? err.message : String(err)}`)
  }
  const tags = decoded.tagsObject
  if (!tags.payment_hash || !decoded.payeeNodeKey) throw lndSays('invoice missing payment hash')
  return {
    request,
    paymentHash: tags.payment_hash,
    destination: decoded.payeeNodeKey,
    amountMsat: decoded.millisatoshis ? Number(decoded.millisatoshis) : 0,
    timestampSec: decoded.timestamp ?? 0,
    expirySec: tags.expire_time ?? defaultExpirySec,
    description: tags.description ?? '',
    descriptionHash: tags.purpose_commit_hash ?? '',
    cltvExpiry: tags.min_final_cltv_expiry ?? defaultMinFinalCltv,
    paymentAddr: Buffer.from(tags.payment_secret ?? '', 'hex'),
  }
}
