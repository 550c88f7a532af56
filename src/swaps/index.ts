// The swaps room (pub-protocol.md §9): transaction swaps (Lightning → on-chain) for users and the operator and
// invoice swaps (on-chain → Lightning) for the operator, through the Boltz v2 providers the operator names. Off
// by default; then, and on the embedded node (which has no real chain), every swap operation answers why not.
import type { Logger } from 'pino'
import { OperationError } from '../bus/errors.js'
import type { HandlerTable } from '../bus/handler.js'
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

const swapOperations = [
  'GetTransactionSwapQuotes',
  'ListTxSwaps',
  'GetAdminTransactionSwapQuotes',
  'PayAdminTransactionSwap',
  'ListAdminTxSwaps',
  'GetAdminInvoiceSwapQuotes',
  'ListAdminInvoiceSwaps',
  'PayAdminInvoiceSwap',
  'RefundAdminInvoiceSwap',
] as const

/** Every swap operation answering `reason`: swaps are off, or cannot run on this node. */
function refusingSwaps(reason: string): Swaps {
  const refuse = async (): Promise<never> => {
    throw new OperationError('forbidden', reason)
  }
  const handlers: HandlerTable = {}
  for (const op of swapOperations) (handlers as Record<string, unknown>)[op] = refuse
  return { handlers, addressPayer: { payAddress: refuse }, start: async () => undefined, stop: () => undefined }
}

/**
 * Swaps as configured. The Bitcoin script libraries load only when swaps run, so a daemon with swaps off (the
 * default) starts without them.
 */
export async function createSwaps(deps: SwapsDeps): Promise<Swaps> {
  if (!deps.config.enabled) return refusingSwaps(swapsDisabledReason)
  if (deps.backend !== 'lnd') {
    deps.log.warn(swapsNeedLndReason)
    return refusingSwaps(swapsNeedLndReason)
  }
  const { runningSwaps } = await import('./running-swaps.js')
  return runningSwaps(deps)
}
