// The console's node page: OperatorGetNode (what the node is and holds, with its liquidity), OperatorListPeers and
// OperatorNewNodeAddress (an address of the node's own wallet, for funding channels).
import type { HandlerTable } from '../../bus/index.js'
import type { LightningNode } from '../lightning-node.js'
import { msatAsSats, unixSeconds } from '../../units/index.js'

export function nodeViewHandlers(node: LightningNode): HandlerTable {
  return {
    OperatorGetNode: async () => {
      const [info, balances] = await Promise.all([node.getInfo(), node.getBalances()])
      return {
        pubkey: info.pubkey,
        alias: info.alias,
        network: info.network,
        version: info.version,
        block_height: info.blockHeight,
        synced_to_chain: info.syncedToChain,
        synced_to_graph: info.syncedToGraph,
        uris: info.uris,
        active_channels: info.activeChannelsCount,
        pending_channels: info.pendingChannelsCount,
        peers: info.peersCount,
        chain_balance_sats: balances.chainBalanceSats,
        unconfirmed_chain_balance_sats: balances.unconfirmedChainBalanceSats,
        outbound_sats: msatAsSats(balances.channelsLocalMsat),
        inbound_sats: msatAsSats(balances.channelsRemoteMsat),
      }
    },

    OperatorListPeers: async () => ({
      peers: (await node.listPeers()).map(peer => ({
        pubkey: peer.pubkey,
        address: peer.address,
        inbound: peer.inbound,
        connected_at: unixSeconds(peer.connectedAt),
      })),
    }),

    // P2WPKH: what LND's own funding and closes use, and what every wallet can pay.
    OperatorNewNodeAddress: async () => ({ address: await node.newAddress('WITNESS_PUBKEY_HASH') }),
  }
}
