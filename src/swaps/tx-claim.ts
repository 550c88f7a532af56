// A transaction swap's claim: the transaction that moves the provider's lockup to the caller's address, signed
// cooperatively (MuSig2 key path, which hands the provider our preimage) or alone through the script path (which
// reveals it on chain). Either way the preimage is out once this runs: callers build a claim only for a lockup
// our node has seen confirmed (or one from a provider trusted with zero_conf).
import { hexToBytes } from '@noble/hashes/utils.js'
import type { Logger } from 'pino'
import type { LightningNode } from '../node/index.js'
import type { Provider } from './providers.js'
import { cooperativeClaim, keyPathRound, scriptPathClaim, type LockupOutput, type SwapKeys } from './swap-scripts.js'
import type { TxSwapRow } from './swap-store.js'

export async function buildClaim(opts: {
  swap: TxSwapRow
  keys: SwapKeys
  lockup: LockupOutput
  destination: Uint8Array
  provider: Provider
  log: Logger
}): Promise<{ id: string; hex: string }> {
  const { swap, keys, lockup, destination, provider, log } = opts
  // The claim fee reserved in the quote; anything the provider locks beyond the agreed amount goes to the address.
  const feeSats = swap.onchain_amount_sats - swap.transaction_amount_sats
  const preimage = hexToBytes(swap.preimage)
  try {
    const spend = cooperativeClaim(keys, lockup, destination, feeSats, preimage)
    const round = keyPathRound(keys, spend.sighash)
    const partial = await provider.api.reverseClaim(swap.provider_swap_id, {
      preimage: swap.preimage,
      pubNonce: round.pubNonce,
      transaction: spend.tx.hex,
      index: 0,
    })
    return spend.signed(round.complete(partial))
  } catch (err) {
    log.warn({ swap: swap.id, reason: (err as Error).message }, 'no cooperative claim; claiming through the script path')
    return scriptPathClaim(keys, lockup, destination, feeSats, preimage)
  }
}

/**
 * Sends a claim to the network through the provider, or through our own node when the provider cannot (its
 * endpoint failing must not strand a claim whose preimage is already out). Throws when neither took it.
 */
export async function broadcastClaim(opts: { swapId: string; hex: string; provider: Provider; node: LightningNode; log: Logger }): Promise<void> {
  try {
    await opts.provider.api.broadcast(opts.hex)
    return
  } catch (err) {
    opts.log.warn({ swap: opts.swapId, reason: (err as Error).message }, "the provider did not broadcast a swap claim; publishing it through our node")
  }
  await opts.node.publishTransaction(opts.hex)
}
