// How the fake provider judges a transaction that spends one of its swap outputs, as a Bitcoin node would: the
// key-path signature against the tweaked output key over the BIP-341 sighash (SIGHASH_DEFAULT), or a script-path
// spend whose leaf is in the swap tree, whose control block commits to it, whose signature is by the leaf's key,
// with the preimage of the swap's hash (claims) or a final lock time at the timeout (refunds).
import { TaprootUtils, type Types } from 'boltz-core'
import { schnorr } from '@noble/curves/secp256k1.js'
import { sha256 } from '@noble/hashes/sha2.js'
import { bytesToHex } from '@noble/hashes/utils.js'
import { SigHash, Transaction } from '@scure/btc-signer'

const equalBytes = (a: Uint8Array, b: Uint8Array) => bytesToHex(a) === bytesToHex(b)

export interface SwapOutputFacts {
  txid: string
  vout: number
  amountSats: number
  script: Uint8Array
  /** x-only tweaked key of the output. */
  outputKey: Uint8Array
  /** x-only untweaked MuSig2 aggregate (the internal key of the control block). */
  internalKey: Uint8Array
  tree: Types.SwapTree
  preimageHash: Uint8Array
  /** x-only keys allowed on each leaf. */
  claimKey: Uint8Array
  refundKey: Uint8Array
  timeoutBlockHeight: number
}

export type SpendVerdict =
  | { ok: true; path: 'key' | 'claim-leaf' | 'refund-leaf'; preimage?: string }
  | { ok: false; reason: string }

export function spendsOutput(tx: Transaction, out: { txid: string; vout: number }): number {
  for (let i = 0; i < tx.inputsLength; i++) {
    const input = tx.getInput(i)
    if (input.txid && bytesToHex(input.txid) === out.txid && input.index === out.vout) return i
  }
  return -1
}

export function checkSpend(tx: Transaction, index: number, out: SwapOutputFacts, height: number): SpendVerdict {
  if (tx.inputsLength !== 1) return { ok: false, reason: 'a swap spend must have exactly one input' }
  let outSum = 0n
  for (let i = 0; i < tx.outputsLength; i++) outSum += tx.getOutput(i).amount ?? 0n
  if (outSum > BigInt(out.amountSats)) return { ok: false, reason: 'bad-txns-in-belowout' }
  const witness = tx.getInput(index).finalScriptWitness ?? []
  const prevScripts = [out.script]
  const amounts = [BigInt(out.amountSats)]
  if (witness.length === 1) {
    const sig = witness[0]!
    if (sig.length !== 64) return { ok: false, reason: 'key-path signature must be 64 bytes (SIGHASH_DEFAULT)' }
    const sighash = tx.preimageWitnessV1(index, prevScripts, SigHash.DEFAULT, amounts)
    if (!schnorr.verify(sig, sighash, out.outputKey)) return { ok: false, reason: 'invalid Schnorr signature (key path)' }
    return { ok: true, path: 'key' }
  }
  const isClaim = witness.length === 4
  if (!isClaim && witness.length !== 3) return { ok: false, reason: 'unexpected witness' }
  const leafScript = witness[witness.length - 2]!
  const controlBlock = witness[witness.length - 1]!
  const leaf = isClaim ? out.tree.claimLeaf : out.tree.refundLeaf
  if (!equalBytes(leafScript, leaf.output)) return { ok: false, reason: 'the script is not the swap tree leaf it claims to be' }
  const expectedControl = TaprootUtils.createControlBlock(TaprootUtils.taprootHashTree(out.tree.tree), leaf, out.internalKey)
  if (!equalBytes(controlBlock, expectedControl)) return { ok: false, reason: 'the control block does not commit to the swap tree' }
  const sig = witness[0]!
  const sighash = tx.preimageWitnessV1(index, prevScripts, SigHash.DEFAULT, amounts, undefined, leaf.output, leaf.version)
  const key = isClaim ? out.claimKey : out.refundKey
  if (sig.length !== 64 || !schnorr.verify(sig, sighash, key)) return { ok: false, reason: 'invalid Schnorr signature (script path)' }
  if (isClaim) {
    const preimage = witness[1]!
    if (!equalBytes(sha256(preimage), out.preimageHash)) return { ok: false, reason: 'the preimage does not match the swap hash' }
    return { ok: true, path: 'claim-leaf', preimage: bytesToHex(preimage) }
  }
  if (tx.lockTime < out.timeoutBlockHeight) return { ok: false, reason: 'the refund lock time is before the timeout' }
  if (height < tx.lockTime) return { ok: false, reason: 'non-final: the lock time is in the future' }
  if (tx.getInput(index).sequence === 0xffffffff) return { ok: false, reason: 'a final sequence disables the lock time' }
  return { ok: true, path: 'refund-leaf' }
}
