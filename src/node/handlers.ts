// The node room's operations, answered from the configured LightningNode: the operator's node administration
// (info, seed, assets, peers, channels, on-chain bumps) and the node-only invoice operations.
import type { HandlerTable } from '../bus/index.js'
import type { LightningNode } from './lightning-node.js'
import { chainHandlers } from './handlers/chain.js'
import { channelHandlers } from './handlers/channels.js'
import { infoHandlers } from './handlers/info.js'
import { invoiceHandlers } from './handlers/invoices.js'

export interface NodeHandlerDeps {
  node: LightningNode
  /** Sum of every wallet's balance (the users' liabilities), in msat. */
  usersBalanceMsat(): number
}

export function nodeHandlers(deps: NodeHandlerDeps): HandlerTable {
  return {
    ...infoHandlers(deps),
    ...chainHandlers(deps.node),
    ...channelHandlers(deps.node),
    ...invoiceHandlers(deps.node),
  }
}
