// GetNodeMetrics and GetNodeForwardingMetrics (and their upstream aliases GetLndMetrics, GetLndForwardingMetrics):
// the node's channels and forwards as the node reports them now, and its balance graphs from the sampled series.
// Sats on the wire; graph points are (unix seconds, sats) at each change of the sampled balance.
import type { InputOf, OutputOf, Clock } from '../bus/index.js'
import { asWireChannel, type LightningNode, type NodeForward } from '../node/index.js'
import { rootApp } from './bundle.js'
import { nodeBalanceSeries } from './node-watch.js'
import { readUint32 } from './tlv.js'
import type { TlvFileStore } from './tlv-file-store.js'
import { msatAsSats, unixSeconds } from '../units/index.js'

type NodeMetricsRequest = InputOf<'GetNodeMetrics'>
type NodeMetrics = OutputOf<'GetNodeMetrics'>
type NodeMetricsEntry = NodeMetrics['nodes'][number]
type GraphPoint = NodeMetricsEntry['chain_balance'][number]
type ForwardingMetrics = OutputOf<'GetNodeForwardingMetrics'>

export interface NodeReportDeps {
  node: LightningNode
  bundles: TlvFileStore
  clock: Clock
  /** Takes a fresh balance sample, so the graphs end at the present. */
  sampleNow(): Promise<void>
}


/** The window in unix ms: `from_unix` and `to_unix` are inclusive seconds; absent means unbounded (up to now). */
function windowOf(request: NodeMetricsRequest, clock: Clock): { fromMs: number; toMs: number } {
  return {
    fromMs: request.from_unix ? request.from_unix * 1000 : 0,
    toMs: request.to_unix ? (request.to_unix + 1) * 1000 : clock.now() + 1000,
  }
}

export function nodeReport({ node, bundles, clock, sampleNow }: NodeReportDeps) {
  function graph(series: string, fromMs: number, toMs: number): GraphPoint[] {
    const points: GraphPoint[] = []
    for (const sample of bundles.all(rootApp, series)) {
      if (sample.length !== 8) continue
      const x = readUint32(sample.subarray(0, 4))
      const y = readUint32(sample.subarray(4, 8))
      if (x * 1000 < fromMs || x * 1000 >= toMs) continue
      // Upstream keeps a point only where the value changed.
      if (points.length > 0 && points[points.length - 1]!.y === y) continue
      points.push({ x, y })
    }
    return points
  }

  async function forwards(fromMs: number, toMs: number): Promise<NodeForward[]> {
    return node.forwardingHistory({ fromMs, toMs })
  }

  return {
    async nodeMetrics(request: NodeMetricsRequest): Promise<NodeMetrics> {
      const { fromMs, toMs } = windowOf(request, clock)
      await sampleNow()
      const [info, channels, closed, forwarded] = await Promise.all([
        node.getInfo(),
        node.listChannels(),
        node.listClosedChannels(),
        forwards(fromMs, toMs),
      ])
      const entry: NodeMetricsEntry = {
        chain_balance: graph(nodeBalanceSeries.chain, fromMs, toMs),
        channel_balance: graph(nodeBalanceSeries.channels, fromMs, toMs),
        external_balance: graph(nodeBalanceSeries.external, fromMs, toMs),
        offline_channels: channels.filter(channel => !channel.active).length,
        online_channels: channels.filter(channel => channel.active).length,
        pending_channels: info.pendingChannelsCount,
        // The node interface reports pending channels as one count; closing ones are not told apart.
        closing_channels: 0,
        open_channels: channels.map(asWireChannel),
        closed_channels: closed.map(channel => ({
          channel_id: channel.channelId,
          capacity: channel.capacitySats,
          closed_height: channel.closedHeight,
          close_tx_timestamp: unixSeconds(channel.closedAt),
        })),
        forwarding_events: forwarded.length,
        forwarding_fees: msatAsSats(forwarded.reduce((sum, forward) => sum + forward.feeMsat, 0)),
        // Node-level invoices and addresses outside every wallet: the daemon issues none.
        root_ops: [],
      }
      return { nodes: [entry] }
    },

    async forwardingMetrics(request: NodeMetricsRequest): Promise<ForwardingMetrics> {
      const { fromMs, toMs } = windowOf(request, clock)
      const forwarded = await forwards(fromMs, toMs)
      return {
        total_fees: msatAsSats(forwarded.reduce((sum, forward) => sum + forward.feeMsat, 0)),
        events: forwarded.map(forward => ({
          chan_id_in: forward.incomingChannelId,
          chan_id_out: forward.outgoingChannelId,
          amt_in: msatAsSats(forward.amountInMsat),
          amt_out: msatAsSats(forward.amountOutMsat),
          fee: msatAsSats(forward.feeMsat),
          at_unix: unixSeconds(forward.at),
        })),
      }
    },
  }
}

