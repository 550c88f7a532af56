// Invoices and keys from outside the node under test: a second node's signed invoice, made directly with the
// `bolt11` package so that it shares nothing with the node's own encoder but the library.
import { createHash, randomBytes } from 'node:crypto'
import bolt11 from 'bolt11'
import { secp256k1 } from '@noble/curves/secp256k1.js'
import { bytesToHex } from '@noble/hashes/utils.js'
import type { BitcoinNetwork } from '../../src/node/index.js'

/** bolt11's network objects, including the two (regtest's `bcrt`, signet's `tbs`) it only knows when told. */
type Bolt11Network = { bech32: string; pubKeyHash: number; scriptHash: number; validWitnessVersions: number[] }

export const bolt11Networks: Record<BitcoinNetwork, Bolt11Network> = {
  mainnet: { bech32: 'bc', pubKeyHash: 0x00, scriptHash: 0x05, validWitnessVersions: [0, 1] },
  testnet: { bech32: 'tb', pubKeyHash: 0x6f, scriptHash: 0xc4, validWitnessVersions: [0, 1] },
  signet: { bech32: 'tbs', pubKeyHash: 0x6f, scriptHash: 0xc4, validWitnessVersions: [0, 1] },
  regtest: { bech32: 'bcrt', pubKeyHash: 0x6f, scriptHash: 0xc4, validWitnessVersions: [0, 1] },
}

export function randomNodePubkey(): string {
  return bytesToHex(secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true))
}

/** An invoice of another node (a fresh key) on `network`, created at `nowMs`. */
export function outsideInvoice(opts: {
  network: BitcoinNetwork
  nowMs: number
  amountMsat?: number
  expirySeconds?: number
  paymentHash?: string
}): { paymentRequest: string; paymentHash: string; payeePubkey: string } {
  const secretKey = secp256k1.utils.randomSecretKey()
  const paymentHash = opts.paymentHash ?? randomBytes(32).toString('hex')
  const unsigned = bolt11.encode({
    network: bolt11Networks[opts.network],
    timestamp: Math.floor(opts.nowMs / 1000),
    ...(opts.amountMsat ? { millisatoshis: String(opts.amountMsat) } : {}),
    tags: [
      { tagName: 'payment_hash', data: paymentHash },
      { tagName: 'payment_secret', data: randomBytes(32).toString('hex') },
      { tagName: 'description', data: 'coffee elsewhere' },
      { tagName: 'expire_time', data: opts.expirySeconds ?? 3600 },
    ],
  })
  const signed = bolt11.sign(unsigned, Buffer.from(secretKey))
  return {
    paymentRequest: signed.paymentRequest!,
    paymentHash,
    payeePubkey: bytesToHex(secp256k1.getPublicKey(secretKey, true)),
  }
}

/** A regtest invoice of another node for `sats`, with the preimage the test holds (to settle it at a fake LND). */
export function outsideInvoiceWithPreimage(sats: number): { preimage: string; paymentHash: string; bolt11: string } {
  const preimage = randomBytes(32).toString('hex')
  const paymentHash = createHash('sha256').update(Buffer.from(preimage, 'hex')).digest('hex')
  return { preimage, paymentHash, bolt11: outsideInvoice({ network: 'regtest', nowMs: Date.now(), amountMsat: sats * 1000, paymentHash }).paymentRequest }
}
