// The relay thread's entry (started by relay-thread.ts): the embedded relay with its own event loop, its own
// connection to relay.sqlite, and signatures checked here on the engine of `[nostr] crypto`. It logs straight to stdout (pino
// writes to file descriptor 1 itself, not through the main thread), answers the main thread's messages (new limits,
// stop) and sends it the relay's stats every few seconds.
import { parentPort, workerData } from 'node:worker_threads'
import type { Level } from 'pino'
import { createLogger, type LogStyle } from '../logging/index.js'
import type { RelayLimits } from './limits.js'
import { startRelay, type RunningRelay } from './server.js'
import { chooseEngine, createEventVerifier, type EngineName } from '../nostr-crypto/index.js'

export interface RelayThreadData {
  host: string
  port: number
  dataDir: string
  limits: Partial<RelayLimits>
  ownSecret: string
  logLevel: Level | 'silent'
  logStyle?: LogStyle
  crypto: EngineName
  statsIntervalMs: number
}

/** Main thread → relay thread. */
export type ToRelayThread =
  | { type: 'limits'; limits: Partial<RelayLimits> }
  | { type: 'logLevel'; level: RelayThreadData['logLevel'] }
  | { type: 'stop' }
/** Relay thread → main thread. */
export type FromRelayThread =
  | { type: 'listening'; port: number; url: string }
  | { type: 'failed'; message: string; code?: string; port?: number; address?: string }
  | { type: 'stats'; stats: ReturnType<RunningRelay['stats']> }
  | { type: 'stopped' }

const data = workerData as RelayThreadData
const port = parentPort!
const post = (message: FromRelayThread) => port.postMessage(message)
const log = createLogger({ level: data.logLevel, base: { pid: process.pid } }, data.logStyle)

let relay: RunningRelay
try {
  await chooseEngine(data.crypto, log.child({ room: 'relay' }))
  // Without a log the verifier checks on the calling thread: this one, which exists for that kind of work.
  const verifier = await createEventVerifier()
  relay = await startRelay({
    host: data.host,
    port: data.port,
    dataDir: data.dataDir,
    limits: data.limits,
    ownSecret: data.ownSecret,
    verifyEvent: verifier.verify,
    log,
  })
  log.info({ verifier: verifier.engine }, 'relay thread running')
} catch (err) {
  // The listen error's code, port and address travel along: the daemon turns a port in use into the setting to change.
  const { code, port: failedPort, address } = err as NodeJS.ErrnoException & { port?: number; address?: string }
  post({ type: 'failed', message: (err as Error).message, code, port: failedPort, address })
  port.close()
  throw err
}

post({ type: 'listening', port: relay.port, url: relay.url })
post({ type: 'stats', stats: relay.stats() })
const statsTimer = setInterval(() => post({ type: 'stats', stats: relay.stats() }), data.statsIntervalMs)
port.on('message', (message: ToRelayThread) => {
  if (message.type === 'limits') {
    try {
      relay.setLimits(message.limits)
      post({ type: 'stats', stats: relay.stats() })
    } catch (err) {
      log.error({ err }, 'relay limits refused; the previous ones stay')
    }
  } else if (message.type === 'logLevel') {
    log.level = message.level
  } else if (message.type === 'stop') {
    clearInterval(statsTimer)
    void relay.close().then(() => {
      post({ type: 'stopped' })
      port.close() // nothing else holds the loop: the thread ends
    })
  }
})
