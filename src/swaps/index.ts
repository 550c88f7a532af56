// The swaps room (docs/pub-protocol.md, "Swaps"): transaction swaps (Lightning → on-chain) for users and the operator
// and invoice swaps (on-chain → Lightning) for the operator, through the Boltz v2 providers the operator names. Off by
// default; then, and on the embedded node (which has no real chain), the three lists answer empty (as Lightning.Pub
// does: a wallet shows "no swaps", not an error) and every other swap operation answers why not.
import { OperationError } from '../bus/index.js'
import type { LightningNode } from '../node/index.js'
import type { Swaps, SwapsDeps } from './running-swaps.js'
import { refusedSwapHandlers } from './handlers/refused.js'

export type { SwapWallet } from './providers.js'
export type { Swaps, SwapsDeps } from './running-swaps.js'

export const swapsDisabledReason =
  'swaps are disabled on this server; the operator enables them with [swaps] enabled = true and at least one provider in [swaps] providers'
export const swapsNeedLndReason =
  'swaps need an LND node ([node] backend = "lnd"): the embedded node has no real chain to lock or claim coins on'

/** Swaps that cannot run (off, or on a node without a chain): lists are empty, everything else answers `reason`. */
function refusingSwaps(reason: string, node: LightningNode): Swaps {
  const refuse = async (): Promise<never> => {
    throw new OperationError('forbidden', reason)
  }
  return { handlers: refusedSwapHandlers(reason, node), addressPayer: { payAddress: refuse }, start: async () => undefined, stop: () => undefined }
}

/**
 * Swaps as configured. The Bitcoin script libraries load only when swaps run, so a daemon with swaps off (the
 * default) starts without them.
 */
export async function createSwaps(deps: SwapsDeps): Promise<Swaps> {
  if (!deps.config.enabled) return refusingSwaps(swapsDisabledReason, deps.node)
  if (deps.backend !== 'lnd') {
    deps.log.warn(swapsNeedLndReason)
    return refusingSwaps(swapsNeedLndReason, deps.node)
  }
  const { runningSwaps } = await import('./running-swaps.js')
  return runningSwaps(deps)
}
