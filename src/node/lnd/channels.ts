// LND's peers, channels, forwarding policies and forwarding history.
import {
  addPeer,
  closeChannel,
  getChainTransactions,
  getChannel,
  getChannels,
  getClosedChannels,
  getForwards,
  getNode,
  getPeers,
  updateRoutingFees,
  type AuthenticatedLnd,
} from 'lightning'
import { OperationError } from '../../bus/index.js'
import type {
  AddPeerRequest,
  CloseChannelRequest,
  ClosedChannel,
  ForwardingHistoryRequest,
  NodeChannel,
  NodeForward,
  NodePeer,
  OpenChannelRequest,
  OpenedChannel,
  UpdateChannelPolicyRequest,
  Timers,
} from '../lightning-node.js'
import { describeLndFailure, lndError, oneLine } from './lnd-errors.js'

/**
 * ConnectPeer's own timeout, and how long the peer may take to appear in the list after: the library's default
 * retries for up to a minute, too long for an operator call; 15 s was too short for a real LND 0.21 on two busy
 * cores (a .ci/run with three regtest networks up saw the handshake take longer).
 */
const connectTimeoutMs = 30_000
/** OpenChannel's default when no fee rate is given (the library's choice): confirm within 6 blocks. */
const openTargetConfirmations = 6
const forwardsPageSize = 1000

/** The `lightning` package prints short channel ids as `block x tx x output`; LND's RPCs print the uint64. */
export function channelIdNumber(standard: string): string {
  const [block, tx, output] = standard.split('x').map(part => BigInt(part))
  return ((block << 40n) | (tx << 16n) | output).toString()
}

export interface LndChannelsDeps {
  lnd: AuthenticatedLnd
  /** Our node's key: LND answers self-connections as if they worked, and we pick our side of each policy. */
  ownPubkey: string
  timers: Timers
}

/** How often the peer list is read while a connection LND initiated completes its handshake. */
const peerPollMs = 100

export function lndChannels({ lnd, ownPubkey, timers }: LndChannelsDeps) {
  const pause = (ms: number) => new Promise<void>(resolve => timers.after(ms, resolve))
  const isPeer = async (pubkey: string) => (await getPeers({ lnd })).peers.some(peer => peer.public_key === pubkey)
  return {
    async addPeer(request: AddPeerRequest): Promise<void> {
      if (request.pubkey.toLowerCase() === ownPubkey) {
        throw new OperationError('invalid_input', 'cannot make connection to self')
      }
      const rules = [{ when: /ExpectedPublicKeyOfPeerToAdd/, code: 'invalid_input' as const, message: 'pubkey is not a node public key' }]
      try {
        await addPeer({
          lnd,
          public_key: request.pubkey,
          socket: `${request.host}:${request.port}`,
          retry_count: 1,
          timeout: connectTimeoutMs,
        })
        return
      } catch (err) {
        // A real LND (0.21 measured) answers ConnectPeer "connection to … initiated" before the handshake is done,
        // and the library, reading the peer list at once, reports that it failed. The handshake goes on: the peer
        // is there when it appears in the list within the connect timeout.
        if (!/FailedToSuccessfullyConnectToRemotePeer/.test(describeLndFailure(err).name)) throw lndError('connect to the peer', err, rules)
      }
      for (let waited = 0; waited < connectTimeoutMs; waited += peerPollMs) {
        await pause(peerPollMs)
        try {
          if (await isPeer(request.pubkey)) return
        } catch (err) {
          throw lndError('list its peers', err)
        }
      }
      throw new OperationError('upstream_failed', `LND could not connect to the peer within ${connectTimeoutMs / 1000} s`)
    },

    async listPeers(): Promise<NodePeer[]> {
      try {
        const { peers } = await getPeers({ lnd })
        return peers.map(peer => ({
          pubkey: peer.public_key,
          address: peer.socket,
          inbound: peer.is_inbound,
          // LND says when a peer last reconnected, not when it first connected; 0 when it never flapped.
          connectedAt: peer.last_reconnection ? Date.parse(peer.last_reconnection) : 0,
        }))
      } catch (err) {
        throw lndError('list its peers', err)
      }
    },

    async nodeAliases(pubkeys: readonly string[]): Promise<Record<string, string>> {
      const aliases: Record<string, string> = {}
      await Promise.all(
        [...new Set(pubkeys)].map(async pubkey => {
          try {
            const { alias } = await getNode({ lnd, public_key: pubkey, is_omitting_channels: true })
            if (alias) aliases[pubkey] = alias
          } catch (err) {
            // A node whose announcement LND has not seen (an unannounced peer, a channel younger than six blocks).
            if (describeLndFailure(err).name === 'NodeIsUnknown') return
            throw lndError('read a node from its graph', err)
          }
        }),
      )
      return aliases
    },

    async listChannels(): Promise<NodeChannel[]> {
      try {
        const { channels } = await getChannels({ lnd })
        return await Promise.all(
          channels.map(async channel => {
            // ListChannels has no forwarding policy; GetChanInfo has both sides' from LND's graph.
            const edge = await getChannel({ lnd, id: channel.id })
            const ours = edge.policies.find(policy => policy.public_key === ownPubkey)
            const lifetimeMs = (channel.time_online ?? 0) + (channel.time_offline ?? 0)
            return {
              channelId: channelIdNumber(channel.id),
              channelPoint: `${channel.transaction_id}:${channel.transaction_vout}`,
              peerPubkey: channel.partner_public_key,
              capacitySats: channel.capacity,
              localBalanceMsat: channel.local_balance * 1000,
              remoteBalanceMsat: channel.remote_balance * 1000,
              active: channel.is_active,
              private: channel.is_private,
              lifetimeSeconds: Math.floor(lifetimeMs / 1000),
              // The channel's memo; the library returns it, its type declarations omit it.
              label: (channel as { description?: string }).description ?? '',
              policy: {
                baseFeeMsat: Number(ours?.base_fee_mtokens ?? 0),
                feeRatePpm: ours?.fee_rate ?? 0,
                minHtlcMsat: Number(ours?.min_htlc_mtokens ?? 0),
                maxHtlcMsat: Number(ours?.max_htlc_mtokens ?? 0),
                timeLockDelta: ours?.cltv_delta ?? 0,
              },
              ...(channel.local_csv ? { forceCloseDelayBlocks: channel.local_csv } : {}),
            }
          }),
        )
      } catch (err) {
        throw lndError('list its channels', err)
      }
    },

    async listClosedChannels(): Promise<ClosedChannel[]> {
      try {
        const [{ channels }, { transactions }] = await Promise.all([
          getClosedChannels({ lnd }),
          getChainTransactions({ lnd }),
        ])
        const seenAt = new Map(transactions.map(tx => [tx.id, Date.parse(tx.created_at)]))
        return channels.map(channel => ({
          channelId: channel.id ? channelIdNumber(channel.id) : '0',
          channelPoint: `${channel.transaction_id}:${channel.transaction_vout}`,
          capacitySats: channel.capacity,
          closingTxid: channel.close_transaction_id ?? '',
          closedHeight: channel.close_confirm_height ?? 0,
          // LND keeps no close time; the closing transaction's time in its wallet is the nearest (0: not ours).
          closedAt: seenAt.get(channel.close_transaction_id ?? '') ?? 0,
        }))
      } catch (err) {
        throw lndError('list its closed channels', err)
      }
    },

    async openChannel(request: OpenChannelRequest): Promise<OpenedChannel> {
      if (!Number.isSafeInteger(request.localFundingSats) || request.localFundingSats <= 0) {
        throw new OperationError('invalid_input', 'localFundingSats must be a positive integer')
      }
      return openChannelStream(lnd, request)
    },

    async closeChannel(request: CloseChannelRequest): Promise<{ closingTxid: string }> {
      try {
        const outpoint = { lnd, transaction_id: request.fundingTxid, transaction_vout: request.outputIndex }
        const closed = request.force
          ? await closeChannel({ ...outpoint, is_force_close: true })
          : await closeChannel({ ...outpoint, ...(request.satPerVbyte ? { tokens_per_vbyte: request.satPerVbyte } : {}) })
        return { closingTxid: closed.transaction_id }
      } catch (err) {
        throw lndError('close the channel', err, [
          { when: /channel not found|unable to find|not found/i, code: 'not_found', message: 'channel not found' },
        ])
      }
    },

    async updateChannelPolicy({ scope, policy }: UpdateChannelPolicyRequest): Promise<void> {
      const fees = {
        lnd,
        base_fee_mtokens: String(policy.baseFeeMsat),
        fee_rate: policy.feeRatePpm,
        cltv_delta: policy.timeLockDelta,
        min_htlc_mtokens: String(policy.minHtlcMsat),
        max_htlc_mtokens: String(policy.maxHtlcMsat),
      }
      let failures: { failure?: string; is_unknown_channel: boolean }[] | undefined
      try {
        if (scope.kind === 'channel') {
          const [txid, output] = scope.channelPoint.split(':')
          ;({ failures } = await updateRoutingFees({ ...fees, transaction_id: txid, transaction_vout: Number(output) }))
        } else {
          ;({ failures } = await updateRoutingFees(fees))
        }
      } catch (err) {
        throw lndError('update the channel policy', err)
      }
      failures ??= []
      if (failures.some(f => f.is_unknown_channel)) throw new OperationError('not_found', 'channel not found')
      if (failures.length > 0) {
        throw new OperationError('invalid_input', oneLine(failures.map(f => f.failure ?? 'refused').join('; ')))
      }
    },

    async forwardingHistory({ fromMs, toMs }: ForwardingHistoryRequest): Promise<NodeForward[]> {
      const forwards: NodeForward[] = []
      try {
        // LND's window is whole seconds; widen it, then cut it to the exact milliseconds asked for.
        let page = await getForwards({
          lnd,
          after: new Date(Math.floor(fromMs / 1000) * 1000).toISOString(),
          before: new Date(Math.ceil(toMs / 1000) * 1000).toISOString(),
          limit: forwardsPageSize,
        })
        for (;;) {
          for (const forward of page.forwards) {
            const at = Date.parse(forward.created_at)
            if (at < fromMs || at >= toMs) continue
            const amountOutMsat = Number(forward.mtokens)
            const feeMsat = Number(forward.fee_mtokens)
            forwards.push({
              at,
              incomingChannelId: channelIdNumber(forward.incoming_channel),
              outgoingChannelId: channelIdNumber(forward.outgoing_channel),
              amountInMsat: amountOutMsat + feeMsat,
              amountOutMsat,
              feeMsat,
            })
          }
          if (!page.next || page.forwards.length === 0) break
          page = await getForwards({ lnd, token: page.next })
        }
      } catch (err) {
        throw lndError('list its forwards', err)
      }
      return forwards.sort((a, b) => a.at - b.at)
    },
  }
}

/** LND's OpenChannel stream status updates, as the `lightning` package's gRPC client delivers them. */
interface OpenStatusUpdate {
  update?: string
  pending_chan_id?: Buffer
  chan_pending?: { txid: Buffer; output_index: number }
}

/**
 * OpenChannel through the package's gRPC client rather than its openChannel helper: the helper drops the pending
 * channel id, which upstream's OpenChannel answers with. The request mirrors the helper's.
 */
function openChannelStream(lnd: AuthenticatedLnd, request: OpenChannelRequest): Promise<OpenedChannel> {
  return new Promise((resolve, reject) => {
    let settled = false
    const call = lnd.default.openChannel({
      node_pubkey: Buffer.from(request.peerPubkey, 'hex'),
      local_funding_amount: request.localFundingSats,
      push_sat: request.pushSats ?? 0,
      private: request.private ?? false,
      min_confs: 1,
      spend_unconfirmed: false,
      ...(request.satPerVbyte ? { sat_per_vbyte: request.satPerVbyte } : { target_conf: openTargetConfirmations }),
      ...(request.closeAddress ? { close_address: request.closeAddress } : {}),
    })
    const finish = (fn: () => void) => {
      if (settled) return
      settled = true
      call.removeAllListeners()
      // The channel confirms on its own; we need only the pending announcement.
      call.on('error', () => {})
      call.cancel()
      fn()
    }
    call.on('data', (update: OpenStatusUpdate) => {
      if (update.update !== 'chan_pending' || !update.chan_pending) return
      const pending = update.chan_pending
      finish(() =>
        resolve({
          pendingChannelId: Buffer.from(update.pending_chan_id ?? []).toString('hex'),
          // Funding txids travel in internal byte order.
          fundingTxid: Buffer.from(pending.txid).reverse().toString('hex'),
          outputIndex: pending.output_index,
        }),
      )
    })
    call.on('error', (err: unknown) =>
      finish(() =>
        reject(
          lndError('open the channel', err, [
            {
              when: /is not online|not connected/,
              code: 'invalid_input',
              message: `peer ${request.peerPubkey} is not connected: add it as a peer first`,
            },
            { when: /not enough witness outputs|insufficient funds/, code: 'insufficient_balance' },
            { when: /too small|too large|exceeds|below|push|reserve/i, code: 'invalid_input' },
          ]),
        ),
      ),
    )
    call.on('end', () => finish(() => reject(new OperationError('upstream_failed', 'LND ended OpenChannel before the channel was pending'))))
  })
}
