// The embedded relay on a thread of its own: its WebSocket server, sessions, queries, fan-out, signature
// checks and store run on that thread's event loop, with its own connection to relay.sqlite, so nothing a relay
// client does can delay an HTTP answer, a payment or a Nostr reply on the main thread. The daemon reaches it as it
// reaches any relay, over a WebSocket on loopback, with the per-process secret that gives its own connections their
// reserved slots (src/callbacks/relay-credential.ts).
//
// A crash of the relay thread (an uncaught error, its heap limit) is logged and the thread started again on the same
// port, after a pause that doubles up to 30 s while it keeps failing; the daemon's relay links reconnect by
// themselves and resubscribe from where they were. Restarting rather than stopping the daemon: HTTP, payments and
// external relays do not need the embedded relay, and a stop would take them down for a fault of the part that
// faces strangers. Requests sent during the gap are lost only to clients that do not retry (ours do).
import { Worker } from 'node:worker_threads'
import type { Logger } from 'pino'
import type { LogStyle } from '../logging/index.js'
import type { RelayLimits } from './limits.js'
import type { RelayStats } from './server.js'
import type { Config } from '../config/index.js'
import type { FromRelayThread, RelayThreadData, ToRelayThread } from './relay-worker.js'

export interface RelayThreadOptions {
  host: string
  /** 0 picks a free port; a restart keeps the one picked first. */
  port: number
  dataDir: string
  limits: Partial<RelayLimits>
  ownSecret: string
  log: Logger
  logLevel: RelayThreadData['logLevel']
  /** How its lines read (JSON or readable), as the daemon's. */
  logStyle?: LogStyle
  /** The secp256k1 engine the thread checks signatures on (`[nostr] crypto`; the next one down if it cannot load). */
  crypto: RelayThreadData['crypto']
  /** How often the thread reports its stats (default 1 s: the metrics gauges and the console read the latest). */
  statsIntervalMs?: number
}

export interface RelayThread {
  url: string
  port: number
  /** The latest stats the thread reported (connections, store bytes, refusals). */
  stats(): RelayStats | undefined
  /** Replaces limits (merged into the current ones); they survive a restart of the thread. */
  setLimits(limits: Partial<RelayLimits>): void
  /** The thread's log level (SIGHUP); kept for a restart of the thread. */
  setLogLevel(level: RelayThreadData['logLevel']): void
  /** Asks the thread to close every connection and its store, and waits for it to end. */
  close(): Promise<void>
}

/** Heap of the relay thread: a flood that would need more kills the thread (restarted), not the daemon. */
const relayHeapMb = 384
const stopTimeoutMs = 5000
const firstRestartMs = 500
const maxRestartMs = 30_000
/** A thread that ran this long before it failed starts again after the shortest pause. */
const healthyRunMs = 60_000

export async function startRelayThread(opts: RelayThreadOptions): Promise<RelayThread> {
  const log = opts.log
  let limits = { ...opts.limits }
  let logLevel = opts.logLevel
  let latest: RelayStats | undefined
  let stopping = false
  let restartDelay = firstRestartMs
  let retry: NodeJS.Timeout | undefined

  function spawn(port: number): Promise<{ worker: Worker; port: number; url: string }> {
    const data: RelayThreadData = {
      host: opts.host,
      port,
      dataDir: opts.dataDir,
      limits,
      ownSecret: opts.ownSecret,
      logLevel,
      logStyle: opts.logStyle,
      crypto: opts.crypto,
      statsIntervalMs: opts.statsIntervalMs ?? 1000,
    }
    const worker = new Worker(new URL('./relay-worker.js', import.meta.url), {
      workerData: data,
      resourceLimits: { maxOldGenerationSizeMb: relayHeapMb },
    })
    return new Promise((resolve, reject) => {
      let settled = false
      const early = (reason: string, detail: { code?: string; port?: number; address?: string } = {}) => {
        if (settled) return
        settled = true
        reject(Object.assign(new Error(`the relay thread did not start: ${reason}`), detail))
      }
      worker.once('error', err => early(err.message, err as { code?: string; port?: number; address?: string }))
      worker.once('exit', code => early(`exit code ${code}`))
      worker.on('message', (message: FromRelayThread) => {
        if (message.type === 'listening') resolve({ worker, port: message.port, url: message.url })
        else if (message.type === 'failed') early(message.message, { code: message.code, port: message.port, address: message.address })
        else if (message.type === 'stats') latest = message.stats
      })
    })
  }

  let current = await spawn(opts.port)
  const { port, url } = current
  watch(current.worker)

  function watch(worker: Worker): void {
    const startedAt = Date.now()
    worker.removeAllListeners('error')
    worker.removeAllListeners('exit')
    worker.on('error', err => log.error({ err }, 'the relay thread failed'))
    worker.on('exit', code => {
      if (stopping) return
      if (Date.now() - startedAt > healthyRunMs) restartDelay = firstRestartMs
      log.error({ code, restartInMs: restartDelay }, 'the relay thread stopped unexpectedly; starting it again')
      scheduleRestart()
    })
  }

  function scheduleRestart(): void {
    const delay = restartDelay
    restartDelay = Math.min(restartDelay * 2, maxRestartMs)
    retry = setTimeout(() => {
      retry = undefined
      if (stopping) return
      spawn(port).then(
        started => {
          if (stopping) {
            started.worker.postMessage({ type: 'stop' } satisfies ToRelayThread)
            return
          }
          current = started
          watch(started.worker)
          log.info({ url }, 'relay thread running again')
        },
        err => {
          log.error({ err, restartInMs: restartDelay }, 'the relay thread could not start again; trying later')
          scheduleRestart()
        },
      )
    }, delay)
  }

  return {
    url,
    port,
    stats: () => latest,
    setLimits(next) {
      limits = { ...limits, ...next }
      current.worker.postMessage({ type: 'limits', limits: next } satisfies ToRelayThread)
    },
    setLogLevel(level) {
      logLevel = level
      current.worker.postMessage({ type: 'logLevel', level } satisfies ToRelayThread)
    },
    async close() {
      stopping = true
      clearTimeout(retry)
      const worker = current.worker
      const ended = new Promise<void>(resolve => worker.once('exit', () => resolve()))
      worker.postMessage({ type: 'stop' } satisfies ToRelayThread)
      let timer: NodeJS.Timeout | undefined
      const late = new Promise<'late'>(resolve => (timer = setTimeout(() => resolve('late'), stopTimeoutMs)))
      if ((await Promise.race([ended, late])) === 'late') {
        log.warn('the relay thread did not stop in time; ending it')
        await worker.terminate()
      }
      clearTimeout(timer)
    },
  }
}

/** The relay limits from the `[nostr] relay_*` keys of the config. */
export function relayLimitsOf(nostr: Config['nostr']): Partial<RelayLimits> {
  return {
    openWrites: nostr.relay_open_writes,
    privateRequests: nostr.relay_private_requests,
    maxConnections: nostr.relay_max_connections,
    maxConnectionsPerAddress: nostr.relay_max_connections_per_address,
    connectionsPerSecondPerAddress: nostr.relay_connections_per_second_per_address,
    reservedConnections: nostr.relay_reserved_connections,
    refusalDelayMs: nostr.relay_connection_refusal_delay_seconds * 1000,
    idleTimeoutMs: nostr.relay_idle_timeout_seconds * 1000,
    maxSubscriptions: nostr.relay_max_subscriptions,
    maxSubscriptionsPerAddress: nostr.relay_max_subscriptions_per_address,
    maxLimit: nostr.relay_max_limit,
    maxEphemeralLimit: nostr.relay_max_ephemeral_limit,
    storedEventsPerSecond: nostr.relay_stored_events_per_second,
    storedEventsPerSecondPerAddress: nostr.relay_stored_events_per_second_per_address,
    storedBytesPerSecondPerAddress: nostr.relay_stored_bytes_per_second_per_address,
    eventsPerSecondPerAuthor: nostr.relay_events_per_second_per_author,
    eventsPerSecondPerAddress: nostr.relay_events_per_second_per_address,
    messagesPerSecondPerAddress: nostr.relay_messages_per_second_per_address,
    maxRequestBytes: nostr.relay_max_request_bytes,
    requestBytesPerSecondPerAddress: nostr.relay_request_bytes_per_second_per_address,
    newKeysPerMinutePerAddress: nostr.relay_new_keys_per_minute_per_address,
    maxStoreBytes: nostr.relay_max_store_bytes,
    maxAuthorBytes: nostr.relay_max_author_bytes,
    maxAddressBytes: nostr.relay_max_address_bytes,
    minFreeBytes: nostr.relay_min_free_bytes,
    trustedProxies: nostr.relay_trusted_proxies,
  }
}
