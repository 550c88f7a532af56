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
  createAccessLog, createDispatcher, createEventBus, createRegistry, Subject, systemClock, systemTimers, type AccessLog,
  type CallOutcome, type Clock, type Dispatcher,
} from './bus/index.js'
import { createMetrics } from './metrics/index.js'
import { createWebRtc } from './webrtc/index.js'
import { hostPaymentHandlers } from './host-api/index.js'
import { relayRefusal, startPaidCallbacks } from './callbacks/index.js'
import { createAuthenticator } from './auth/index.js'
import { createProbes, healthHandlers, type Probes } from './health/index.js'
import { nodeHandlers, nodeNotReadyReason, type LightningNode } from './node/index.js'
import { startNode } from './lifecycle/node.js'
import type { HttpServer } from './transports/http/index.js'
import { consoleFor } from './lifecycle/console.js'
import { extensionWallets } from './lifecycle/extension-wallets.js'
import { daemonSecrets } from './lifecycle/secrets.js'
import { modelHandlers, startModelRoom } from './models/index.js'
import { createRates } from './rates/index.js'
import { hostedExtensions } from './extensions/index.js'
import { createPublisher, startExtensions } from './extensions/host/index.js'
import type { RelayThread } from './relay/index.js'
import { createLinking } from './linking/index.js'
import { createEventVerifier, startNostrTransport, type NostrTransport } from './transports/nostr/index.js'
import { chooseEngine } from './nostr-crypto/index.js'
import { createNwc } from './nwc/index.js'
import { createLnurl } from './lnurl/index.js'
import { createClink } from './clink/index.js'
import { removeDaemonInfo, writeDaemonInfo } from './daemon-files.js'
import { nostrTransportLimits, rateProviders } from './lifecycle/options.js'
import { openWallet } from './lifecycle/wallet.js'
import { createSwaps } from './swaps/index.js'
import { levelledLogger } from './lifecycle/log-levels.js'
import { relayMover, reloadConfig } from './lifecycle/reload.js'
import { startProbeServer } from './lifecycle/probe-server.js'
import { warnMissingNodeFlags } from './lifecycle/node-flags.js'
import { startBackupSchedule } from './backup/index.js'
import { exitOnLeaseLost, openBooks } from './lifecycle/books.js'
import { embeddedRelayView, relayReadiness, startEmbeddedRelay } from './lifecycle/embedded-relay.js'
import { unixSeconds } from './units/index.js'
import { logStyle } from './logging/index.js'
import { publicRelaysOf, warnIfLoopback } from './lifecycle/public-relays.js'
import { apiDocsHandlers } from './api-docs/index.js'
import { roomStack, type RoomStack } from './lifecycle/room-stack.js'
import { walletPageHandlers } from './wallet-page/index.js'

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

/** Extension ids named by the catalogue (restaurant, payroll): the ones accounts can enable. */
const extensionIds = [...new Set(catalogue.flatMap(entry => ('extension' in entry && entry.extension ? [entry.extension] : [])))]

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
  const wallet = await openWallet(config, {
    books, tokens, random, clock, relayUrls, publicRelays: publicRelays.urls, serviceUrl: () => config.http.public_url ?? http.url, extensions: extensionIds, node, emit: event => events.emit(event), log: log.child({ room: 'wallet' }),
  })
  const defaultApp = wallet.defaultApp
  log.info({ app: defaultApp.name, pubkey: defaultApp.nostr_public_key }, 'default app ready')
  // Nothing leaves a wallet before the books are proven; a large journal's audit and the first metrics sample (it
  // asks the node for balances) wait for the ready file (below).
  let serving!: () => void
  const served = new Promise<void>(resolve => (serving = resolve))
  const audit = await wallet.auditAtStart(store.file, { backgroundAfter: served })
  rooms.started('start audit', () => audit.cancel())

  const { models, recordings } = await startModelRoom(config.models, {
    sql: books.sql,
    dataDir,
    clock,
    random,
    log: log.child({ room: 'models' }),
    env: process.env,
  })
  // Downloads and transcriptions are aborted, not awaited (they may run for minutes); the HTTP stop aborts them too.
  rooms.started('models', async () => {
    await models.close()
    await recordings.close()
  })

  const registry = createRegistry(catalogue)
  registry.register(healthHandlers({ notReadyReason: () => nodeNotReadyReason(node) }), 'health')
  registry.register(apiDocsHandlers(), 'api-docs')
  registry.register(walletPageHandlers(), 'wallet-page')
  registry.register(wallet.handlers, 'wallet')
  const nwc = await createNwc({
    sql: books.sql, wallet, node, relays: publicRelays.urls, clock, random, emit: events.emit, log: log.child({ room: 'nwc' }),
  })
  registry.register(nwc.handlers, 'nwc')
  const linking = await createLinking({
    sql: books.sql,
    accounts: wallet.accounts,
    nostr: wallet.nostr,
    tokens,
    clock,
    random,
    log: log.child({ room: 'linking' }),
    dataDir,
    defaultAppId: defaultApp.id,
    allowHttpUpgrade: config.http.allow_upgrade,
    serviceUrl: () => config.http.public_url ?? http.url,
    // BatchUser runs its entries through the dispatcher, which is built once every handler is registered.
    dispatcher: { resolve: op => dispatcher.resolve(op), dispatch: call => dispatcher.dispatch(call) },
  })
  registry.register(linking.handlers, 'linking')
  registry.register(modelHandlers(models, recordings), 'models')
  registry.register(nodeHandlers({
    node,
    books: wallet.booked,
    settlementApplied: (index, withinMs) => wallet.settlementApplied(index, withinMs),
  }), 'node')
  // LNURL and zaps; built before the wallet starts so payments credited at start-up still get zap receipts.
  // A zap request names the relays its receipt goes to: those are caller URLs and pass the SSRF guard.
  const zapPublisher = createPublisher(relayUrls, log.child({ room: 'lnurl' }), () => unixSeconds(clock.now()), {
    guard: { allowLoopback: config.callbacks.allow_loopback },
  })
  rooms.started('zap publisher', () => zapPublisher.stop())
  const lnurl = createLnurl({
    sql: books.sql,
    node,
    accounts: wallet.accounts,
    wallet,
    defaultAppId: defaultApp.id,
    events$: events.events$,
    publisher: zapPublisher,
    publicUrl: config.http.public_url,
    allowLoopback: config.lnurl.allow_loopback,
    listenUrl: () => http.url,
    metaText: config.lnurl.meta_text,
    callbacks: { perMinute: config.lnurl.callbacks_per_minute, burst: config.lnurl.callbacks_burst },
    fees: { serviceFeeBps: config.fees.service_fee_bps, serviceFeeFloorSats: config.fees.service_fee_floor_sats },
    outbound: { allowLoopback: config.callbacks.allow_loopback },
    random,
    clock,
    log: log.child({ room: 'lnurl' }),
  })
  rooms.started('lnurl', () => lnurl.stop())
  registry.register(lnurl.handlers, 'lnurl')
  const clink = await createClink({
    sql: books.sql,
    wallet,
    node,
    events$: events.events$,
    emit: event => events.emit(event),
    relayUrl: () => publicRelays.urls[0]!,
    clock,
    random,
    log: log.child({ room: 'clink' }),
    allowLoopbackCallbacks: config.callbacks.allow_loopback,
    zapRelayRefusal: relayRefusal(relayUrls, { allowLoopback: config.callbacks.allow_loopback }),
    debitRequestLifetimeMs: config.clink.debit_request_seconds * 1000,
    enroll: { powBits: config.clink.enroll_pow_bits, maxDeltaMs: config.clink.enroll_max_delta_ms },
  })
  rooms.started('clink', () => clink.stop())
  registry.register(clink.handlers, 'clink')
  const rates = createRates({
    sql: books.sql,
    providers: rateProviders(config.rates),
    timeoutMs: config.rates.timeout_ms,
    clock,
    log: log.child({ room: 'rates' }),
  })
  const extensions = await startExtensions(hostedExtensions, {
    sql: books.sql,
    config,
    clock,
    log,
    rates,
    relays: relayUrls,
    events$: events.events$,
    wallets: extensionWallets(wallet, clock),
    paidInvoicesTagged: tag => wallet.paidInvoicesTagged(tag),
  })
  rooms.started('extensions', () => extensions.stop())
  for (const { id, running } of extensions.started) registry.register(running.handlers, `extension ${id}`)
  // The dispatcher is built once the registry is sealed; metrics take its outcomes through this bridge.
  const outcomes = new Subject<CallOutcome>()
  // The Nostr transport starts after the metrics room (and HTTP, which may be scraped first): none until then.
  let relayStatus = (): { url: string; connected: boolean }[] => []
  const metrics = createMetrics({
    dataDir,
    outcomes$: outcomes,
    events$: events.events$,
    node,
    sql: books.sql,
    wallet,
    clock,
    log: log.child({ room: 'metrics' }),
    config: config.metrics,
    relays: () => relayStatus(),
    embeddedRelayConnections: () => relay?.stats()?.connections,
    firstSampleAfter: served,
  })
  rooms.started('metrics', () => metrics.stop())
  registry.register(metrics.handlers, 'metrics')
  const webrtc = createWebRtc({
    settings: config.webrtc,
    metricsFile: (request, callerAppId) => metrics.metricsFile(request, callerAppId),
    log: log.child({ room: 'webrtc' }),
  })
  rooms.started('webrtc', () => webrtc.stop()) // its peers' channels read the metrics files: they close first
  registry.register(webrtc.handlers, 'webrtc')
  registry.register(hostPaymentHandlers({ wallet, rates }), 'host API')
  const swaps = await createSwaps({
    sql: books.sql,
    config: config.swaps,
    backend: config.node.backend,
    network: config.node.network,
    node,
    wallet,
    random,
    now: () => clock.now(),
    timers: systemTimers,
    log: log.child({ room: 'swaps' }),
  })
  registry.register(swaps.handlers, 'swaps')
  wallet.attachSwapPayer(swaps.addressPayer)
  const paidCallbacks = startPaidCallbacks({
    events$: events.events$,
    invoice: hash => wallet.invoiceByPaymentHash(hash),
    savedCallbackUrl: async walletId => (await wallet.accounts.appUserOf(walletId))?.callback_url,
    guard: { allowLoopback: config.callbacks.allow_loopback },
    log: log.child({ room: 'callbacks' }),
  })
  rooms.started('paid callbacks', () => paidCallbacks.unsubscribe())
  // After every listener of the event stream is subscribed: catch-up credits announce themselves to them. So the
  // wallet stops before they do, and they hear everything it does until then.
  rooms.started('wallet', () => wallet.stop())
  await wallet.start()
  // After the wallet: a resumed swap finds the wallet following the node (pending payments resolve in the background).
  rooms.started('swaps', () => swaps.stop())
  await swaps.start()
  // Every catalogue entry has its handler by now: a missing one is a wiring fault, refused at start, not at a call.
  registry.seal({ requireAll: true })
  log.info({ operations: catalogue.length }, `${catalogue.length} operations registered`)

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
  dispatcher.outcomes$.subscribe(outcomes)
  rooms.started('dispatcher', () => dispatcher.drain()) // what the transports took is answered

  http.attach(dispatcher, consoleFor(config, adminToken, log, () => ({
    mock: Boolean(node.mock),
    relays: nostr?.relayStatus() ?? [],
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
  let nostr: NostrTransport | undefined
  const transport = await startNostrTransport({
      relays: relayUrls,
      ...(publicRelays.configured ? { publicRelays: publicRelays.urls } : {}),
      enrollDifficulty: config.clink.enroll_pow_bits,
      beaconAbout: { operator: config.clink.operator, website: config.clink.beacon_website, description: config.clink.beacon_description },
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
      clink: clink.server,
      nwc: nwc.relayView,
      accessLog,
  })
  nostr = transport
  rooms.started('nostr transport', () => transport.stop()) // the requests it took are answered before the relays close
  relayStatus = () => transport.relayStatus()
  clink.start() // its receipts and answers to parked requests can go out now
  rooms.started('clink messages', () => clink.pause()) // what it sends from now on waits for the next run
  linking.openEnrollment(transport.nprofile)
  probes.watchRelays(relayReadiness(relay, () => transport.relayStatus()))
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
