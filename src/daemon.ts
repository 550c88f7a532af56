// The composition root: builds every part from the config and starts them in order; each room's stop is pushed on a
// stack as it starts (lifecycle/room-stack.ts), so they stop in reverse, and a failed start stops what it started.
// Only this file knows every room.
import path from 'node:path'
import { randomBytes } from 'node:crypto'
import type { Logger } from 'pino'
import { catalogue } from '../schema/catalogue.js'
import { listening, type Config } from './config/index.js'
import { ensureDataDir, lockDataDir } from './store/index.js'
import {
  createAccessLog, createDispatcher, createEventBus, systemClock, type AccessLog, type Clock, type Dispatcher,
} from './bus/index.js'
import { createAuthenticator } from './auth/index.js'
import { createProbes, type Probes } from './health/index.js'
import type { LightningNode } from './node/index.js'
import { startNode } from './lifecycle/node.js'
import type { HttpServer } from './transports/http/index.js'
import { consoleFor } from './lifecycle/console.js'
import { daemonSecrets } from './lifecycle/secrets.js'
import type { RelayThread } from './relay/index.js'
import { createAnnouncer, createEventVerifier, startNostrTransport, type NostrTransport } from './transports/nostr/index.js'
import { chooseEngine } from './nostr-crypto/index.js'
import { removeDaemonInfo, writeDaemonInfo } from './daemon-files.js'
import { nostrTransportLimits } from './lifecycle/options.js'
import { levelledLogger } from './lifecycle/log-levels.js'
import { relayMover, reloadConfig } from './lifecycle/reload.js'
import { startProbeServer } from './lifecycle/probe-server.js'
import { warnMissingNodeFlags } from './lifecycle/node-flags.js'
import { startBackupSchedule } from './backup/index.js'
import { exitOnLeaseLost, openBooks } from './lifecycle/books.js'
import { embeddedRelayView, relayReadiness, startEmbeddedRelay } from './lifecycle/embedded-relay.js'
import { logStyle } from './logging/index.js'
import { publicRelaysOf, warnIfLoopback } from './lifecycle/public-relays.js'
import { roomStack, type RoomStack } from './lifecycle/room-stack.js'
import { openDomainRooms } from './lifecycle/domain-rooms.js'

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


// The probes answer from the first moment; operations wait for the rooms.
export async function startDaemon(config: Config, deps: DaemonDeps = {}): Promise<Daemon> {
  const levelled = deps.log ? undefined : levelledLogger(config.log.level, { pid: process.pid }, logStyle(config.log.format))
  const log = deps.log ?? levelled!.log
  const setLogLevel = (level: Config['log']['level']) => (levelled ? levelled.setLevel(level) : (log.level = level))
  // Before anything listens or opens a file: a second daemon on this data dir is refused, naming the first.
  const dataDir = path.resolve(config.data_dir)
  ensureDataDir(dataDir)
  const rooms = roomStack(log)
  const dataDirLock = lockDataDir(dataDir)
  rooms.started('data dir lock', () => dataDirLock.release())
  const probes = createProbes()
  rooms.started('probes', () => probes.stop())
  const accessLog = createAccessLog(log, config.log.access)
  try {
    const http = await listening(startProbeServer(config, catalogue, probes, log, accessLog), 'http.port', '--http-port')
    rooms.started('http server', () => http.close())
    log.info({ url: http.url }, 'probes answering on /healthz and /readyz; operations wait for the start')
    warnMissingNodeFlags(log)
    return await startRooms(config, { log, clock: deps.clock, probes, http, setLogLevel, accessLog, dataDir, rooms })
  } catch (err) {
    await rooms.stopAll()
    throw err
  }
}

interface StartContext {
  log: Logger
  clock?: Clock
  probes: Probes
  http: HttpServer
  accessLog: AccessLog | undefined
  setLogLevel(level: Config['log']['level']): void
  dataDir: string
  /** Where each room started is told how it stops. */
  rooms: RoomStack
}

async function startRooms(config: Config, { log, probes, http, setLogLevel, accessLog, dataDir, rooms, ...deps }: StartContext): Promise<Daemon> {
  const clock = deps.clock ?? systemClock
  const random = (bytes: number) => randomBytes(bytes)
  // A stop waits for the calls in flight for [shutdown] grace_seconds in all, counted from its first wait.
  let stopBy: number | undefined
  const graceLeftMs = () => Math.max(0, (stopBy ??= Date.now() + config.shutdown.grace_seconds * 1000) - Date.now())

  // Before the books: a standby's secrets are in place while it waits (daemons sharing books share their secrets).
  const { adminToken, tokens } = daemonSecrets(config, dataDir, log)
  // SQLite in the data dir, or PostgreSQL once this daemon holds the active lock (a standby waits in here).
  const books = await openBooks(config, dataDir, { log, probes })
  rooms.started('books', () => books.close())
  const store = books.local
  // A lost lease ends the process (the fence already refuses its money transactions); set once the daemon can stop.
  let stopServing = async () => {}
  if (books.lease) exitOnLeaseLost(books.lease, () => stopServing(), log)

  // The curve first: the verifier's signature thread runs the engine chosen here.
  await chooseEngine(config.nostr.crypto, log.child({ room: 'nostr' }))
  const verifier = await createEventVerifier({ log: log.child({ room: 'nostr' }) })
  rooms.started('event verifier', () => verifier.stop())
  const embedded = config.nostr.relays.length === 0 ? await startEmbeddedRelay(config, dataDir, log) : undefined
  const relay = embedded?.relay
  if (embedded) {
    rooms.started('embedded relay', async () => {
      await embedded.relay.close()
      embedded.forgetSecret()
    })
  }
  const relayUrls = relay ? [relay.url] : [...config.nostr.relays]
  const publicRelays = publicRelaysOf(config, relayUrls)
  warnIfLoopback(publicRelays, log)

  const node = await startNode(config, dataDir, { db: store.db, clock, log, probes })
  rooms.started('node', () => node.close())

  const events = createEventBus()
  rooms.started('domain events', () => events.complete())
  // What the rooms announce (extension events, zap receipts) waits here until the Nostr transport sends it.
  const announcer = createAnnouncer({ relays: relayUrls, guard: { allowLoopback: config.callbacks.allow_loopback }, clock, log: log.child({ room: 'nostr' }) })
  rooms.started('announcer', () => announcer.stop())
  let lateDispatcher: Dispatcher | undefined
  // The relays the Nostr transport serves on, once it has started (metrics and the console ask before).
  let relayStatus: NostrTransport['relayStatus'] = () => []
  const domain = await openDomainRooms(
    config,
    { log, clock, random, dataDir, rooms, books, tokens, node, events, relay, relayUrls, publicRelays, listenUrl: () => http.url, announcer },
    { dispatcher: () => lateDispatcher!, relayStatus: () => relayStatus() },
  )
  const { wallet, defaultApp, serving, models, recordings, registry, nwc, linking, clink, outcomes, webrtc } = domain

  const authenticate = createAuthenticator({
    adminToken,
    metricsToken: config.auth.metrics_token,
    tokens,
    directory: { ...wallet.directory, userForPubkey: wallet.nostr.userForPubkey },
    adminPubkey: linking.adminPubkey,
    adminOnlyExtensions: config.extensions.admin_only,
    nwc: nwc.directory,
    walletLinkFailures: { perMinute: config.auth.wallet_link_failures_per_minute, burst: config.auth.wallet_link_failures_burst },
    now: () => clock.now(),
  })
  const dispatcher = createDispatcher({ registry, authenticate, log, clock, accessLog, testMode: Boolean(node.mock) })
  lateDispatcher = dispatcher
  dispatcher.outcomes$.subscribe(outcomes)
  // What the transports took is answered, for as long as [shutdown] grace_seconds allows from the stop's start.
  rooms.started('dispatcher', async () => {
    const running = await dispatcher.drain(graceLeftMs())
    if (running.length > 0) log.warn({ running, graceSeconds: config.shutdown.grace_seconds }, 'stopping with calls still in flight ([shutdown] grace_seconds passed): they end as a crash would')
  })

  http.attach(dispatcher, consoleFor(config, adminToken, log, () => ({
    mock: Boolean(node.mock),
    relays: relayStatus(),
    embeddedRelay: embeddedRelayView(relay, config.nostr),
    publicRelays: { urls: [...publicRelays.urls], loopbackOnly: publicRelays.loopbackOnly() },
  })))
  // No new request once the relays are gone: HTTP stops accepting (long model downloads are aborted, not awaited).
  rooms.started('http operations', async () => {
    const closed = http.close()
    await models.close()
    await recordings.close()
    await closed
  })
  const transport = await startNostrTransport({
      relays: relayUrls,
      ...(publicRelays.configured ? { publicRelays: publicRelays.urls } : {}),
      enrollDifficulty: config.clink.enroll_pow_bits,
      beaconAbout: {
      operator: config.clink.operator,
      website: config.clink.beacon_website,
      description: config.clink.beacon_description,
      avatarUrl: config.clink.beacon_avatar_url,
    },
      dispatcher,
      claims: { sql: books.sql, local: books.raw },
      apps: () => wallet.accounts.apps(),
      defaultAppId: defaultApp.id,
      users: { appUserOf: userId => wallet.accounts.appUserOf(userId) },
      events$: events.events$,
      keyPushes$: webrtc.pushes$,
      verifier,
      clock,
      log: log.child({ room: 'nostr' }),
      dataDir,
      ...nostrTransportLimits(config),
      kinds: [clink.nostrKinds, nwc.nostrKinds],
      accessLog,
      announcer,
  })
  rooms.started('nostr transport', () => transport.stop(graceLeftMs())) // the requests it took are answered before the relays close
  relayStatus = () => transport.relayStatus()
  clink.start() // its receipts and answers to parked requests can go out now
  rooms.started('clink messages', () => clink.pause()) // what it sends from now on waits for the next run
  linking.openEnrollment(transport.nprofile)
  probes.watchRelays(relayReadiness(relay, () => relayStatus()))
  const daemonInfo = () => ({ url: http.url, relays: relayUrls, pid: process.pid })
  writeDaemonInfo(dataDir, daemonInfo())
  rooms.started('daemon info', () => removeDaemonInfo(dataDir))
  log.info({ url: http.url, dataDir }, 'http listening')
  // After the ready file: a start does not wait for the audit worker or for warming up, nor compete with them.
  serving()
  probes.set('start', true, 'started')
  const backups = startBackupSchedule({ dataDir, settings: config.backup, log: log.child({ room: 'backup' }) })
  rooms.started('backups', () => backups?.stop())
  setImmediate(() => node.warmUp?.())

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
      config = reloadConfig({ running: config, load, log, setLogLevel: setLevel, setHttpLimits: http.setLimits, relay, ...moves })
    },
    ...(relay ? { embeddedRelay: relay } : {}),
    stop: () =>
      (stopping ??= (async () => {
        log.info('stopping')
        probes.set('start', false, 'stopping')
        probes.stop()
        await rooms.stopAll()
        log.info('stopped')
      })()),
  }
  stopServing = () => daemon.stop()
  return daemon
}
