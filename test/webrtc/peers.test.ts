// The peer table's limits and lifecycle, in one process with a werift peer as the caller: a peer that does not
// connect is closed, a silent one too, one peer per caller and a few in all, a candidate cap, and stop() closes
// the open channels and refuses new offers. Loopback host candidates only.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { pino } from 'pino'
import { RTCPeerConnection, type RTCDataChannel } from 'werift'
import { OperationError } from '../../src/bus/errors.js'
import { createPeerTable, type PeerOwner, type PeerTable, type WebRtcSettings } from '../../src/webrtc/peers.js'
import { parseOffer } from '../../src/webrtc/signals.js'
import { decodeDataPacket } from './data-packets.js'

const loopback = ['127.0.0.1']
const settings = (changes: Partial<WebRtcSettings> = {}): WebRtcSettings => ({
  enabled: true,
  ice_servers: [],
  host_addresses: loopback,
  max_peers: 2,
  connect_timeout_seconds: 30,
  idle_timeout_seconds: 300,
  ...changes,
})

const operator = (name: string): PeerOwner => ({ key: `app:${name}`, appId: 'app' })

interface Caller {
  pc: RTCPeerConnection
  channel: RTCDataChannel
  states: string[]
  messages: (string | Buffer)[]
}

function caller(): Caller {
  const pc = new RTCPeerConnection({
    iceServers: [],
    iceUseIpv4: false,
    iceUseIpv6: false,
    iceAdditionalHostAddresses: loopback,
    iceInterfaceAddresses: { udp4: '127.0.0.1' },
  })
  const channel = pc.createDataChannel('metrics')
  const states: string[] = []
  const messages: (string | Buffer)[] = []
  channel.stateChanged.subscribe(state => states.push(state))
  channel.onMessage.subscribe(message => messages.push(message))
  return { pc, channel, states, messages }
}

/** Offer with the caller's candidates in the SDP and the answer's candidates taken from it: no trickling here. */
async function connect(table: PeerTable, owner: PeerOwner, c = caller()): Promise<Caller> {
  await c.pc.setLocalDescription(await c.pc.createOffer())
  const answer = JSON.parse(await table.offer(owner, parseOffer(JSON.stringify(c.pc.localDescription))))
  await c.pc.setRemoteDescription(answer)
  return c
}

/**
 * A connected caller. werift's DTLS client can stall for good on a loaded machine (see upgrade.test.ts,
 * withRetries): like a real caller, a connection that does not open is retried with a new offer, at most 3 times.
 */
async function connectOpen(table: PeerTable, owner: PeerOwner, callers: Caller[]): Promise<Caller> {
  for (let tried = 1; ; tried++) {
    const c = await connect(table, owner)
    callers.push(c)
    try {
      await until(() => c.states.includes('open'), 'the channel to open', 12_000)
      return c
    } catch (err) {
      if (tried >= 3) throw err
    }
  }
}

async function until(check: () => boolean, what: string, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise(resolve => setTimeout(resolve, 25))
  }
}

async function refused(work: Promise<unknown>, code: string, reason: RegExp) {
  try {
    await work
  } catch (err) {
    assert.instance(err, OperationError)
    assert.is((err as OperationError).code, code)
    assert.match((err as Error).message, reason)
    return
  }
  assert.unreachable('accepted')
}

const open: { table: PeerTable; callers: Caller[] }[] = []
function table(changes: Partial<WebRtcSettings> = {}, files: Record<string, Uint8Array> = {}) {
  const entry = {
    table: createPeerTable({
      settings: settings(changes),
      metricsFile: request => {
        const file = files[request.metrics_name]
        if (!file) throw new OperationError('not_found', `no ${request.metrics_name}`)
        return file
      },
      pushCandidate: () => {},
      random: bytes => new Uint8Array(bytes).fill(1),
      log: pino({ level: 'silent' }),
    }),
    callers: [] as Caller[],
  }
  open.push(entry)
  return entry
}

const peers = suite('the WebRTC peer table')

peers.after.each(async () => {
  for (const { table, callers } of open.splice(0)) {
    await table.stop()
    await Promise.all(callers.map(c => c.pc.close()))
  }
})

peers('a connected channel is served; stop() closes it and refuses later offers', async () => {
  const { table: peerTable, callers } = table({}, { Series: Buffer.from([64, 2, 7, 7]) })
  const c = await connectOpen(peerTable, operator('a'), callers)
  c.channel.send(JSON.stringify({ app_id: '', metrics_name: 'Series', page: 0 }))
  await until(() => c.messages.length === 1, 'the answer')
  const packet = decodeDataPacket(c.messages[0] as Buffer)
  assert.equal([packet.dataId, packet.packetNum, packet.totalPackets, [...packet.data]], [0x01010101 & 0x7fffffff, 1, 1, [64, 2, 7, 7]])
  await peerTable.stop()
  assert.is(peerTable.size(), 0)
  await until(() => c.states.includes('closed'), 'the channel to close')
  await refused(peerTable.offer(operator('a'), parseOffer(JSON.stringify((await connectable()).pc.localDescription))), 'conflict', /stopping/)
})

/** A caller with a local description, never answered. */
async function connectable(): Promise<Caller> {
  const c = caller()
  open[open.length - 1]!.callers.push(c)
  await c.pc.setLocalDescription(await c.pc.createOffer())
  return c
}

peers('one peer per caller (a new offer replaces it), max_peers in all', async () => {
  const { table: peerTable, callers } = table({ max_peers: 2 })
  const first = await connectOpen(peerTable, operator('a'), callers)
  const replacement = await connect(peerTable, operator('a'))
  callers.push(replacement)
  await until(() => first.states.includes('closed'), 'the replaced channel to close')
  assert.is(peerTable.size(), 1)
  callers.push(await connect(peerTable, operator('b')))
  assert.is(peerTable.size(), 2)
  const third = await connectable()
  await refused(peerTable.offer(operator('c'), parseOffer(JSON.stringify(third.pc.localDescription))), 'limit_exceeded', /too many WebRTC peers \(2\)/)
  assert.is(peerTable.size(), 2)
})

peers('a peer that does not connect in time is closed; a candidate needs a peer; candidates are capped', async () => {
  const { table: peerTable } = table({ connect_timeout_seconds: 1 })
  await refused(peerTable.candidate(operator('a'), { candidate: 'candidate:1 1 udp 1 127.0.0.1 9 typ host', sdpMLineIndex: 0 }), 'not_found', /Connection not found/)
  const silent = await connectable()
  await peerTable.offer(operator('a'), parseOffer(JSON.stringify(silent.pc.localDescription)))
  // The caller never gets the answer, so it never connects. IPv6 loopback candidates: the peer has IPv4 sockets
  // only, so it pairs none of them and sends no checks (werift's STUN retries outlive close() by ~40 s).
  for (let port = 1; port <= 64; port++) {
    await peerTable.candidate(operator('a'), { candidate: `candidate:${port} 1 udp 1 ::1 ${40_000 + port} typ host`, sdpMLineIndex: 0 })
  }
  await refused(peerTable.candidate(operator('a'), { candidate: 'candidate:65 1 udp 1 ::1 40065 typ host', sdpMLineIndex: 0 }), 'limit_exceeded', /64 candidates/)
  assert.is(peerTable.size(), 1)
  await until(() => peerTable.size() === 0, 'the unconnected peer to be closed')
})

peers('a connected peer whose channels stay silent is closed', async () => {
  const { table: peerTable, callers } = table({ idle_timeout_seconds: 1 })
  const c = await connectOpen(peerTable, operator('a'), callers)
  await until(() => c.states.includes('closed'), 'the idle channel to close')
  assert.is(peerTable.size(), 0)
})

peers.run()
