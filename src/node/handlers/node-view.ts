// The console's node page: OperatorGetNode (what the node is and holds, with its liquidity), OperatorListPeers and
// OperatorListChannels (each peer named by its alias where the node's graph has one) and OperatorNewNodeAddress (an
// address of the node's own wallet, for funding channels).
import type { HandlerTable } from '../../bus/index.js'
import type { LightningNode } from '../lightning-node.js'
import { msatAsSats, unixSeconds } from '../../units/index.js'

export function nodeViewHandlers(node: LightningNode): HandlerTable {
  /** Each key's alias from the node's graph, '' where it has none. */
  const aliasesOf = async (pubkeys: string[]) => {
    const aliases = await node.nodeAliases(pubkeys)
    return (pubkey: string) => aliases[pubkey] ?? ''
  }
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

    OperatorListPeers: async () => {
      const peers = await node.listPeers()
      const alias = await aliasesOf(peers.map(peer => peer.pubkey))
      return {
        peers: peers.map(peer => ({
          pubkey: peer.pubkey,
          alias: alias(peer.pubkey),
          address: peer.address,
          inbound: peer.inbound,
          connected_at: unixSeconds(peer.connectedAt),
        })),
      }
    },

    OperatorListChannels: async () => {
      const channels = await node.listChannels()
      const alias = await aliasesOf(channels.map(channel => channel.peerPubkey))
      return {
        channels: channels.map(channel => ({
          channel_id: channel.channelId,
          channel_point: channel.channelPoint,
          peer_pubkey: channel.peerPubkey,
          peer_alias: alias(channel.peerPubkey),
          capacity_sats: channel.capacitySats,
          local_balance_sats: msatAsSats(channel.localBalanceMsat),
          remote_balance_sats: msatAsSats(channel.remoteBalanceMsat),
          active: channel.active,
          private: channel.private,
          label: channel.label,
          force_close_delay_blocks: channel.forceCloseDelayBlocks ?? 0,
        })),
      }
    },

    // P2WPKH: what LND's own funding and closes use, and what every wallet can pay.
    OperatorNewNodeAddress: async () => ({ address: await node.newAddress('WITNESS_PUBKEY_HASH') }),
  }
}
