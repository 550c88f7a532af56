// The operator's node operations, answered from the configured LightningNode.
import type { HandlerTable } from '../bus/handler.js'
import type { LightningNode } from './lightning-node.js'

export interface NodeHandlerDeps {
  node: LightningNode
  /** Sum of every wallet's balance (the users' liabilities), in msat. */
  usersBalanceMsat(): number
}

export function nodeHandlers(_deps: NodeHandlerDeps): HandlerTable {
  return {}
}
