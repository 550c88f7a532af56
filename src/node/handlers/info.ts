// What the operator reads about the node: NodeGetInfo (alias LndGetInfo), GetSeed and GetAssetsAndLiabilities.
import type { HandlerTable } from '../../bus/index.js'
import type { LightningNode } from '../lightning-node.js'
import { requireNonNegative } from './input-rules.js'
import { msatAsSats } from '../../units/index.js'

export interface InfoHandlerDeps {
  node: LightningNode
  /** Sum of every wallet's balance (the users' liabilities), in msat. */
  usersBalanceMsat(): Promise<number>
}

export function infoHandlers({ node, usersBalanceMsat }: InfoHandlerDeps): HandlerTable {
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

    GetAssetsAndLiabilities: async input => {
      for (const field of ['limit_invoices', 'limit_payments', 'limit_providers'] as const) {
        const limit = input[field]
        if (limit !== undefined) requireNonNegative(limit, field)
      }
      const [info, balances] = await Promise.all([node.getInfo(), node.getBalances()])
      return {
        users_balance: msatAsSats(await usersBalanceMsat()),
        lnds: [
          {
            pubkey: info.pubkey,
            tracked: {
              confirmed_balance: balances.chainBalanceSats,
              unconfirmed_balance: balances.unconfirmedChainBalanceSats,
              channels_balance: msatAsSats(balances.channelsLocalMsat),
              // The node interface does not list past invoices, payments or chain transactions yet, so the recent
              // operations (tagged USER or ROOT upstream) stay empty; the balances above are complete.
              payments: [],
              invoices: [],
              incoming_tx: [],
              outgoing_tx: [],
            },
          },
        ],
        // No liquidity provider (an upstream Pub the node leans on) is supported.
        liquidity_providers: [],
      }
    },
  }
}
