// The fake LND's peers, channels, forwarding policies and forwards. Simplifications a real node would not make,
// on purpose: a channel is active as soon as its funding is sent (no blocks to wait for), commitments cost no fee,
// and a peer "connects" to any address.
import { randomBytes } from 'node:crypto'
import type { ChainWallet } from './chain-wallet.js'
import { lndSays } from './rpc-error.js'

// LND's limits without wumbo channels, and its defaults for a new channel's policy (lncfg bitcoin.*).
const minChannelSats = 20_000
const maxChannelSats = 16_777_215
const defaultPolicy = { baseFeeMsat: 1000, feeRatePpm: 1, minHtlcMsat: 1000, timeLockDelta: 80 }

export interface FakePolicy {
  baseFeeMsat: number
  feeRatePpm: number
  minHtlcMsat: number
  maxHtlcMsat: number
  timeLockDelta: number
  lastUpdateSec: number
}

export interface FakeChannel {
  chanId: string
  fundingTxid: string
  outputIndex: number
  peer: string
  capacitySats: number
  localMsat: number
  remoteMsat: number
  private: boolean
  pushSats: number
  openedSec: number
  closeAddress: string
  policy: FakePolicy
  peerPolicy: FakePolicy
}

export interface ClosedFakeChannel {
  channel: FakeChannel
  closingTxid: string
  closeHeight: number
  force: boolean
}

export interface FakeForward {
  atNs: bigint
  chanIdIn: string
  chanIdOut: string
  amountInMsat: number
  amountOutMsat: number
  feeMsat: number
}

export interface ChannelBookDeps {
  ownPubkey: string
  wallet: ChainWallet
  now(): number
  blockHeight(): number
}

export function channelBook({ ownPubkey, wallet, now, blockHeight }: ChannelBookDeps) {
  const peers = new Map<string, { address: string }>()
  const open: FakeChannel[] = []
  const closed: ClosedFakeChannel[] = []
  const forwards: FakeForward[] = []

  const nowSec = () => Math.floor(now() / 1000)
  const findOpen = (fundingTxid: string, outputIndex: number) =>
    open.find(c => c.fundingTxid === fundingTxid && c.outputIndex === outputIndex)

  return {
    peers,
    open,
    closed,
    forwards,

    connect(pubkey: string, address: string): void {
      if (pubkey === ownPubkey) throw lndSays('cannot make connection to self')
      if (peers.has(pubkey)) throw lndSays(`already connected to peer: ${pubkey}@${peers.get(pubkey)!.address}`)
      peers.set(pubkey, { address })
    },

    openChannel(request: { peer: string; localSats: number; pushSats: number; satPerVbyte: number; private: boolean; closeAddress: string }) {
      if (!peers.has(request.peer)) throw lndSays(`peer ${request.peer} is not online`)
      if (request.localSats < minChannelSats) {
        throw lndSays(`channel size is too small, the minimum channel size is: ${minChannelSats} sat`)
      }
      if (request.localSats > maxChannelSats) {
        throw lndSays(`funding amount is too large, the max channel size is: ${maxChannelSats} sat`)
      }
      if (request.pushSats >= request.localSats) {
        throw lndSays('amount pushed to remote peer for initial state must be below the local funding amount')
      }
      let funding
      try {
        funding = wallet.fund(request.localSats, request.satPerVbyte)
      } catch {
        throw lndSays(`not enough witness outputs to create funding transaction, need ${request.localSats} sat`)
      }
      const txIndex = open.length + closed.length + 1
      const policy = { ...defaultPolicy, maxHtlcMsat: request.localSats * 990, lastUpdateSec: nowSec() }
      const channel: FakeChannel = {
        chanId: ((BigInt(blockHeight()) << 40n) | (BigInt(txIndex) << 16n) | 1n).toString(),
        fundingTxid: funding.txid,
        outputIndex: 1,
        peer: request.peer,
        capacitySats: request.localSats,
        localMsat: (request.localSats - request.pushSats) * 1000,
        remoteMsat: request.pushSats * 1000,
        private: request.private,
        pushSats: request.pushSats,
        openedSec: nowSec(),
        closeAddress: request.closeAddress,
        policy,
        peerPolicy: { ...policy },
      }
      open.push(channel)
      return { channel, pendingChanId: randomBytes(32) }
    },

    closeChannel(fundingTxid: string, outputIndex: number, force: boolean): ClosedFakeChannel {
      const channel = findOpen(fundingTxid, outputIndex)
      if (!channel) throw lndSays('channel not found')
      open.splice(open.indexOf(channel), 1)
      const payout = wallet.receive(Math.floor(channel.localMsat / 1000), 'channel close')
      const record = { channel, closingTxid: payout.txid, closeHeight: blockHeight(), force }
      closed.push(record)
      return record
    },

    byChanId(chanId: string): FakeChannel | undefined {
      return open.find(c => c.chanId === chanId)
    },

    byPoint(fundingTxid: string, outputIndex: number): FakeChannel | undefined {
      return findOpen(fundingTxid, outputIndex)
    },

    setPolicy(channel: FakeChannel, policy: Omit<FakePolicy, 'lastUpdateSec'>): void {
      channel.policy = { ...policy, lastUpdateSec: nowSec() }
    },

    /** A forward through two of our channels, moving both balances and earning `feeMsat`. */
    recordForward(chanIdIn: string, chanIdOut: string, amountOutMsat: number, feeMsat: number): FakeForward {
      const incoming = open.find(c => c.chanId === chanIdIn)
      const outgoing = open.find(c => c.chanId === chanIdOut)
      if (!incoming || !outgoing) throw new Error('recordForward needs two open channels')
      const amountInMsat = amountOutMsat + feeMsat
      incoming.remoteMsat -= amountInMsat
      incoming.localMsat += amountInMsat
      outgoing.localMsat -= amountOutMsat
      outgoing.remoteMsat += amountOutMsat
      const forward = { atNs: BigInt(now()) * 1_000_000n, chanIdIn, chanIdOut, amountInMsat, amountOutMsat, feeMsat }
      forwards.push(forward)
      return forward
    },
  }
}

export type ChannelBook = ReturnType<typeof channelBook>
