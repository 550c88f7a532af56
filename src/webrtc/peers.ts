// The daemon's side of the metrics WebRTC upgrade: one werift peer connection per metrics caller (a new offer
// replaces the caller's old peer, as upstream does), a few peers in all, each closed when it does not connect in
// time, when its channels fall idle, when ICE fails, or when the daemon stops. Every data channel the caller opens
// serves metrics files (metrics-channel.ts).
import { isIPv4, isIPv6 } from 'node:net'
import type { RTCDataChannel, RTCIceCandidate, RTCPeerConnection } from 'werift'
import type { Logger } from 'pino'
import { OperationError, isOperationError } from '../bus/index.js'
import { channelError, dataPackets, parseChannelRequest, type MetricsFileRequest } from './metrics-channel.js'
import { candidateAddress, candidateMessage, keepCandidates, type OfferDescription, type RemoteCandidate } from './signals.js'

/** The `[webrtc]` section of the configuration. */
export interface WebRtcSettings {
  enabled: boolean
  /** STUN/TURN servers; none by default, so only host candidates are offered. */
  ice_servers: { urls: string | string[]; username?: string; credential?: string }[]
  /** When set, the only addresses offered as candidates (e.g. ["127.0.0.1"]); else every interface's. */
  host_addresses: string[]
  max_peers: number
  connect_timeout_seconds: number
  idle_timeout_seconds: number
}

/** Who a peer belongs to: one metrics caller, and the key its candidates are pushed to (relay callers only). */
export interface PeerOwner {
  key: string
  appId: string
  pubkey?: string
}

export interface PeerTableDeps {
  settings: WebRtcSettings
  /** The metrics file a channel request names; throws OperationError when it cannot be served. */
  metricsFile(request: MetricsFileRequest, owner: PeerOwner): Uint8Array
  /** Sends one of our candidates (a SubToWebRtcCandidates message) to the owner's key. */
  pushCandidate(owner: PeerOwner & { pubkey: string }, candidate: string): void
  /** Data ids of answers; node:crypto in the daemon. */
  random(bytes: number): Uint8Array
  log: Logger
}

export interface PeerTable {
  /** Answers the caller's offer; resolves to the answer as a JSON RTCSessionDescription. */
  offer(owner: PeerOwner, offer: OfferDescription): Promise<string>
  /** Adds the caller's candidate to its peer; undefined is the end of candidates. */
  candidate(owner: PeerOwner, candidate: RemoteCandidate | undefined): Promise<void>
  size(): number
  /** Closes every peer and refuses new offers. */
  stop(): Promise<void>
}

/** How long a closing peer waits for the caller to acknowledge its channels' closing. */
const channelCloseWaitMs = 1000

/** Channels one peer may open; the metrics protocol needs one. */
const maxChannelsPerPeer = 4
/** Requests waiting on one channel; they are answered in order, one at a time. */
const maxQueuedRequests = 8
/** Remote candidates one peer may add (a browser sends a handful). */
const maxRemoteCandidates = 64

interface Peer {
  owner: PeerOwner
  pc: RTCPeerConnection
  remoteCandidates: number
  channels: Set<RTCDataChannel>
  close(reason: string): Promise<void>
  /** Restarts the idle timer (any channel message). */
  touch(): void
}

export function createPeerTable(deps: PeerTableDeps): PeerTable {
  const { settings, log } = deps
  const peers = new Map<string, Peer>()
  let stopping = false
  const hosts = settings.host_addresses
  const allowedAddress = (address: string) => hosts.length === 0 || hosts.includes(address)
  // werift takes seconds to load on a busy machine; only a daemon that gets an offer pays for it.
  let werift: Promise<typeof import('werift')> | undefined
  const loadWerift = () => (werift ??= import('werift'))

  function peerConfig(): ConstructorParameters<typeof RTCPeerConnection>[0] {
    if (hosts.length === 0) return { iceServers: settings.ice_servers }
    const v4 = hosts.filter(host => isIPv4(host))
    const v6 = hosts.filter(host => isIPv6(host))
    return {
      iceServers: settings.ice_servers,
      // Interface enumeration off: the listed addresses are the only host candidates.
      iceUseIpv4: false,
      iceUseIpv6: false,
      iceAdditionalHostAddresses: hosts,
      // werift binds every candidate's socket to the one interface address given per family, so bind only when
      // that address is the one candidate of its family; otherwise the sockets listen on every address.
      iceInterfaceAddresses: { udp4: v4.length === 1 ? v4[0] : undefined, udp6: v6.length === 1 ? v6[0] : undefined },
    }
  }

  function openPeer(owner: PeerOwner, PeerConnection: typeof RTCPeerConnection): Peer {
    const pc = new PeerConnection(peerConfig())
    const timers: { connect?: NodeJS.Timeout; idle?: NodeJS.Timeout } = {}
    const subscriptions: { unSubscribe(): void }[] = []
    let closing: Promise<void> | undefined
    const peer: Peer = {
      owner,
      pc,
      remoteCandidates: 0,
      channels: new Set(),
      close: reason =>
        (closing ??= (async () => {
          clearTimeout(timers.connect)
          clearTimeout(timers.idle)
          if (peers.get(owner.key) === peer) peers.delete(owner.key)
          log.info({ peer: owner.key, reason }, 'closing a WebRTC peer')
          try {
            // werift's close() tells the other side nothing; closing the channels first resets their SCTP
            // streams, so the caller sees its channel close instead of waiting on a silent peer.
            await closeChannels(peer.channels)
            await pc.close()
          } catch (err) {
            log.warn({ err, peer: owner.key }, 'closing a WebRTC peer failed')
          }
          for (const subscription of subscriptions) subscription.unSubscribe()
        })()),
      touch() {
        clearTimeout(timers.idle)
        timers.idle = setTimeout(() => void peer.close('idle'), settings.idle_timeout_seconds * 1000)
        timers.idle.unref()
      },
    }
    timers.connect = setTimeout(() => void peer.close('did not connect in time'), settings.connect_timeout_seconds * 1000)
    timers.connect.unref()

    subscriptions.push(
      pc.onIceCandidate.subscribe(candidate => pushCandidate(peer, candidate)),
      pc.connectionStateChange.subscribe(state => {
        if (state === 'connected') {
          clearTimeout(timers.connect)
          peer.touch()
        } else if (state === 'failed' || state === 'disconnected' || state === 'closed') {
          void peer.close(`connection ${state}`)
        }
      }),
      pc.onDataChannel.subscribe(channel => serveChannel(peer, channel)),
    )
    return peer
  }

  function pushCandidate(peer: Peer, candidate: RTCIceCandidate | undefined) {
    const { owner } = peer
    if (owner.pubkey === undefined) return // an HTTP caller gets every candidate in the answer instead
    if (candidate && !allowedAddress(candidateAddress(candidate.candidate) ?? '')) return
    const message = candidateMessage(candidate && { candidate: candidate.candidate, sdpMid: candidate.sdpMid, sdpMLineIndex: candidate.sdpMLineIndex })
    const target = { ...owner, pubkey: owner.pubkey }
    // werift gathers inside setLocalDescription, before the answer is returned: the push waits a turn so that the
    // reply carrying the answer usually goes out first (a browser adding candidates before the answer fails; the
    // answer lists the same candidates, so a caller that drops early ones still connects).
    setImmediate(() => {
      try {
        deps.pushCandidate(target, message)
      } catch (err) {
        log.error({ err, peer: owner.key }, 'could not push a WebRTC candidate')
      }
    })
  }

  function serveChannel(peer: Peer, channel: RTCDataChannel) {
    const { channels } = peer
    if (channels.size >= maxChannelsPerPeer) {
      channel.close()
      return
    }
    channels.add(channel)
    channel.stateChanged.subscribe(state => {
      if (state === 'closed') channels.delete(channel)
    })
    let queue = Promise.resolve()
    let queued = 0
    channel.onMessage.subscribe(message => {
      peer.touch()
      if (queued >= maxQueuedRequests) {
        send(channel, channelError(new OperationError('limit_exceeded', `more than ${maxQueuedRequests} requests waiting on this channel`)))
        return
      }
      queued += 1
      queue = queue.then(() => answer(peer, channel, message)).finally(() => (queued -= 1))
    })
  }

  async function answer(peer: Peer, channel: RTCDataChannel, message: string | Buffer) {
    try {
      const request = parseChannelRequest(message)
      const file = deps.metricsFile(request, peer.owner)
      const dataId = request.request_id ?? Buffer.from(deps.random(4)).readUInt32BE() & 0x7fffffff
      for (const packet of dataPackets(file, dataId)) send(channel, Buffer.from(packet.buffer, packet.byteOffset, packet.byteLength))
    } catch (err) {
      if (!isOperationError(err)) log.error({ err, peer: peer.owner.key }, 'serving a metrics request over WebRTC failed')
      send(channel, channelError(err))
    }
  }

  function send(channel: RTCDataChannel, data: string | Buffer) {
    if (channel.readyState !== 'open') return
    try {
      channel.send(data)
    } catch (err) {
      log.warn({ err }, 'could not send on a WebRTC data channel')
    }
  }

  return {
    async offer(owner, offer) {
      const { RTCPeerConnection: PeerConnection } = await loadWerift()
      if (stopping) throw new OperationError('conflict', 'the daemon is stopping')
      await peers.get(owner.key)?.close('replaced by a new offer')
      if (peers.size >= settings.max_peers) {
        throw new OperationError('limit_exceeded', `too many WebRTC peers (${settings.max_peers}); try again when one has closed`)
      }
      const peer = openPeer(owner, PeerConnection)
      peers.set(owner.key, peer) // before any await: concurrent offers count this one
      // A peer closed while it answers (a newer offer from the same caller, the daemon stopping) fails in werift
      // for that reason, not for its SDP: the caller is told which.
      const superseded = () => stopping || peers.get(owner.key) !== peer
      try {
        try {
          await peer.pc.setRemoteDescription(offer)
        } catch (err) {
          if (superseded()) throw supersededError()
          throw new OperationError('invalid_input', `offer rejected: ${(err as Error)?.message ?? String(err)}`)
        }
        await peer.pc.setLocalDescription(await peer.pc.createAnswer())
        const local = peer.pc.localDescription
        if (superseded()) throw supersededError()
        if (!local) throw new Error('werift made no local description')
        return JSON.stringify({ type: 'answer', sdp: keepCandidates(local.sdp, allowedAddress) })
      } catch (err) {
        const replaced = superseded() // before close(), which takes the peer out of the table
        await peer.close('offer failed')
        throw replaced && !isOperationError(err) ? supersededError() : err
      }
    },

    async candidate(owner, candidate) {
      const peer = peers.get(owner.key)
      if (!peer) throw new OperationError('not_found', 'Connection not found: send an offer first')
      if (candidate === undefined) return
      if (peer.remoteCandidates >= maxRemoteCandidates) {
        throw new OperationError('limit_exceeded', `more than ${maxRemoteCandidates} candidates for one connection`)
      }
      peer.remoteCandidates += 1
      try {
        await peer.pc.addIceCandidate(candidate)
      } catch (err) {
        throw new OperationError('invalid_input', `candidate rejected: ${(err as Error)?.message ?? String(err)}`)
      }
    },

    size: () => peers.size,

    async stop() {
      stopping = true
      await Promise.all([...peers.values()].map(peer => peer.close('the daemon is stopping')))
    },
  }
}

const supersededError = () => new OperationError('conflict', 'this offer was replaced by a newer one, or the daemon is stopping')

function closeChannels(channels: ReadonlySet<RTCDataChannel>): Promise<unknown> {
  return Promise.all(
    [...channels].map(
      channel =>
        new Promise<void>(resolve => {
          if (channel.readyState === 'closed') return resolve()
          const timer = setTimeout(resolve, channelCloseWaitMs)
          channel.stateChanged.subscribe(state => {
            if (state !== 'closed') return
            clearTimeout(timer)
            resolve()
          })
          channel.close()
        }),
    ),
  )
}
