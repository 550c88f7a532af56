// The embedded relay: our own node:http server carrying a `ws` WebSocketServer, with NIP-01 sessions over an
// SQLite event store. We wrote it instead of embedding @nostr-relay/core because what the daemon needs from it
// is exactly what that library does not do: ephemeral events kept for a while (see the retention comment in
// limits.ts), budgets per connection, address and author with NIP-01 reasons, a write policy that carries only the
// daemon's traffic, storage quotas, NIP-40 on read, and a store in our own better-sqlite3 file. A few hundred lines
// of our own are easier to hold to these rules than plugins around a 0.0.x library.
// In the daemon it runs on a thread of its own (src/relay/relay-thread.ts): nothing here can hold up a payment.
import fs from 'node:fs'
import path from 'node:path'
import { timingSafeEqual } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { Duplex } from 'node:stream'
import { pino, type Logger } from '../vendor/pino.js'
import { WebSocketServer, type RawData, type WebSocket } from '../vendor/ws.js'
import { verifyEvent } from 'nostr-tools/pure'
import type { Clock } from '../bus/index.js'
import { clientSession, type ClientSession, type RelayCore } from './client-session.js'
import { openEventStore, type EventStore } from './event-store.js'
import { saveQueue } from './save-queue.js'
import { resolveLimits, type RelayLimits, type TokenBucket } from './limits.js'
import { relayInformation } from './nip11.js'
import { addressBook, clientAddress, type AddressState } from './addresses.js'
import { startReader } from './reader.js'
import type { NostrEvent } from './nostr-event.js'
import { unixSeconds } from '../units/index.js'

/** The header by which the daemon's own connections show the relay's secret (src/callbacks/relay-credential.ts). */
export const ownConnectionHeader = 'x-relaypay-relay-secret'

export interface RelayOptions {
  /** Interface to listen on; the offline default is 127.0.0.1. */
  host: string
  /** 0 picks a free port (tests). */
  port: number
  /** The relay keeps its events in `<dataDir>/relay.sqlite`. */
  dataDir: string
  log?: Logger
  /** Drives event expiry, the future-date check and rate limits; defaults to the system clock. */
  clock?: Clock
  limits?: Partial<RelayLimits>
  /** Checks id and signature; defaults to nostr-tools' pure-JS verifyEvent (a wasm one is 3–5x faster). */
  verifyEvent?: (event: NostrEvent) => boolean
  /** Checks id and signature with a verdict that may come later (a signature thread); wins over verifyEvent. */
  verifyEventLater?: (event: NostrEvent, done: (valid: boolean) => void) => void
  /**
   * The secret the daemon's own connections present in the `x-relaypay-relay-secret` header: they skip the
   * stranger's caps, budgets and write policy, and have `reservedConnections` slots of their own.
   */
  ownSecret?: string
}

/** What the relay reports about itself (the daemon's metrics read it). */
export interface RelayStats {
  connections: number
  ownConnections: number
  addresses: number
  /** Stored-event reads in progress. */
  reads: number
  /** Bytes counted against the storage budget, and the database files' size on disk. */
  storeBytes: number
  fileBytes: number
  /** Bytes of ephemeral events held in memory (recent-events.ts, counted as against its bound). */
  memoryBytes: number
  diskLow: boolean
  /** Refusals since start, by NIP-01 prefix (`rate-limited`, `blocked`, `invalid`, …). */
  refused: Record<string, number>
}

export interface RunningRelay {
  /** `ws://host:port`, for clients. */
  url: string
  port: number
  /** Replaces the limits (merged into the current ones); a new frame cap applies to new connections only. */
  setLimits(limits: Partial<RelayLimits>): void
  stats(): RelayStats
  /** Closes every connection, stops every timer and closes the database. */
  close(): Promise<void>
}

const tooManyFromAddress = 'rate-limited: too many connections from your address'
/** Over the address's new-connection rate: no body, as before (a client is told to come back in a second). */
const tooManyAttempts = ''
/** Refused upgrades held unanswered at once, relay-wide (see refuseUpgrade). */
const maxHeldRefusals = 256

/** Grace given to clients to finish the closing handshake before their sockets are cut. */
const closeGraceMs = 1000

export async function startRelay(opts: RelayOptions): Promise<RunningRelay> {
  // The relay's thread loads nothing of the bus but its types, so the wall clock is written out here.
  const clock: Clock = opts.clock ?? { now: () => Date.now() }
  const log = (opts.log ?? pino({ level: 'silent' })).child({ room: 'relay' })
  let limits = resolveLimits(opts.limits)
  const store: EventStore = openEventStore({
    dataDir: opts.dataDir,
    ephemeralRetentionSeconds: limits.ephemeralRetentionSeconds,
    budget: () => ({ maxBytes: limits.maxStoreBytes, maxAuthorBytes: limits.maxAuthorBytes, maxAddressBytes: limits.maxAddressBytes }),
  })
  const saves = saveQueue(store, { log })
  const sessions = new Map<WebSocket, ClientSession>()
  const own = new Set<WebSocket>()
  const answeredPing = new WeakMap<WebSocket, boolean>()
  const addresses = addressBook(clock, () => limits)
  const ownState = addressBook(clock, () => limits).get('own')
  const authorBuckets = new Map<string, TokenBucket>()
  const refusals: Record<string, number> = {}
  let served = new Set<string>()
  let servedStale = false
  // The embedded relay (one with an own secret) opens to strangers once the daemon's links name the keys they
  // serve. Before that every request would be refused as addressed to no key served — a wallet that reconnected
  // while the daemon restarted would have its first requests turned away for good — so strangers are asked to come
  // back (503, Retry-After: 1), as from any service that is starting.
  let daemonListens = opts.ownSecret === undefined
  const learnServed = () => {
    served = new Set([...own].flatMap(socket => sessions.get(socket)?.addressedKeys() ?? []))
    servedStale = false
    if (served.size > 0) daemonListens = true
  }
  let diskLow = false
  const reader = startReader(store, clock, () => limits)

  const core: RelayCore = {
    get limits() {
      return limits
    },
    clock,
    log,
    store,
    saves,
    reader,
    authorBuckets,
    verify: opts.verifyEvent ?? verifyEvent,
    ...(opts.verifyEventLater ? { verifyLater: opts.verifyEventLater } : {}),
    broadcast(event, raw) {
      let heard = false
      for (const session of sessions.values()) if (session.deliver(event, raw)) heard = true
      return heard
    },
    served: {
      has(pubkey) {
        if (servedStale) learnServed()
        return served.has(pubkey)
      },
    },
    diskLow: () => diskLow,
    ownSubscriptionsChanged: () => {
      servedStale = true
      if (!daemonListens) learnServed()
    },
    refused(reason) {
      const prefix = /^([a-z-]+):/.exec(reason)?.[1] ?? 'other'
      refusals[prefix] = (refusals[prefix] ?? 0) + 1
    },
  }

  /** Refused upgrades not yet answered (see refuseUpgrade), with the timer that will answer each. */
  const heldRefusals = new Map<Duplex, NodeJS.Timeout>()
  /**
   * Answers a refused upgrade with 429 after `refusalDelayMs`, not at once: a client that reconnects as soon as it is
   * refused (a flooder with more sockets than its cap) otherwise made the relay accept, parse and answer a few hundred
   * connections a second, a third of its work under a REQ flood. Held unread, a socket costs a descriptor and no
   * work; at most an address's connection cap of them per address and `maxHeldRefusals` in all, beyond which the
   * answer is at once.
   */
  function refuseUpgrade(socket: Duplex, state: AddressState, reason: string): void {
    core.refused('rate-limited:')
    const response = reason
      ? `HTTP/1.1 429 Too Many Requests\r\nRetry-After: 1\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: ${reason.length}\r\n\r\n${reason}`
      : 'HTTP/1.1 429 Too Many Requests\r\nRetry-After: 1\r\nConnection: close\r\nContent-Length: 0\r\n\r\n'
    if (limits.refusalDelayMs <= 0 || heldRefusals.size >= maxHeldRefusals || state.heldRefusals >= limits.maxConnectionsPerAddress) {
      socket.end(response)
      return
    }
    state.heldRefusals++
    const release = () => {
      if (!heldRefusals.delete(socket)) return
      clearTimeout(timer)
      state.heldRefusals--
    }
    const timer = setTimeout(() => {
      release()
      socket.end(response)
    }, limits.refusalDelayMs)
    heldRefusals.set(socket, timer)
    socket.once('close', release)
    socket.on('error', () => socket.destroy())
  }

  const http = createServer((req, res) => answerHttp(req, res, limits))
  const wss = new WebSocketServer({ noServer: true, maxPayload: limits.maxFrameBytes })
  // New connections per address are counted before the WebSocket handshake: a client that reconnects in a loop is
  // answered 429 at the cost of one small write, not of a handshake, a session and a close.
  http.on('upgrade', (req, socket, head) => {
    const isOwn = opts.ownSecret !== undefined && presents(req, opts.ownSecret)
    if (!isOwn && !daemonListens) {
      core.refused('restricted:')
      socket.end('HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nConnection: close\r\nContent-Length: 0\r\n\r\n')
      return
    }
    if (!isOwn) {
      const state = addresses.get(clientAddress(req, limits.trustedProxies))
      if (!state.attempts.take()) return refuseUpgrade(socket, state, tooManyAttempts)
      // An address at its cap is refused here too: after the handshake the refusal cost a session, a close frame and
      // the closing handshake, and a client that reconnects at once (a flooder with more sockets than its cap) made
      // that a fifth of the relay thread's work. The body says why, for a client that reads it.
      if (state.connections >= limits.maxConnectionsPerAddress) return refuseUpgrade(socket, state, tooManyFromAddress)
    }
    wss.handleUpgrade(req, socket, head, ws => wss.emit('connection', ws, req))
  })
  wss.on('connection', (socket, req) => {
    const isOwn = opts.ownSecret !== undefined && presents(req, opts.ownSecret)
    const address = clientAddress(req, limits.trustedProxies)
    // The daemon's own connections count against no address (they would take slots of local wallets).
    const state = isOwn ? ownState : addresses.get(address)
    // Close reasons carry NIP-01 prefixes too, so a client can tell a cap from an outage.
    if (isOwn) {
      if (own.size >= limits.reservedConnections) return socket.close(1013, 'rate-limited: every reserved connection is taken')
    } else if (sessions.size - own.size >= limits.maxConnections) {
      core.refused('rate-limited:')
      return socket.close(1013, 'rate-limited: too many connections, try again later')
    } else if (state.connections >= limits.maxConnectionsPerAddress) {
      core.refused('rate-limited:')
      return socket.close(1008, tooManyFromAddress)
    }
    state.connections++
    const clientLog = log.child({ client: `${req.socket.remoteAddress}:${req.socket.remotePort}`, ...(isOwn ? { own: true } : {}) })
    const session = clientSession(socket, core, clientLog, { own: isOwn, address, state, tcp: req.socket, ...(req.headers.host ? { host: req.headers.host } : {}) })
    sessions.set(socket, session)
    if (isOwn) own.add(socket)
    answeredPing.set(socket, true)
    socket.on('pong', () => answeredPing.set(socket, true))
    socket.on('message', data => session.receive(asBuffer(data)))
    socket.on('close', () => {
      sessions.delete(socket)
      own.delete(socket)
      state.connections--
      session.release()
    })
    // ws reports protocol violations (an oversized frame among them) here and then closes the socket itself.
    socket.on('error', err => clientLog.debug({ err }, 'relay client connection failed'))
  })
  // A listen failure (a port in use) is the start's error, told once by whoever started the relay.
  wss.on('error', err => {
    if ((err as NodeJS.ErrnoException).syscall !== 'listen') log.error({ err }, 'relay WebSocket server failed')
  })

  try {
    await new Promise<void>((resolve, reject) => {
      http.once('error', reject)
      http.listen(opts.port, opts.host, () => {
        http.off('error', reject)
        resolve()
      })
    })
  } catch (err) {
    reader.close()
    void saves.close()
    store.close() // a port already in use must not leave the database open
    throw err
  }
  const address = http.address()
  if (address === null || typeof address === 'string') throw new Error('relay is not listening on a TCP port')
  const port = address.port

  const checkDisk = (free: number) => {
    const low = free < limits.minFreeBytes
    if (low !== diskLow) log.warn({ freeBytes: free, minFreeBytes: limits.minFreeBytes }, low ? 'relay stops storing: the disk is nearly full' : 'relay stores again: the disk has room')
    diskLow = low
  }
  const freeBytes = (s: fs.StatsFs) => Number(s.bavail) * Number(s.bsize)
  checkDisk(freeBytes(fs.statfsSync(opts.dataDir)))

  // A client that vanished without closing (network gone, process frozen) answers no ping; drop it.
  const heartbeat = setInterval(() => {
    for (const socket of sessions.keys()) {
      if (!answeredPing.get(socket)) {
        socket.terminate()
        continue
      }
      answeredPing.set(socket, false)
      socket.ping()
    }
  }, limits.heartbeatMs)
  // Every second: idle strangers are closed, the free space is looked at again.
  const housekeeping = setInterval(() => {
    const now = clock.now()
    for (const [socket, session] of sessions) {
      if (own.has(socket) || session.subscriptionCount() > 0 || now - session.lastActivity() < limits.idleTimeoutMs) continue
      socket.close(1000, 'restricted: idle connection closed')
    }
    fs.statfs(opts.dataDir, (err, s) => {
      if (err) log.warn({ err }, 'relay could not read the free disk space')
      else checkDisk(freeBytes(s))
    })
  }, Math.min(1000, Math.max(50, limits.idleTimeoutMs / 2)))
  // Queries already hide expired events; the sweep only reclaims their space. Full budgets are forgotten.
  const sweep = setInterval(() => {
    try {
      const removed = store.sweep(unixSeconds(clock.now()))
      if (removed > 0) log.debug({ removed }, 'relay swept expired events')
    } catch (err) {
      log.error({ err }, 'relay sweep of expired events failed')
    }
    addresses.prune()
    for (const [pubkey, bucket] of authorBuckets) if (bucket.full()) authorBuckets.delete(pubkey)
  }, limits.sweepMs)
  heartbeat.unref()
  housekeeping.unref()
  sweep.unref()

  const host = opts.host.includes(':') ? `[${opts.host}]` : opts.host
  log.info({ url: `ws://${host}:${port}`, openWrites: limits.openWrites }, 'relay listening')

  const files = ['relay.sqlite', 'relay.sqlite-wal'].map(name => path.join(opts.dataDir, name))
  const stats = (): RelayStats => ({
    connections: sessions.size,
    ownConnections: own.size,
    addresses: addresses.size(),
    reads: reader.pending(),
    storeBytes: store.usageBytes(),
    fileBytes: files.reduce((sum, file) => sum + (fs.statSync(file, { throwIfNoEntry: false })?.size ?? 0), 0),
    memoryBytes: store.memoryBytes(),
    diskLow,
    refused: { ...refusals },
  })

  let closing: Promise<void> | undefined
  async function close(): Promise<void> {
    clearInterval(heartbeat)
    clearInterval(housekeeping)
    clearInterval(sweep)
    reader.close()
    for (const [socket, timer] of heldRefusals) {
      clearTimeout(timer)
      socket.destroy()
    }
    heldRefusals.clear()
    const stoppedListening = new Promise<void>(resolve => http.close(() => resolve())) // no new connections
    const sockets = [...sessions.keys()]
    const allClosed = Promise.all(sockets.map(socket => new Promise<void>(resolve => socket.once('close', () => resolve()))))
    for (const socket of sockets) socket.close(1001, 'relay shutting down')
    let grace: NodeJS.Timeout | undefined
    await Promise.race([allClosed, new Promise<void>(resolve => (grace = setTimeout(resolve, closeGraceMs)))])
    clearTimeout(grace)
    for (const socket of sockets) socket.terminate()
    await new Promise<void>(resolve => wss.close(() => resolve()))
    http.closeAllConnections()
    await stoppedListening
    await saves.close() // events that arrived in the last turn are stored and answered, not dropped
    store.close()
    log.info('relay stopped')
  }

  return {
    url: `ws://${host}:${port}`,
    port,
    setLimits(next) {
      limits = resolveLimits({ ...limits, ...next })
      log.info('relay limits replaced')
    },
    stats,
    close: () => (closing ??= close()),
  }
}

function presents(req: IncomingMessage, secret: string): boolean {
  const given = req.headers[ownConnectionHeader]
  if (typeof given !== 'string') return false
  const a = Buffer.from(given)
  const b = Buffer.from(secret)
  return a.length === b.length && timingSafeEqual(a, b)
}

/** NIP-11 on `Accept: application/nostr+json`, with the CORS headers it requires; a short hint otherwise. */
function answerHttp(req: IncomingMessage, res: ServerResponse, limits: RelayLimits): void {
  res.setHeader('Access-Control-Allow-Origin', '*')
  res.setHeader('Access-Control-Allow-Headers', '*')
  res.setHeader('Access-Control-Allow-Methods', 'GET, OPTIONS')
  if (req.method === 'OPTIONS') {
    res.writeHead(204).end()
    return
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { Allow: 'GET, OPTIONS' }).end()
    return
  }
  if ((req.headers.accept ?? '').includes('application/nostr+json')) {
    res.writeHead(200, { 'Content-Type': 'application/nostr+json' }).end(JSON.stringify(relayInformation(limits)))
    return
  }
  res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' })
  res.end('relaypay embedded Nostr relay: connect with a WebSocket Nostr client (NIP-01).\n')
}

function asBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data
  if (Array.isArray(data)) return Buffer.concat(data)
  return Buffer.from(data)
}
