// Simulated channels of the embedded node. Opening one spends from the simulated wallet and makes the channel
// active at once (there is no chain to wait for); closing pays our side back to the close address; policies and
// balances are stored so that ListChannels shows every change the operator made.
import { bytesToHex } from '@noble/hashes/utils.js'
import { type Clock, OperationError } from '../../bus/index.js'
import type { Db } from '../../store/index.js'
import type {
  ChannelPolicy,
  CloseChannelRequest,
  ClosedChannel,
  NodeChannel,
  OpenChannelRequest,
  OpenedChannel,
  UpdateChannelPolicyRequest,
} from '../lightning-node.js'
import { assertSats, blockHeightAt, defaultSatPerVbyte, txVbytes, type ChainWallet } from './chain-wallet.js'
import { assertNodePubkey, type PeerList } from './peers.js'
import { msatAsSats } from '../../units/index.js'

// LND's limits without wumbo channels (lnwallet/chanfunding, funding.MaxBtcFundingAmount).
const minChannelSats = 20_000
const maxChannelSats = 16_777_215
/** The smallest CLTV delta LND accepts in a policy. */
const minTimeLockDelta = 18
/** LND's defaults for a new channel's forwarding policy (lncfg bitcoin.basefee, feerate, timelockdelta). */
const defaultPolicy = { baseFeeMsat: 1000, feeRatePpm: 1, minHtlcMsat: 1000, timeLockDelta: 80 }

export interface ChannelRow {
  channel_id: string
  pending_channel_id: string
  funding_txid: string
  output_index: number
  peer_pubkey: string
  capacity_sats: number
  local_balance_msat: number
  remote_balance_msat: number
  private: number
  close_address: string | null
  base_fee_msat: number
  fee_rate_ppm: number
  min_htlc_msat: number
  max_htlc_msat: number
  time_lock_delta: number
  opened_at: number
  closed_at: number | null
  closing_txid: string | null
  closed_height: number | null
}

export interface ChannelBookDeps {
  db: Db
  chain: ChainWallet
  peers: PeerList
  clock: Clock
  random(bytes: number): Uint8Array
}

export type ChannelBook = ReturnType<typeof channelBook>

export function channelBook({ db, chain, peers, clock, random }: ChannelBookDeps) {
  const insert = db.prepare(`INSERT INTO node_channels (channel_id, pending_channel_id, funding_txid, output_index,
      peer_pubkey, capacity_sats, local_balance_msat, remote_balance_msat, private, close_address, base_fee_msat,
      fee_rate_ppm, min_htlc_msat, max_htlc_msat, time_lock_delta, opened_at)
    VALUES (@channelId, @pendingChannelId, @fundingTxid, 0, @peerPubkey, @capacitySats, @localMsat, @remoteMsat,
      @private, @closeAddress, @baseFeeMsat, @feeRatePpm, @minHtlcMsat, @maxHtlcMsat, @timeLockDelta, @openedAt)`)
  const open = db.prepare('SELECT * FROM node_channels WHERE closed_at IS NULL ORDER BY opened_at, channel_id')
  const closed = db.prepare('SELECT * FROM node_channels WHERE closed_at IS NOT NULL ORDER BY closed_at, channel_id')
  const openByPoint = db.prepare(`SELECT * FROM node_channels
      WHERE funding_txid = ? AND output_index = ? AND closed_at IS NULL`)
  const openById = db.prepare('SELECT * FROM node_channels WHERE channel_id = ? AND closed_at IS NULL')
  const markClosed = db.prepare(`UPDATE node_channels SET closed_at = @closedAt, closing_txid = @closingTxid,
      closed_height = @closedHeight WHERE channel_id = @channelId`)
  const setPolicy = db.prepare(`UPDATE node_channels SET base_fee_msat = @baseFeeMsat, fee_rate_ppm = @feeRatePpm,
      min_htlc_msat = @minHtlcMsat, max_htlc_msat = @maxHtlcMsat, time_lock_delta = @timeLockDelta
      WHERE channel_id = @channelId`)
  const setBalances = db.prepare(`UPDATE node_channels SET local_balance_msat = @localMsat,
      remote_balance_msat = @remoteMsat WHERE channel_id = @channelId`)

  const asChannel = (row: ChannelRow): NodeChannel => ({
    channelId: row.channel_id,
    channelPoint: `${row.funding_txid}:${row.output_index}`,
    peerPubkey: row.peer_pubkey,
    capacitySats: row.capacity_sats,
    localBalanceMsat: row.local_balance_msat,
    remoteBalanceMsat: row.remote_balance_msat,
    active: true,
    private: row.private === 1,
    lifetimeSeconds: Math.max(0, Math.floor((clock.now() - row.opened_at) / 1000)),
    label: '',
    policy: {
      baseFeeMsat: row.base_fee_msat,
      feeRatePpm: row.fee_rate_ppm,
      minHtlcMsat: row.min_htlc_msat,
      maxHtlcMsat: row.max_htlc_msat,
      timeLockDelta: row.time_lock_delta,
    },
  })

  const openRows = () => open.all() as ChannelRow[]

  return {
    list(): NodeChannel[] {
      return openRows().map(asChannel)
    },

    listClosed(): ClosedChannel[] {
      return (closed.all() as ChannelRow[]).map(row => ({
        channelId: row.channel_id,
        channelPoint: `${row.funding_txid}:${row.output_index}`,
        capacitySats: row.capacity_sats,
        closingTxid: row.closing_txid!,
        closedHeight: row.closed_height!,
        closedAt: row.closed_at!,
      }))
    },

    /** Sums over open channels: what we can send (local) and receive (remote). */
    balances(): { localMsat: number; remoteMsat: number } {
      return openRows().reduce(
        (sum, row) => ({
          localMsat: sum.localMsat + row.local_balance_msat,
          remoteMsat: sum.remoteMsat + row.remote_balance_msat,
        }),
        { localMsat: 0, remoteMsat: 0 },
      )
    },

    count(): number {
      return openRows().length
    },

    open: db.transaction((request: OpenChannelRequest): OpenedChannel => {
      assertNodePubkey(request.peerPubkey, 'peerPubkey')
      const peerPubkey = request.peerPubkey.toLowerCase()
      // LND refuses to fund a channel to a peer it is not connected to (funding manager: "peer … is not online").
      if (!peers.isConnected(peerPubkey)) {
        throw new OperationError('invalid_input', `peer ${peerPubkey} is not online: add it as a peer first`)
      }
      assertSats(request.localFundingSats, 'localFundingSats')
      if (request.localFundingSats < minChannelSats) {
        throw new OperationError('invalid_input', `channel is too small: the minimum is ${minChannelSats} sats`)
      }
      if (request.localFundingSats > maxChannelSats) {
        throw new OperationError('invalid_input', `channel is too large: the maximum is ${maxChannelSats} sats`)
      }
      const pushSats = request.pushSats ?? 0
      if (!Number.isSafeInteger(pushSats) || pushSats < 0 || pushSats >= request.localFundingSats) {
        throw new OperationError('invalid_input', 'pushSats must be below the funding amount')
      }
      if (request.closeAddress) chain.assertAddress(request.closeAddress)
      const closeAddress = request.closeAddress || chain.newAddress('WITNESS_PUBKEY_HASH')
      const funding = chain.spend('channel_open', request.localFundingSats, {
        vbytes: txVbytes.channelOpen,
        satPerVbyte: request.satPerVbyte,
      })
      const pendingChannelId = bytesToHex(random(32))
      insert.run({
        channelId: shortChannelId(blockHeightAt(clock.now()), random(3)),
        pendingChannelId,
        fundingTxid: funding.txid,
        peerPubkey,
        capacitySats: request.localFundingSats,
        localMsat: (request.localFundingSats - pushSats) * 1000,
        remoteMsat: pushSats * 1000,
        private: request.private ? 1 : 0,
        closeAddress,
        ...defaultPolicy,
        // LND lets an HTLC use the whole channel less the 1% reserve.
        maxHtlcMsat: request.localFundingSats * 990,
        openedAt: clock.now(),
      })
      return { pendingChannelId, fundingTxid: funding.txid, outputIndex: 0 }
    }),

    close: db.transaction((request: CloseChannelRequest): { closingTxid: string } => {
      const row = openByPoint.get(request.fundingTxid.toLowerCase(), request.outputIndex) as ChannelRow | undefined
      if (!row) throw new OperationError('not_found', 'channel not found')
      // A force close spends the pre-signed commitment, whose fee rate was fixed in advance.
      const satPerVbyte = request.force ? defaultSatPerVbyte : request.satPerVbyte || defaultSatPerVbyte
      const feeSats = satPerVbyte * txVbytes.channelClose
      const ours = row.close_address === null || chain.isOwnAddress(row.close_address)
      const deltaSats = ours ? Math.max(0, msatAsSats(row.local_balance_msat) - feeSats) : 0
      const closingTxid = chain.record('channel_close', {
        deltaSats,
        feeSats,
        satPerVbyte,
        ...(row.close_address ? { address: row.close_address } : {}),
      })
      const now = clock.now()
      markClosed.run({ channelId: row.channel_id, closedAt: now, closingTxid, closedHeight: blockHeightAt(now) })
      return { closingTxid }
    }),

    updatePolicy: db.transaction((request: UpdateChannelPolicyRequest): void => {
      assertPolicy(request.policy)
      let rows: ChannelRow[]
      if (request.scope.kind === 'all') {
        rows = openRows()
      } else {
        const point = /^([0-9a-fA-F]{64}):(\d+)$/.exec(request.scope.channelPoint)
        if (!point) throw new OperationError('invalid_input', 'channel point must look like <funding txid>:<index>')
        const row = openByPoint.get(point[1].toLowerCase(), Number(point[2])) as ChannelRow | undefined
        if (!row) throw new OperationError('not_found', 'channel not found')
        rows = [row]
      }
      for (const row of rows) {
        if (request.policy.maxHtlcMsat > row.capacity_sats * 1000) {
          throw new OperationError(
            'invalid_input',
            `max_htlc_msat exceeds the capacity of channel ${row.funding_txid}:${row.output_index}`,
          )
        }
        setPolicy.run({ channelId: row.channel_id, ...request.policy })
      }
    }),

    openChannelRow(channelId: string): ChannelRow | undefined {
      return openById.get(channelId) as ChannelRow | undefined
    },

    setBalances(channelId: string, localMsat: number, remoteMsat: number): void {
      setBalances.run({ channelId, localMsat, remoteMsat })
    },
  }
}

/** BOLT 7 short channel id (block height, transaction index, output index) as LND's decimal uint64. */
function shortChannelId(height: number, txIndexBytes: Uint8Array): string {
  const txIndex = (txIndexBytes[0] << 16) | (txIndexBytes[1] << 8) | txIndexBytes[2]
  return ((BigInt(height) << 40n) | (BigInt(txIndex) << 16n)).toString()
}

function assertPolicy(policy: ChannelPolicy): void {
  for (const [name, value] of Object.entries(policy)) {
    if (!Number.isSafeInteger(value) || value < 0) {
      throw new OperationError('invalid_input', `${name} must be a non-negative integer`)
    }
  }
  if (policy.timeLockDelta < minTimeLockDelta) {
    throw new OperationError('invalid_input', `time lock delta must be at least ${minTimeLockDelta}`)
  }
  if (policy.minHtlcMsat > policy.maxHtlcMsat) {
    throw new OperationError('invalid_input', 'min_htlc_msat must not exceed max_htlc_msat')
  }
}
