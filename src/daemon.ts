// The composition root: one ordered table of the daemon's steps (lifecycle/start-table.ts), read top to bottom in
// the order they start; they stop in the reverse, and a start that fails half-way stops what it started. Each entry
// names its step and calls the part that does it; what a step provides is typed for the steps after it.
// Only this file knows every room.
import path from 'node:path'
import { randomBytes } from 'node:crypto'
import type { Logger } from 'pino'
import { catalogue } from '../schema/catalogue.js'
import { listening, type Config } from './config/index.js'
import { ensureDataDir, lockDataDir } from './store/index.js'
import { createAccessLog, createEventBus, systemClock, type Clock, type Dispatcher } from './bus/index.js'
import { createProbes } from './health/index.js'
import type { LightningNode } from './node/index.js'
import { startNode } from './lifecycle/node.js'
import { daemonSecrets } from './lifecycle/secrets.js'
import type { RelayThread } from './relay/index.js'
import { createAnnouncer, createEventVerifier } from './transports/nostr/index.js'
import { chooseEngine } from './nostr-crypto/index.js'
import { removeDaemonInfo, writeDaemonInfo } from './daemon-files.js'
import { levelledLogger } from './lifecycle/log-levels.js'
import { relayMover, reloadConfig } from './lifecycle/reload.js'
import { startProbeServer } from './lifecycle/probe-server.js'
import { warnMissingNodeFlags } from './lifecycle/node-flags.js'
import { startBackupSchedule } from './backup/index.js'
import { exitOnLeaseLost, openBooks } from './lifecycle/books.js'
import { relayReadiness, startEmbeddedRelay } from './lifecycle/embedded-relay.js'
import { logStyle } from './logging/index.js'
import { publicRelaysOf, warnIfLoopback } from './lifecycle/public-relays.js'
import { startTable } from './lifecycle/start-table.js'
import { openDomainRooms } from './lifecycle/domain-rooms.js'
import { graceLeft, lateParts, type LateParts } from './lifecycle/late.js'
import { startDispatcher } from './lifecycle/dispatcher.js'
import { attachHttpOperations, startTransport } from './lifecycle/transports.js'

export interface Daemon {
  url: string
  /** The relays the daemon serves on (the embedded one in the offline default). */
  relays: string[]
  node: LightningNode
  dataDir: string
  dispatcher: Dispatcher
  /** SIGHUP: reads the config again (a bad file is logged, the running config kept), applies what can change while
   * running, logs one line naming it and what needs a restart (lifecycle/reload.ts). Never stops the daemon. */
  reload(load: () => Config): void
  /** The embedded relay's thread (its stats, new limits), when it runs. */
  embeddedRelay?: RelayThread
  stop(): Promise<void>
}

export interface DaemonDeps {
  log?: Logger
  clock?: Clock
}

/** What the table starts from: made before anything starts, none of it stopped. */
interface Base {
  config: Config
  /** The config the daemon runs with now: a reload replaces it. */
  running: { config: Config }
  log: Logger
  setLogLevel(level: Config['log']['level']): void
  clock: Clock
  random(bytes: number): Uint8Array
  dataDir: string
  late: LateParts
  graceLeftMs(): number
}

// The daemon's start, in order. The probes answer from the first moment; operations wait for the rooms.
const daemonTable = startTable<Base>()
  // Before anything listens or opens a file: a second daemon on this data dir is refused, naming the first.
  .step('data dir lock', ({ dataDir }) => {
    const lock = lockDataDir(dataDir)
    return { stop: () => lock.release() }
  })
  .step('probes', () => {
    const probes = createProbes()
    return { stop: () => probes.stop(), probes }
  })
  .step('access log', ({ log, config }) => ({ accessLog: createAccessLog(log, config.log.access) }))
  .step('http server', async ({ config, probes, log, accessLog }) => {
    const http = await listening(startProbeServer(config, catalogue, probes, log, accessLog), 'http.port', '--http-port')
    log.info({ url: http.url }, 'probes answering on /healthz and /readyz; operations wait for the start')
    return { stop: () => http.close(), http, listenUrl: () => http.url }
  })
  .step('node flags', ({ log }) => (warnMissingNodeFlags(log), {}))
  // Before the books: a standby's secrets are in place while it waits (daemons sharing books share their secrets).
  .step('secrets', ({ config, dataDir, log }) => daemonSecrets(config, dataDir, log))
  // SQLite in the data dir, or PostgreSQL once this daemon holds the active lock (a standby waits in here).
  .step('books', async ({ config, dataDir, log, probes }) => {
    const books = await openBooks(config, dataDir, { log, probes })
    return { stop: () => books.close(), books }
  })
  // A lost lease ends the process (the fence already refuses its money transactions), once the daemon can stop.
  .step('lease', ({ books, late, log }) => {
    if (books.lease) exitOnLeaseLost(books.lease, () => late.stopDaemon(), log)
    return {}
  })
  // The curve first: the verifier's signature thread runs the engine chosen here.
  .step('crypto engine', async ({ config, log }) => (await chooseEngine(config.nostr.crypto, log.child({ room: 'nostr' })), {}))
  .step('event verifier', async ({ log }) => {
    const verifier = await createEventVerifier({ log: log.child({ room: 'nostr' }) })
    return { stop: () => verifier.stop(), verifier }
  })
  .step('embedded relay', async ({ config, dataDir, log }) => {
    if (config.nostr.relays.length > 0) return { relay: undefined }
    const embedded = await startEmbeddedRelay(config, dataDir, log)
    return { stop: async () => (await embedded.relay.close(), embedded.forgetSecret()), relay: embedded.relay }
  })
  .step('relays', ({ config, relay, log }) => {
    const relayUrls = relay ? [relay.url] : [...config.nostr.relays]
    const publicRelays = publicRelaysOf(config, relayUrls)
    warnIfLoopback(publicRelays, log)
    return { relayUrls, publicRelays }
  })
  .step('node', async ({ config, dataDir, books, clock, log, probes }) => {
    const node = await startNode(config, dataDir, { db: books.local.db, clock, log, probes })
    return { stop: () => node.close(), node }
  })
  .step('domain events', () => {
    const events = createEventBus()
    return { stop: () => events.complete(), events }
  })
  // What the rooms announce (extension events, zap receipts) waits here until the Nostr transport sends it.
  .step('announcer', ({ relayUrls, config, clock, log }) => {
    const announcer = createAnnouncer({ relays: relayUrls, guard: { allowLoopback: config.callbacks.allow_loopback }, clock, log: log.child({ room: 'nostr' }) })
    return { stop: () => announcer.stop(), announcer }
  })
  // Wallet, models, NWC, linking, LNURL, CLINK, extensions, metrics, WebRTC, swaps: registered, the registry sealed.
  .steps(openDomainRooms)
  // What the transports took is answered, for as long as [shutdown] grace_seconds allows from the stop's start.
  .step('dispatcher', startDispatcher)
  .step('http operations', attachHttpOperations)
  .step('nostr transport', startTransport)
  .step('clink messages', ({ clink }) => {
    clink.start() // its receipts and answers to parked requests can go out now
    return { stop: () => clink.pause() } // what it sends from now on waits for the next run
  })
  .step('linking enrollment', ({ linking, transport }) => (linking.openEnrollment(transport.nprofile), {}))
  .step('relay probes', ({ probes, relay, late }) => (probes.watchRelays(relayReadiness(relay, () => late.relayStatus())), {}))
  .step('daemon info', ({ http, relayUrls, dataDir, log }) => {
    const daemonInfo = () => ({ url: http.url, relays: relayUrls, pid: process.pid })
    writeDaemonInfo(dataDir, daemonInfo())
    log.info({ url: http.url, dataDir }, 'http listening')
    return { stop: () => removeDaemonInfo(dataDir), daemonInfo }
  })
  // After the ready file: a start does not wait for a large journal's audit, the first metrics sample or the backup
  // schedule, nor compete with them.
  .step('serving', ({ serving, probes }) => (serving(), probes.set('start', true, 'started'), {}))
  .step('backups', ({ dataDir, config, log }) => {
    const backups = startBackupSchedule({ dataDir, settings: config.backup, log: log.child({ room: 'backup' }) })
    return { stop: () => backups?.stop() }
  })

type Started = Awaited<ReturnType<typeof daemonTable.start>>

export async function startDaemon(config: Config, deps: DaemonDeps = {}): Promise<Daemon> {
  const levelled = deps.log ? undefined : levelledLogger(config.log.level, { pid: process.pid }, logStyle(config.log.format))
  const log = deps.log ?? levelled!.log
  const setLogLevel = (level: Config['log']['level']) => (levelled ? levelled.setLevel(level) : (log.level = level))
  const dataDir = path.resolve(config.data_dir)
  ensureDataDir(dataDir)
  const running = { config }
  const started = await daemonTable.start(
    {
      config,
      running,
      log,
      setLogLevel,
      clock: deps.clock ?? systemClock,
      random: bytes => randomBytes(bytes),
      dataDir,
      late: lateParts(),
      graceLeftMs: graceLeft(() => running.config.shutdown.grace_seconds),
    },
    log,
  )
  return daemonOf(started)
}

/** The running daemon, from what its table started. */
function daemonOf({ context, stopAll }: Started): Daemon {
  const { running, log, setLogLevel, probes, http, relay, relayUrls, transport, dataDir, daemonInfo, node, dispatcher, late } = context
  let stopping: Promise<void> | undefined
  const daemon: Daemon = {
    url: http.url,
    relays: relayUrls,
    node,
    dataDir,
    dispatcher,
    reload: load => {
      const setLevel = (level: Config['log']['level']) => (setLogLevel(level), relay?.setLogLevel(level))
      const moves = relay ? {} : { setRelays: relayMover(relayUrls, [transport], () => writeDaemonInfo(dataDir, daemonInfo())) }
      running.config = reloadConfig({ running: running.config, load, log, setLogLevel: setLevel, setHttpLimits: http.setLimits, relay, ...moves })
    },
    ...(relay ? { embeddedRelay: relay } : {}),
    stop: () =>
      (stopping ??= (async () => {
        log.info('stopping')
        probes.set('start', false, 'stopping')
        probes.stop()
        await stopAll()
        log.info('stopped')
      })()),
  }
  late.daemonBuilt(() => daemon.stop())
  return daemon
}
