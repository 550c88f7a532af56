// What the operator reads about the node: NodeGetInfo (alias LndGetInfo) and GetSeed.
import type { HandlerTable } from '../../bus/index.js'
import type { LightningNode } from '../lightning-node.js'

export function infoHandlers(node: LightningNode): HandlerTable {
  return {
    // `nodeId` is ignored: there is one node (upstream does the same).
    NodeGetInfo: async () => {
      const info = await node.getInfo()
      return {
        alias: info.alias,
        synced_to_chain: info.syncedToChain,
        synced_to_graph: info.syncedToGraph,
        // Always false: the node's handlers do not see the wallet's outgoing gate, which does the watchdog's work here.
        watchdog_barking: false,
        // Test mode: SetMockInvoiceAsPaid and the mock balance operations credit wallets from nothing.
        mock: node.mock !== undefined,
      }
    },

    GetSeed: async () => ({ seed: await node.getSeed() }),
  }
}
