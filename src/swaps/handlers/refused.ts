// The swap operations while swaps cannot run (off, or on a node without a chain): the three lists answer empty, as
// Lightning.Pub does, and every operation that would ask a provider for something or move coins answers why not.
import { OperationError, type HandlerTable } from '../../bus/index.js'
import type { LightningNode } from '../../node/index.js'

/** The swap operations that ask a provider for something or move coins: refused while swaps cannot run. */
const swapWrites = [
  'GetTransactionSwapQuotes',
  'GetAdminTransactionSwapQuotes',
  'PayAdminTransactionSwap',
  'GetAdminInvoiceSwapQuotes',
  'PayAdminInvoiceSwap',
  'RefundAdminInvoiceSwap',
] as const

export function refusedSwapHandlers(reason: string, node: LightningNode): HandlerTable {
  const refuse = async (): Promise<never> => {
    throw new OperationError('forbidden', reason)
  }
  const handlers: HandlerTable = {
    ListTxSwaps: async () => ({ swaps: [] }),
    ListAdminTxSwaps: async () => ({ swaps: [] }),
    ListAdminInvoiceSwaps: async () => ({ swaps: [], current_block_height: (await node.getInfo()).blockHeight }),
  }
  for (const op of swapWrites) (handlers as Record<string, unknown>)[op] = refuse
  return handlers
}
