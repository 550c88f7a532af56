// The swaps room (pub-protocol.md §9): transaction swaps (Lightning → on-chain) for users and the operator and
// invoice swaps (on-chain → Lightning) for the operator, through the Boltz v2 providers the operator names. Off
// by default; then, and on the embedded node (which has no real chain), the three lists answer empty (as
// Lightning.Pub does: a wallet shows "no swaps", not an error) and every other swap operation answers why not.
import type { Logger } from 'pino'
import { OperationError, type HandlerTable } from '../bus/index.js'
import type { Config } from '../config/index.js'
import type { LightningNode, Timers } from '../node/index.js'
import type { Db } from '../store/index.js'
import type { AddressSwapPayer } from '../wallet/index.js'
import type { SwapWallet } from './providers.js'

export type { SwapWallet } from './providers.js'

export const swapsDisabledReason =
  'swaps are disabled on this server; the operator enables them with [swaps] enabled = true and at least one provider in [swaps] providers'
export const swapsNeedLndReason =
  'swaps need an LND node ([node] backend = "lnd"): the embedded node has no real chain to lock or claim coins on'

export interface SwapsDeps {
  db: Db
  config: Config['swaps']
  backend: Config['node']['backend']
  network: Config['node']['network']
  node: LightningNode
  wallet: SwapWallet
  random(bytes: number): Uint8Array
  now(): number
  timers: Timers
  log: Logger
}

export interface Swaps {
  handlers: HandlerTable
  /** What PayAddress uses for outside addresses. */
  addressPayer: AddressSwapPayer
  /** Follows every swap left in progress by the last stop and starts watching the chain. */
  start(): Promise<void>
  stop(): void
}

/** The swap operations that ask a provider for something or move coins: refused while swaps cannot run. */
const swapWrites = [
  'GetTransactionSwapQuotes',
  'GetAdminTransactionSwapQuotes',
  'PayAdminTransactionSwap',
  'GetAdminInvoiceSwapQuotes',
  'PayAdminInvoiceSwap',
  'RefundAdminInvoiceSwap',
] as const

/** Swaps that cannot run (off, or on a node without a chain): lists are empty, everything else answers `reason`. */
function refusingSwaps(reason: string, node: LightningNode): Swaps {
  const refuse = async (): Promise<never> => {
    throw new OperationError('forbidden', reason)
  }
  const handlers: HandlerTable = {
    ListTxSwaps: async () => ({ swaps: [] }),
    ListAdminTxSwaps: async () => ({ swaps: [] }),
    ListAdminInvoiceSwaps: async () => ({ swaps: [], current_block_height: (await node.getInfo()).blockHeight }),
  }
  for (const op of swapWrites) (handlers as Record<string, unknown>)[op] = refuse
  return { handlers, addressPayer: { payAddress: refuse }, start: async () => undefined, stop: () => undefined }
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
