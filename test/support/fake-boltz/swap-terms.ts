// The fake provider's terms and records: its fees and limits, the switches a test flips to make it misbehave, the
// swaps it keeps, and one MuSig2 signing round as the provider does it.
import { Musig, TaprootUtils, type Types } from 'boltz-core'
import { secp256k1 } from '@noble/curves/secp256k1.js'
import type { Transaction } from '@scure/btc-signer'

export const fees = {
  reverse: { percentage: 0.5, lockup: 300, claim: 200 },
  submarine: { percentage: 0.1, miner: 400 },
}
export const limits = { minimal: 1_000, maximal: 10_000_000 }

export interface Behaviour {
  /** Answer a lockup address that is not the swap tree's (its own key's). */
  lieAboutAddress: boolean
  /** Reverse: lock less than agreed in the answer; submarine: ask more than the fees allow. */
  lieAboutAmount: boolean
  /** Reverse: lock up as soon as the HTLC arrives (else the test calls lockup()). */
  autoLockup: boolean
  /** Submarine: pay the invoice as soon as the lockup is seen (else the test calls payInvoice()). */
  autoPay: boolean
  /** Reverse: fail the HTLC instead of locking; submarine: never pay the invoice (invoice.failedToPay). */
  failSwaps: boolean
  /** Refuse every cooperative signature (claims and refunds). */
  refuseCooperation: boolean
  /**
   * Reverse: say `transaction.confirmed` at once for a lockup it never broadcasts (one it means to double-spend):
   * the node never sees it, in the mempool or in a block.
   */
  lieAboutConfirmation: boolean
  /** POST /v2/chain/BTC/transaction answers 500 (a provider whose node is down). */
  failBroadcasts: boolean
  /** Submarine: this many requests for the claim's details (GET .../claim) answer 500 before one is answered. */
  failClaimRequests: number
}

interface SwapBase {
  id: string
  status: string
  key: Uint8Array
  tree: Types.SwapTree
  address: string
  script: Uint8Array
  outputKey: Uint8Array
  internalKey: Uint8Array
  preimageHash: Uint8Array
  timeoutBlockHeight: number
  lockup?: { txid: string; hex: string; vout: number; amountSats: number }
  failureReason?: string
}

export interface FakeReverseSwap extends SwapBase {
  kind: 'reverse'
  clientKey: Uint8Array
  onchainAmount: number
  invoice: string
  preimage?: string
}

export interface FakeSubmarineSwap extends SwapBase {
  kind: 'submarine'
  clientKey: Uint8Array
  invoice: string
  invoiceAmountSats: number
  expectedAmount: number
  /** The claim the fake asked us to co-sign: its transaction and its half of the signing round. */
  claim?: { tx: Transaction; sighash: Uint8Array; round: ReturnType<typeof signingRound> }
  claimedCooperatively?: boolean
  /** Learnt by paying the invoice. */
  preimage?: string
}

export type FakeSwap = FakeReverseSwap | FakeSubmarineSwap

export class BadRequest extends Error {}

/** One MuSig2 round of the fake (its key first), as the provider does it. */
export function signingRound(key: Uint8Array, clientKey: Uint8Array, tree: Types.SwapTree, message: Uint8Array) {
  const keys = [secp256k1.getPublicKey(key, true), clientKey]
  const withNonce = TaprootUtils.tweakMusig(Musig.create(key, keys), tree.tree).message(message).generateNonce()
  return {
    pubNonce: withNonce.publicNonce,
    session: (clientNonce: Uint8Array) =>
      withNonce
        .aggregateNonces([
          [keys[0]!, withNonce.publicNonce],
          [clientKey, clientNonce],
        ])
        .initializeSession(),
  }
}
