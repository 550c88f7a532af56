// The operator's peers and channels: AddPeer, OpenChannel, ListChannels, UpdateChannelPolicy, CloseChannel.
// Balances and capacities travel in sats (LND's ListChannels units); policy fees and HTLC limits in msat, as in LND.
import { OperationError, type HandlerTable, type InputOf, type OutputOf } from '../../bus/index.js'
import type { ChannelPolicy, LightningNode, NodeChannel, UpdateChannelPolicyRequest } from '../lightning-node.js'
import { msatAsSats, unixSeconds } from '../../units/index.js'
import {
  parseChannelPoint, requireNodePubkey, requireNonNegative, requirePositive, requireTxid,
} from './input-rules.js'

type WireChannel = OutputOf<'ListChannels'>['open_channels'][number]
type WirePolicy = InputOf<'UpdateChannelPolicy'>['policy']
type WirePolicyScope = InputOf<'UpdateChannelPolicy'>['update']

export function channelHandlers(node: LightningNode): HandlerTable {
  return {
    AddPeer: async input => {
      const pubkey = requireNodePubkey(input.pubkey, 'pubkey')
      const host = input.host.trim()
      if (host === '') throw new OperationError('invalid_input', 'host must not be empty')
      if (!Number.isSafeInteger(input.port) || input.port < 1 || input.port > 65535) {
        throw new OperationError('invalid_input', 'port must be between 1 and 65535')
      }
      await node.addPeer({ pubkey, host, port: input.port })
      return {}
    },

    OpenChannel: async input => {
      const peerPubkey = requireNodePubkey(input.node_pubkey, 'node_pubkey')
      requirePositive(input.local_funding_amount, 'local_funding_amount')
      requireNonNegative(input.sat_per_v_byte, 'sat_per_v_byte')
      const pushSats = input.push_sat ?? 0
      requireNonNegative(pushSats, 'push_sat')
      if (pushSats >= input.local_funding_amount) {
        throw new OperationError('invalid_input', 'push_sat must be below local_funding_amount')
      }
      const closeAddress = input.close_address?.trim()
      const opened = await node.openChannel({
        peerPubkey,
        localFundingSats: input.local_funding_amount,
        ...(pushSats > 0 ? { pushSats } : {}),
        ...(input.sat_per_v_byte > 0 ? { satPerVbyte: input.sat_per_v_byte } : {}),
        // Without one the node closes to a fresh P2WPKH address of its own wallet.
        ...(closeAddress ? { closeAddress } : {}),
      })
      return { channel_id: opened.pendingChannelId }
    },

    ListChannels: async () => ({ open_channels: (await node.listChannels()).map(asWireChannel) }),

    UpdateChannelPolicy: async input => {
      const policy = fromWirePolicy(input.policy)
      await node.updateChannelPolicy({ scope: policyScope(input.update), policy })
      return {}
    },

    CloseChannel: async input => {
      const fundingTxid = requireTxid(input.funding_txid, 'funding_txid')
      requireNonNegative(input.output_index, 'output_index')
      requireNonNegative(input.sat_per_v_byte, 'sat_per_v_byte')
      // LND refuses a fee rate on a force close: the commitment transaction was signed with its fee long ago.
      if (input.force && input.sat_per_v_byte > 0) {
        throw new OperationError('invalid_input', 'a force close uses the fee fixed in advance: leave sat_per_v_byte 0')
      }
      const closed = await node.closeChannel({
        fundingTxid,
        outputIndex: input.output_index,
        force: input.force,
        ...(input.sat_per_v_byte > 0 ? { satPerVbyte: input.sat_per_v_byte } : {}),
      })
      return { closing_txid: closed.closingTxid }
    },
  }
}

/** A channel as upstream's OpenChannel message carries it (ListChannels, and the node report of the metrics). */
export function asWireChannel(channel: NodeChannel): WireChannel {
  return {
    channel_id: channel.channelId,
    capacity: channel.capacitySats,
    active: channel.active,
    lifetime: channel.lifetimeSeconds,
    local_balance: msatAsSats(channel.localBalanceMsat),
    remote_balance: msatAsSats(channel.remoteBalanceMsat),
    label: channel.label,
    channel_point: channel.channelPoint,
    policy: {
      base_fee_msat: channel.policy.baseFeeMsat,
      fee_rate_ppm: channel.policy.feeRatePpm,
      max_htlc_msat: channel.policy.maxHtlcMsat,
      min_htlc_msat: channel.policy.minHtlcMsat,
      timelock_delta: channel.policy.timeLockDelta,
    },
    inactive_since_unix: channel.active || channel.inactiveSince === undefined ? 0 : unixSeconds(channel.inactiveSince),
  }
}

/** The `update` oneof: one channel by its channel point, or every channel. */
function policyScope(update: WirePolicyScope): UpdateChannelPolicyRequest['scope'] {
  if (update.type === 'all') return { kind: 'all' }
  const point = parseChannelPoint(update.channel_point, 'channel_point')
  return { kind: 'channel', channelPoint: `${point.fundingTxid}:${point.outputIndex}` }
}

function fromWirePolicy(policy: WirePolicy): ChannelPolicy {
  for (const [field, value] of Object.entries(policy)) requireNonNegative(value, field)
  if (policy.timelock_delta === 0) throw new OperationError('invalid_input', 'timelock_delta must be greater than 0')
  if (policy.min_htlc_msat > policy.max_htlc_msat) {
    throw new OperationError('invalid_input', 'min_htlc_msat must not exceed max_htlc_msat')
  }
  return {
    baseFeeMsat: policy.base_fee_msat,
    feeRatePpm: policy.fee_rate_ppm,
    minHtlcMsat: policy.min_htlc_msat,
    maxHtlcMsat: policy.max_htlc_msat,
    timeLockDelta: policy.timelock_delta,
  }
}
