// The Bitcoin side of a swap, on boltz-core: rebuild the provider's Taproot swap tree from what we know and check
// it against the lockup address before any money moves; find the lockup output; build claim and refund
// transactions, signed cooperatively (MuSig2 key path, the provider's key always first) or alone through the
// script path. Nothing here talks to a provider or stores anything.
import {
  Musig,
  OutputType,
  SwapTreeSerializer,
  TaprootUtils,
  compareTrees,
  constructClaimTransaction,
  constructRefundTransaction,
  detectSwap,
  reverseSwapTree,
  swapTree,
  targetFee,
  type Types,
} from 'boltz-core'
import { secp256k1 } from '@noble/curves/secp256k1.js'
import { sha256 } from '@noble/hashes/sha2.js'
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js'
import { Address, NETWORK, OutScript, SigHash, TEST_NETWORK, Transaction } from '@scure/btc-signer'
import type { BitcoinNetwork } from '../node/index.js'
import type { PartialSignature, SerializedSwapTree } from './provider-api.js'

export type ChainParams = typeof NETWORK
type SwapTree = Types.SwapTree

const regtest: ChainParams = { bech32: 'bcrt', pubKeyHash: 0x6f, scriptHash: 0xc4, wif: 0xef }
export const chainParams: Record<BitcoinNetwork, ChainParams> = {
  mainnet: NETWORK,
  testnet: TEST_NETWORK,
  signet: TEST_NETWORK,
  regtest,
}

/** A swap's signing context: our key, the provider's public key and the tree they share. */
export interface SwapKeys {
  ourKey: Uint8Array
  theirPublicKey: Uint8Array
  tree: SwapTree
}

export interface LockupOutput {
  txid: string
  vout: number
  amountSats: number
  script: Uint8Array
}

/** undefined when `address` is not an address of `network`; else its output script. */
export function outputScriptOf(address: string, network: ChainParams): Uint8Array | undefined {
  try {
    return OutScript.encode(Address(network).decode(address))
  } catch {
    return undefined
  }
}

export function publicKeyOf(secretKey: Uint8Array): Uint8Array {
  return secp256k1.getPublicKey(secretKey, true)
}

export function isValidSecretKey(key: Uint8Array): boolean {
  return secp256k1.utils.isValidSecretKey(key)
}

export const preimageHashOf = (preimage: Uint8Array): Uint8Array => sha256(preimage)

export function parseTree(serialized: SerializedSwapTree | string): SwapTree {
  return SwapTreeSerializer.deserializeSwapTree(serialized) as SwapTree
}

/** The tweaked MuSig2 key of the swap (provider first): its x-only form is the P2TR output key. */
const tweakedMusig = ({ ourKey, theirPublicKey, tree }: SwapKeys) =>
  TaprootUtils.tweakMusig(Musig.create(ourKey, [theirPublicKey, publicKeyOf(ourKey)]), tree.tree)

export function lockupAddressOf(keys: SwapKeys, network: ChainParams): string {
  return Address(network).encode({ type: 'tr', pubkey: TaprootUtils.toXOnly(tweakedMusig(keys).aggPubkey) })
}

/**
 * Checks a provider's swap against the tree we expect from our own key and hash: same leaves, and a lockup
 * address that commits to them with both keys. Returns the reason it is refused, or undefined when it is sound.
 */
export function verifySwapTree(opts: {
  kind: 'reverse' | 'submarine'
  given: SerializedSwapTree
  keys: Omit<SwapKeys, 'tree'>
  preimageHash: Uint8Array
  timeoutBlockHeight: number
  lockupAddress: string
  network: ChainParams
}): string | undefined {
  let given: SwapTree
  try {
    given = parseTree(opts.given)
  } catch {
    return 'its swap tree does not parse'
  }
  const ours = publicKeyOf(opts.keys.ourKey)
  const theirs = opts.keys.theirPublicKey
  // Reverse: we claim with the preimage, they refund after the timeout. Submarine: the other way round.
  const expected =
    opts.kind === 'reverse'
      ? reverseSwapTree(false, opts.preimageHash, ours, theirs, opts.timeoutBlockHeight)
      : swapTree(false, opts.preimageHash, theirs, ours, opts.timeoutBlockHeight)
  if (!compareTrees(expected, given)) return 'its swap tree is not the one our key, hash and timeout make'
  const address = lockupAddressOf({ ...opts.keys, tree: expected }, opts.network)
  if (address !== opts.lockupAddress) {
    return `its lockup address ${opts.lockupAddress} is not the address of the swap tree (${address})`
  }
  return undefined
}

/** The output of `txHex` that pays the swap's lockup key, or undefined. */
export function findLockupOutput(txHex: string, keys: SwapKeys): LockupOutput | undefined {
  const tx = Transaction.fromRaw(hexToBytes(txHex), { allowUnknownOutputs: true, allowUnknownInputs: true })
  const found = detectSwap(TaprootUtils.toXOnly(tweakedMusig(keys).aggPubkey), tx)
  if (!found || found.amount === undefined || found.script === undefined) return undefined
  return { txid: tx.id, vout: found.vout, amountSats: Number(found.amount), script: found.script }
}

/** A MuSig2 signing round over `message`: our public nonce now, the final signature once theirs arrives. */
export function keyPathRound(keys: SwapKeys, message: Uint8Array) {
  const withNonce = tweakedMusig(keys).message(message).generateNonce()
  const ours = publicKeyOf(keys.ourKey)
  const theirs = keys.theirPublicKey
  const session = (theirNonce: string) =>
    withNonce
      .aggregateNonces([
        [theirs, hexToBytes(theirNonce)],
        [ours, withNonce.publicNonce],
      ])
      .initializeSession()
  return {
    pubNonce: bytesToHex(withNonce.publicNonce),
    /** Our partial signature for a message the provider will complete (its submarine claim). */
    partialFor(theirNonce: string): PartialSignature {
      const signed = session(theirNonce).signPartial()
      return { pubNonce: bytesToHex(withNonce.publicNonce), partialSignature: bytesToHex(signed.ourPartialSignature) }
    },
    /** The aggregated Schnorr signature; throws when their partial signature does not verify. */
    complete(their: PartialSignature): Uint8Array {
      const s = session(their.pubNonce)
      const partial = hexToBytes(their.partialSignature)
      if (!s.verifyPartial(theirs, partial)) throw new Error("the provider's partial signature does not verify")
      return s.addPartial(theirs, partial).signPartial().aggregatePartials()
    },
  }
}

const internalKeyOf = ({ ourKey, theirPublicKey }: SwapKeys) =>
  TaprootUtils.toXOnly(Musig.create(ourKey, [theirPublicKey, publicKeyOf(ourKey)]).aggPubkey)

/** A spend of the lockup output to `destination`, paying `feeSats`, with the key-path witness still to fill. */
function cooperativeSpend(keys: SwapKeys, lockup: LockupOutput, destination: Uint8Array, feeSats: number, preimage?: Uint8Array) {
  const utxo = {
    type: OutputType.Taproot as const,
    cooperative: true,
    transactionId: lockup.txid,
    vout: lockup.vout,
    script: lockup.script,
    amount: BigInt(lockup.amountSats),
    privateKey: keys.ourKey,
    preimage: preimage ?? new Uint8Array(0),
    swapTree: keys.tree,
    internalKey: internalKeyOf(keys),
  }
  // Lock time 0: a cooperative spend needs no time lock, before or after the swap's timeout.
  const tx = constructClaimTransaction([utxo], destination, BigInt(feeSats), true, undefined, preimage === undefined)
  const sighash = tx.preimageWitnessV1(0, [lockup.script], SigHash.DEFAULT, [BigInt(lockup.amountSats)])
  return {
    tx,
    sighash,
    /** The transaction with the aggregated key-path signature. */
    signed(signature: Uint8Array): Transaction {
      tx.updateInput(0, { finalScriptWitness: [signature] }, true)
      return tx
    },
  }
}

/** Reverse swap claim, key path: the unsigned transaction and its sighash; `signed` adds the aggregate. */
export function cooperativeClaim(keys: SwapKeys, lockup: LockupOutput, destination: Uint8Array, feeSats: number, preimage: Uint8Array) {
  return cooperativeSpend(keys, lockup, destination, feeSats, preimage)
}

/** Reverse swap claim through the script path: preimage and our signature, no help needed. */
export function scriptPathClaim(keys: SwapKeys, lockup: LockupOutput, destination: Uint8Array, feeSats: number, preimage: Uint8Array): Transaction {
  return constructClaimTransaction(
    [
      {
        type: OutputType.Taproot,
        transactionId: lockup.txid,
        vout: lockup.vout,
        script: lockup.script,
        amount: BigInt(lockup.amountSats),
        privateKey: keys.ourKey,
        preimage,
        swapTree: keys.tree,
        internalKey: internalKeyOf(keys),
      },
    ],
    destination,
    BigInt(feeSats),
  )
}

/** Submarine refund, key path: fee from `satPerVbyte` and the real size of the transaction. */
export function cooperativeRefund(keys: SwapKeys, lockup: LockupOutput, destination: Uint8Array, satPerVbyte: number) {
  let spend = cooperativeSpend(keys, lockup, destination, 0)
  targetFee(satPerVbyte, fee => (spend = cooperativeSpend(keys, lockup, destination, Number(fee))).tx)
  return spend
}

/** Submarine refund through the script path, valid once the chain reaches the timeout height. */
export function scriptPathRefund(
  keys: SwapKeys,
  lockup: LockupOutput,
  destination: Uint8Array,
  timeoutBlockHeight: number,
  satPerVbyte: number,
): Transaction {
  const utxo = {
    type: OutputType.Taproot as const,
    transactionId: lockup.txid,
    vout: lockup.vout,
    script: lockup.script,
    amount: BigInt(lockup.amountSats),
    privateKey: keys.ourKey,
    swapTree: keys.tree,
    internalKey: internalKeyOf(keys),
  }
  return targetFee(satPerVbyte, fee => constructRefundTransaction([utxo], destination, timeoutBlockHeight, fee))
}
