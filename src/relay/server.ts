// The embedded relay: our own node:http server carrying a `ws` WebSocketServer, with NIP-01 sessions over an
// SQLite event store. We wrote it instead of embedding @nostr-relay/core because what the daemon needs from it
// is exactly what that library does not do: ephemeral events kept for a while (see the retention comment in
// limits.ts), per-connection limits and rate limiting with NIP-01 reasons, NIP-40 on read, and a store in our
// own better-sqlite3 file (its SQLite repository is a separate package with its own native build). A few
// hundred lines of our own are easier to hold to these rules than plugins around a 0.0.x library.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { pino, type Logger } from 'pino'
import { WebSocketServer, type RawData, type WebSocket } from 'ws'
import { verifyEvent } from 'nostr-tools/pure'
import { systemClock, type Clock } from '../bus/context.js'
import { clientSession, type ClientSession, type RelayCore } from './client-session.js'
import { openEventStore, type EventStore } from './event-store.js'
import { startCheckpointWorker, type CheckpointWorker } from '../store/checkpointer.js'
import { saveQueue } from './save-queue.js'
import { resolveLimits, type RelayLimits } from './limits.js'
import { relayInformation } from './nip11.js'
import type { NostrEvent } from './nostr-event.js'

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
  /** Checks id and signature with a verdict that may come later (the daemon's signature thread); wins over verifyEvent. */
  verifyEventLater?: (event: NostrEvent, done: (valid: boolean) => void) => void
  /** The process's WAL checkpoint worker (the daemon shares its own); a relay without one starts its own. */
  checkpoints?: CheckpointWorker
}

export interface RunningRelay {
  /** `ws://host:port`, for clients. */
  url: string
  port: number
  /** Clients connected now (the relaypay_embedded_relay_connections gauge). */
  connections(): number
  /** Closes every connection, stops every timer and closes the database. */
  close(): Promise<void>
}

/** Grace given to clients to finish the closing handshake before their sockets are cut. */
const closeGraceMs = 1000

export async function startRelay(opts: RelayOptions): Promise<RunningRelay> {
  const limits = resolveLimits(opts.limits)
  const clock = opts.clock ?? systemClock
  const log = (opts.log ?? pino({ level: 'silent' })).child({ room: 'relay' })
  const ownCheckpoints = opts.checkpoints ? undefined : startCheckpointWorker({ log })
  let store: EventStore
  try {
    store = openEventStore({
      dataDir: opts.dataDir,
      ephemeralRetentionSeconds: limits.ephemeralRetentionSeconds,
      checkpoints: opts.checkpoints ?? ownCheckpoints,
    })
  } catch (err) {
    ownCheckpoints?.stop() // a database it cannot open (newer schema) must not leave the worker running
    throw err
  }
  const saves = saveQueue(store, {
    worker: { dataDir: opts.dataDir, ephemeralRetentionSeconds: limits.ephemeralRetentionSeconds },
    log,
  })
  const sessions = new Map<WebSocket, ClientSession>()
  const answeredPing = new WeakMap<WebSocket, boolean>()
  const core: RelayCore = {
    limits,
    clock,
    log,
    store,
    saves,
    verify: opts.verifyEvent ?? verifyEvent,
    ...(opts.verifyEventLater ? { verifyLater: opts.verifyEventLater } : {}),
    broadcast(event, raw) {
      for (const session of sessions.values()) session.deliver(event, raw)
    },
  }

  const http = createServer((req, res) => answerHttp(req, res, limits))
  const wss = new WebSocketServer({ server: http, maxPayload: limits.maxFrameBytes })
  wss.on('connection', (socket, req) => {
    if (sessions.size >= limits.maxConnections) {
      socket.close(1013, 'too many connections, try again later')
      return
    }
    const clientLog = log.child({ client: `${req.socket.remoteAddress}:${req.socket.remotePort}` })
    const session = clientSession(socket, core, clientLog)
    sessions.set(socket, session)
    answeredPing.set(socket, true)
    socket.on('pong', () => answeredPing.set(socket, true))
    socket.on('message', data => session.receive(asBuffer(data)))
    socket.on('close', () => sessions.delete(socket))
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
    void saves.close() // nothing is queued yet: this stops the worker at once
    store.close() // a port already in use must not leave the database open
    ownCheckpoints?.stop()
    throw err
  }
  const address = http.address()
  if (address === null || typeof address === 'string') throw new Error('relay is not listening on a TCP port')
  const port = address.port

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
  // Queries already hide expired events; the sweep only reclaims their space.
  const sweep = setInterval(() => {
    try {
      const removed = store.sweep(Math.floor(clock.now() / 1000))
      if (removed > 0) log.debug({ removed }, 'relay swept expired events')
    } catch (err) {
      log.error({ err }, 'relay sweep of expired events failed')
    }
  }, limits.sweepMs)
  heartbeat.unref()
  sweep.unref()

  const host = opts.host.includes(':') ? `[${opts.host}]` : opts.host
  log.info({ url: `ws://${host}:${port}` }, 'relay listening')

  let closing: Promise<void> | undefined
  async function close(): Promise<void> {
    clearInterval(heartbeat)
    clearInterval(sweep)
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
    ownCheckpoints?.stop()
    log.info('relay stopped')
  }

  return {
    url: `ws://${host}:${port}`,
    port,
    connections: () => sessions.size,
    close: () => (closing ??= close()),
  }
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
