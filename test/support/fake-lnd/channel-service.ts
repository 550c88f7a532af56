// lnrpc.Lightning, second half: channels, their policies and balances, opening and closing, forwarding history.
import type { FakeNode } from './fake-node.js'
import type { FakeChannel, FakePolicy } from './channel-book.js'
import type { ServiceImpl } from './lightning-service.js'
import { grpcCode, lndSays, RpcError } from './rpc-error.js'

/** LND refuses a policy whose CLTV delta is below this (lncfg.MinCLTVDelta). */
const minTimeLockDelta = 18

const internalOrder = (txid: string) => Buffer.from(txid, 'hex').reverse()

/** A ChannelPoint message's txid in the byte order Bitcoin prints. */
function channelPointTxid(point: { funding_txid?: string; funding_txid_bytes?: Buffer; funding_txid_str?: string }): string {
  if (point.funding_txid === 'funding_txid_bytes' && point.funding_txid_bytes) {
    return Buffer.from(point.funding_txid_bytes).reverse().toString('hex')
  }
  return String(point.funding_txid_str ?? '')
}

function policyAsRpc(policy: FakePolicy) {
  return {
    time_lock_delta: policy.timeLockDelta,
    min_htlc: policy.minHtlcMsat,
    fee_base_msat: policy.baseFeeMsat,
    fee_rate_milli_msat: policy.feeRatePpm,
    disabled: false,
    max_htlc_msat: policy.maxHtlcMsat,
    last_update: policy.lastUpdateSec,
    custom_records: {},
    inbound_fee_base_msat: 0,
    inbound_fee_rate_milli_msat: 0,
  }
}

function constraints(channel: FakeChannel) {
  return {
    csv_delay: 144,
    chan_reserve_sat: Math.floor(channel.capacitySats / 100),
    dust_limit_sat: 354,
    max_pending_amt_msat: channel.capacitySats * 990,
    min_htlc_msat: 1,
    max_accepted_htlcs: 483,
  }
}

export function channelService(node: FakeNode): ServiceImpl {
  const { channels } = node
  const nowSec = () => Math.floor(node.now() / 1000)

  const channelAsRpc = (channel: FakeChannel) => ({
    active: true,
    remote_pubkey: channel.peer,
    channel_point: `${channel.fundingTxid}:${channel.outputIndex}`,
    chan_id: channel.chanId,
    capacity: channel.capacitySats,
    local_balance: Math.floor(channel.localMsat / 1000),
    remote_balance: Math.floor(channel.remoteMsat / 1000),
    commit_fee: 0,
    commit_weight: 772,
    fee_per_kw: 2500,
    unsettled_balance: 0,
    total_satoshis_sent: 0,
    total_satoshis_received: 0,
    num_updates: 0,
    pending_htlcs: [],
    private: channel.private,
    initiator: true,
    chan_status_flags: 'ChanStatusDefault',
    local_chan_reserve_sat: Math.floor(channel.capacitySats / 100),
    remote_chan_reserve_sat: Math.floor(channel.capacitySats / 100),
    commitment_type: 'ANCHORS',
    lifetime: nowSec() - channel.openedSec,
    uptime: nowSec() - channel.openedSec,
    close_address: channel.closeAddress,
    push_amount_sat: channel.pushSats,
    thaw_height: 0,
    local_constraints: constraints(channel),
    remote_constraints: constraints(channel),
    alias_scids: [],
    zero_conf: false,
    zero_conf_confirmed_scid: 0,
    peer_alias: '',
    memo: '',
  })

  const amount = (msat: number) => ({ sat: Math.floor(msat / 1000), msat })

  return {
    unary: {
      ListChannels: () => ({ channels: channels.open.map(channelAsRpc) }),

      ClosedChannels: () => ({
        channels: channels.closed.map(({ channel, closingTxid, closeHeight, force }) => ({
          channel_point: `${channel.fundingTxid}:${channel.outputIndex}`,
          chan_id: channel.chanId,
          chain_hash: node.blockHash,
          closing_tx_hash: closingTxid,
          remote_pubkey: channel.peer,
          capacity: channel.capacitySats,
          close_height: closeHeight,
          settled_balance: Math.floor(channel.localMsat / 1000),
          time_locked_balance: 0,
          close_type: force ? 'LOCAL_FORCE_CLOSE' : 'COOPERATIVE_CLOSE',
          open_initiator: 'INITIATOR_LOCAL',
          close_initiator: 'INITIATOR_LOCAL',
          resolutions: [],
          alias_scids: [],
          zero_conf_confirmed_scid: '0',
        })),
      }),

      ChannelBalance: () => {
        const local = channels.open.reduce((sum, c) => sum + c.localMsat, 0)
        const remote = channels.open.reduce((sum, c) => sum + c.remoteMsat, 0)
        return {
          balance: Math.floor(local / 1000),
          pending_open_balance: 0,
          local_balance: amount(local),
          remote_balance: amount(remote),
          unsettled_local_balance: amount(0),
          unsettled_remote_balance: amount(0),
          pending_open_local_balance: amount(0),
          pending_open_remote_balance: amount(0),
        }
      },

      GetChanInfo: request => {
        const [txid, output] = String(request.chan_point ?? '').split(':')
        const channel = request.chan_point ? channels.byPoint(txid, Number(output)) : channels.byChanId(String(request.chan_id))
        if (!channel) throw new RpcError(grpcCode.unknown, 'edge not found')
        // LND orders the two ends of an edge by their keys (BOLT 7 node_id_1 < node_id_2).
        const ends = [
          { pub: node.pubkey, policy: channel.policy },
          { pub: channel.peer, policy: channel.peerPolicy },
        ].sort((a, b) => (a.pub < b.pub ? -1 : 1))
        return {
          channel_id: channel.chanId,
          chan_point: `${channel.fundingTxid}:${channel.outputIndex}`,
          last_update: Math.max(channel.policy.lastUpdateSec, channel.peerPolicy.lastUpdateSec),
          node1_pub: ends[0].pub,
          node2_pub: ends[1].pub,
          capacity: channel.capacitySats,
          node1_policy: policyAsRpc(ends[0].policy),
          node2_policy: policyAsRpc(ends[1].policy),
          custom_records: {},
        }
      },

      UpdateChannelPolicy: request => {
        const delta = Number(request.time_lock_delta)
        if (delta < minTimeLockDelta) {
          throw lndSays(`time lock delta of ${delta} is too small, minimum supported is ${minTimeLockDelta}`)
        }
        const feeRatePpm = Number(request.fee_rate_ppm) || Math.round(Number(request.fee_rate) * 1_000_000)
        const targets =
          request.scope === 'global'
            ? channels.open
            : [channels.byPoint(channelPointTxid(request.chan_point ?? {}), Number(request.chan_point?.output_index))]
        const failed_updates = []
        for (const channel of targets) {
          if (!channel) {
            const point = request.chan_point ?? {}
            failed_updates.push({
              outpoint: {
                txid_bytes: internalOrder(channelPointTxid(point)),
                txid_str: channelPointTxid(point),
                output_index: Number(point.output_index),
              },
              reason: 'UPDATE_FAILURE_NOT_FOUND',
              update_error: 'not found',
            })
            continue
          }
          channels.setPolicy(channel, {
            baseFeeMsat: Number(request.base_fee_msat),
            feeRatePpm,
            timeLockDelta: delta,
            maxHtlcMsat: Number(request.max_htlc_msat) || channel.policy.maxHtlcMsat,
            minHtlcMsat: request.min_htlc_msat_specified ? Number(request.min_htlc_msat) : channel.policy.minHtlcMsat,
          })
        }
        return { failed_updates }
      },

      ForwardingHistory: request => {
        const startNs = BigInt(request.start_time) * 1_000_000_000n
        const endNs = Number(request.end_time) > 0 ? BigInt(request.end_time) * 1_000_000_000n : BigInt(node.now()) * 1_000_000n
        const offset = Number(request.index_offset)
        const max = Number(request.num_max_events) || 100
        const inWindow = channels.forwards.filter(f => f.atNs >= startNs && f.atNs < endNs)
        const page = inWindow.slice(offset, offset + max)
        return {
          forwarding_events: page.map(f => ({
            timestamp: Number(f.atNs / 1_000_000_000n),
            chan_id_in: f.chanIdIn,
            chan_id_out: f.chanIdOut,
            amt_in: Math.floor(f.amountInMsat / 1000),
            amt_out: Math.floor(f.amountOutMsat / 1000),
            fee: Math.floor(f.feeMsat / 1000),
            fee_msat: f.feeMsat,
            amt_in_msat: f.amountInMsat,
            amt_out_msat: f.amountOutMsat,
            timestamp_ns: f.atNs.toString(),
            peer_alias_in: '',
            peer_alias_out: '',
          })),
          last_offset_index: offset + page.length,
        }
      },
    },

    streams: {
      // Announces the pending channel and stays open, as LND does until the channel confirms.
      OpenChannel: call => {
        const request = call.request
        try {
          const { channel, pendingChanId } = channels.openChannel({
            peer: Buffer.from(request.node_pubkey ?? []).toString('hex'),
            localSats: Number(request.local_funding_amount),
            pushSats: Number(request.push_sat),
            satPerVbyte: Number(request.sat_per_vbyte),
            private: request.private === true,
            closeAddress: request.close_address ?? '',
          })
          call.write({
            chan_pending: { txid: internalOrder(channel.fundingTxid), output_index: channel.outputIndex },
            pending_chan_id: pendingChanId,
          })
        } catch (err) {
          const details = err instanceof RpcError ? err.details : String(err)
          call.emit('error', { code: grpcCode.unknown, details })
        }
      },

      CloseChannel: call => {
        const point = call.request.channel_point ?? {}
        try {
          const closed = channels.closeChannel(channelPointTxid(point), Number(point.output_index), call.request.force === true)
          call.write({ close_pending: { txid: internalOrder(closed.closingTxid), output_index: 0 } })
        } catch (err) {
          const details = err instanceof RpcError ? err.details : String(err)
          call.emit('error', { code: grpcCode.unknown, details })
        }
      },
    },
  }
}
