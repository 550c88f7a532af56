// The composition root: builds every part from the config, starts them in order and stops them in reverse.
// Only this file knows every room.
import fs from 'node:fs'
import path from 'node:path'
import { randomBytes } from 'node:crypto'
import type { Logger } from 'pino'
import { catalogue } from '../schema/catalogue.js'
import { ensureSecret, listening, type Config } from './config/index.js'
import { openStore, ensureDataDir } from './store/index.js'
import { startCheckpointWorker } from './store/checkpointer.js'
import { createEventBus } from './bus/events.js'
import { createRegistry } from './bus/registry.js'
import { createDispatcher, type CallOutcome, type Dispatcher } from './bus/dispatcher.js'
import { createAccessLog, type AccessLog } from './bus/access-log.js'
import { createMetrics } from './metrics/index.js'
import { createWebRtc } from './webrtc/index.js'
import { hostPaymentHandlers } from './host-api/index.js'
import { startPaidCallbacks } from './callbacks/index.js'
import { Subject } from './bus/rx.js'
import { systemClock, type Clock } from './bus/context.js'
import { createAuthenticator, createTokenSigner } from './auth/index.js'
import { createWallet } from './wallet/index.js'
import { createProbes, healthHandlers, type Probes } from './health/index.js'
import { createNode, mockModeWarning, nodeHandlers, nodeNotReadyReason, nodeOptions, type LightningNode } from './node/index.js'
import type { HttpServer } from './transports/http/index.js'
import { createConsole } from './console/index.js'
import { modelHandlers, startModelRoom } from './models/index.js'
import { createEventVerifier } from './transports/nostr/verify.js'
import { createRates } from './rates/index.js'
import { hostedExtensions, startExtensions } from './extensions/index.js'
import { relayLimitsOf, startRelayThread, type RelayThread } from './threads/relay-thread.js'
import { trustRelay } from './transports/nostr/relay-credential.js'
import { nostrAccounts } from './wallet/index.js'
import { createLinking } from './linking/index.js'
import { liveStreamHandlers, startNostrTransport, type NostrTransport } from './transports/nostr/index.js'
import { createNwc } from './nwc/index.js'
import { createLnurl } from './lnurl/index.js'
import { createPublisher } from './extensions/publisher.js'
import { createClink, debitNpubLimits } from './clink/index.js'
import { daemonInfoFile, adminTokenFile } from './daemon-files.js'
import { createSwaps } from './swaps/index.js'
import { levelledLogger } from './lifecycle/log-levels.js'
import { reloadConfig } from './lifecycle/reload.js'
import { startProbeServer } from './lifecycle/probe-server.js'
import { startBackupSchedule } from './backup/index.js'

export interface Daemon {
  url: string
  /** The relays the daemon serves on (the embedded one in the offline default). */
  relays: string[]
  node: LightningNode
  dataDir: string
  dispatcher: Dispatcher
  /** Operations still answering "not implemented". */
  notImplemented: string[]
  /**
   * SIGHUP: reads the config again (`load` throws on a bad file: logged, the running config kept), applies what
   * can change while running and logs one line naming it and what needs a restart. Never stops the daemon.
   */
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

export { daemonInfoFile, adminTokenFile } from './daemon-files.js'

// ---- lifecycle (h26ops): the probes answer from the first moment; operations wait for the rooms. ----
export async function startDaemon(config: Config, deps: DaemonDeps = {}): Promise<Daemon> {
  const levelled = deps.log ? undefined : levelledLogger(config.log.level, { pid: process.pid })
  const log = deps.log ?? levelled!.log
  const setLogLevel = (level: Config['log']['level']) => (levelled ? levelled.setLevel(level) : (log.level = level))
  const probes = createProbes()
  const accessLog = createAccessLog(log, config.log.access)
  const http = await listening(startProbeServer(config, catalogue, probes, log, accessLog), 'http.port', '--http-port')
  log.info({ url: http.url }, 'probes answering on /healthz and /readyz; operations wait for the start')
  try {
    return await startRooms(config, { log, clock: deps.clock, probes, http, setLogLevel, accessLog })
  } catch (err) {
    probes.stop()
    await http.close()
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
}
// ---- end lifecycle ----

async function startRooms(config: Config, { log, probes, http, setLogLevel, accessLog, ...deps }: StartContext): Promise<Daemon> {
  const clock = deps.clock ?? systemClock
  const dataDir = path.resolve(config.data_dir)
  ensureDataDir(dataDir)

  // One worker checkpoints the ledger's WAL off the event loop (the embedded relay's thread checkpoints its own).
  const checkpoints = startCheckpointWorker({ log: log.child({ room: 'store' }) })
  const store = openStore({ dataDir, synchronous: config.store.synchronous, checkpoints })
  const closeStore = () => (store.close(), checkpoints.stop())
  if (store.applied.length > 0) log.info({ migrations: store.applied }, 'database migrated')
  probes.set('migrations', true, `${store.applied.length} applied at this start`)
  probes.watchStore(store.db)

  const adminToken = config.auth.admin_token ?? secretFile(path.join(dataDir, adminTokenFile), log, 'admin token')
  const jwtSecret = config.auth.jwt_secret ?? secretFile(path.join(dataDir, '.jwt_secret'), log, 'token signing secret')
  const tokens = createTokenSigner(jwtSecret)

  // The offline default: with no external relay configured, the daemon runs its own on loopback, on a thread of its
  // own; the daemon's links show it a per-process secret (reserved slots, none of a stranger's caps).
  const verifier = await createEventVerifier({ log: log.child({ room: 'nostr' }) })
  let relay: RelayThread | undefined
  let forgetRelaySecret = () => {}
  if (config.nostr.relays.length === 0) {
    const ownSecret = randomBytes(32).toString('hex')
    relay = await listening(
      startRelayThread({
        host: '127.0.0.1',
        port: config.nostr.embedded_relay_port,
        dataDir,
        limits: relayLimitsOf(config.nostr),
        ownSecret,
        // The relay thread logs on its own (it also runs alone, `relaypay relay`) and names its room itself.
        log,
        logLevel: config.log.level,
      }),
      'nostr.embedded_relay_port',
    )
    forgetRelaySecret = trustRelay(relay.url, ownSecret)
    log.info({ url: relay.url, verifier: verifier.engine }, 'embedded relay listening')
  }
  const relayUrls = relay ? [relay.url] : config.nostr.relays

  let node: LightningNode
  try {
    node = await createNode(
      nodeOptions(config.node, dataDir, process.env),
      { db: store.db, clock, random: bytes => randomBytes(bytes), log: log.child({ room: 'node' }) },
    )
  } catch (err) {
    await relay?.close()
    closeStore()
    throw err
  }
  const nodeInfo = await node.getInfo()
  log.info({ backend: config.node.backend, network: nodeInfo.network, pubkey: nodeInfo.pubkey }, 'lightning node ready')
  probes.watchNode(() => nodeNotReadyReason(node), {
    everyMs: config.health.node_check_seconds * 1000,
    timeoutMs: config.health.node_timeout_seconds * 1000,
  })
  if (node.mock) log.warn(mockModeWarning)

  const events = createEventBus()
  const wallet = createWallet({
    db: store.db,
    tokens,
    random: bytes => randomBytes(bytes),
    now: () => clock.now(),
    fees: {
      serviceFeeBps: config.fees.service_fee_bps,
      serviceFeeFloorSats: config.fees.service_fee_floor_sats,
      routingFeeLimitBps: config.fees.routing_fee_limit_bps,
      routingFeeFloorSats: config.fees.routing_fee_floor_sats,
      internalUserFeeBps: config.fees.internal_user_fee_bps,
      internalRootFeeBps: config.fees.internal_root_fee_bps,
    },
    relayUrl: () => relayUrls[0]!,
    bridgeUrl: config.apps.bridge_url,
    allowBalanceMigration: config.apps.allow_balance_migration,
    extensions: extensionIds,
    defaultAppName: config.apps.default_app_name,
    allowLoopbackCallbacks: config.callbacks.allow_loopback,
    // PayInvoice / PayAppUserInvoice with debit_npub count against that key's CLINK debit grant.
    debitLimit: debitNpubLimits(store.db),
    node,
    emit: event => events.emit(event),
    log: log.child({ room: 'wallet' }),
  })
  const defaultApp = wallet.defaultApp
  log.info({ app: defaultApp.name, pubkey: defaultApp.nostr_public_key }, 'default app ready')
  // Nothing leaves a wallet before the books are proven; a large journal's audit waits for the ready file (below).
  let serving!: () => void
  const audit = wallet.auditAtStart(store.file, { backgroundAfter: new Promise<void>(resolve => (serving = resolve)) })

  const { models, recordings } = await startModelRoom(config.models, {
    db: store.db,
    dataDir,
    clock,
    random: bytes => randomBytes(bytes),
    log: log.child({ room: 'models' }),
    env: process.env,
  })

  const registry = createRegistry(catalogue)
  registry.register(healthHandlers({ notReadyReason: () => nodeNotReadyReason(node) }), 'health')
  registry.register(wallet.handlers, 'wallet')
  const nwc = createNwc({ db: store.db, wallet, node, relays: relayUrls, clock, random: bytes => randomBytes(bytes), log: log.child({ room: 'nwc' }) })
  registry.register(nwc.handlers, 'nwc')
  const nostrUsers = nostrAccounts({ db: store.db, accounts: wallet.accounts, random: bytes => randomBytes(bytes) })
  const linking = createLinking({
    db: store.db,
    accounts: wallet.accounts,
    nostr: nostrUsers,
    tokens,
    clock,
    random: bytes => randomBytes(bytes),
    log: log.child({ room: 'linking' }),
    dataDir,
    defaultAppId: defaultApp.id,
    allowHttpUpgrade: config.http.allow_upgrade,
    serviceUrl: () => config.http.public_url ?? http.url,
    // BatchUser runs its entries through the dispatcher, which is built once every handler is registered.
    dispatcher: { resolve: op => dispatcher.resolve(op), dispatch: call => dispatcher.dispatch(call) },
  })
  registry.register(linking.handlers, 'linking')
  registry.register(liveStreamHandlers(), 'nostr')
  registry.register(modelHandlers(models, recordings), 'models')
  registry.register(nodeHandlers({ node, usersBalanceMsat: () => wallet.accounts.usersBalanceMsat() }), 'node')
  // LNURL and zaps; built before the wallet starts so payments credited at start-up still get zap receipts.
  // A zap request names the relays its receipt goes to: those are caller URLs and pass the SSRF guard.
  const zapPublisher = createPublisher(relayUrls, log.child({ room: 'lnurl' }), () => Math.floor(clock.now() / 1000), {
    guard: { allowLoopback: config.callbacks.allow_loopback },
  })
  const lnurl = createLnurl({
    db: store.db,
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
    random: bytes => randomBytes(bytes),
    clock,
    log: log.child({ room: 'lnurl' }),
  })
  registry.register(lnurl.handlers, 'lnurl')
  const clink = createClink({
    db: store.db,
    wallet,
    node,
    events$: events.events$,
    emit: event => events.emit(event),
    relayUrl: () => relayUrls[0]!,
    clock,
    random: bytes => randomBytes(bytes),
    log: log.child({ room: 'clink' }),
    allowLoopbackCallbacks: config.callbacks.allow_loopback,
    debitRequestLifetimeMs: config.clink.debit_request_seconds * 1000,
  })
  registry.register(clink.handlers, 'clink')
  const rates = createRates({
    db: store.db,
    // Only the providers the operator named: no public API is contacted by default.
    providers: {
      coinbase: false, kraken: false, bitstamp: false, binance: false, bitfinex: false, yadio: false, coingecko: false,
      ...config.rates.providers,
    },
    timeoutMs: config.rates.timeout_ms,
    clock,
    log: log.child({ room: 'rates' }),
  })
  const extensions = await startExtensions(hostedExtensions, {
    db: store.db,
    config,
    clock,
    log,
    rates,
    relays: relayUrls,
    events$: events.events$,
    wallets: {
      get: id => {
        const user = wallet.accounts.userById(id)
        return user && { id: user.id, accountId: user.account_id, name: user.name, balanceMsat: user.balance_msat }
      },
      createInvoice: (walletId, request) => wallet.createInvoiceFor(walletId, request),
      payInvoice: (walletId, paymentRequest) => wallet.payInvoiceFor(walletId, paymentRequest),
      forgetExpiredInvoice: (paymentHash, tag) => wallet.forgetExpiredInvoice(paymentHash, tag, clock.now()),
    },
    paidInvoicesTagged: tag => wallet.paidInvoicesTagged(tag),
  })
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
    db: store.db,
    clock,
    log: log.child({ room: 'metrics' }),
    config: config.metrics,
    relays: () => relayStatus(),
    embeddedRelayConnections: () => relay?.stats()?.connections,
  })
  registry.register(metrics.handlers, 'metrics')
  const webrtc = createWebRtc({
    settings: config.webrtc,
    metricsFile: (request, callerAppId) => metrics.metricsFile(request, callerAppId),
    log: log.child({ room: 'webrtc' }),
  })
  registry.register(webrtc.handlers, 'webrtc')
  registry.register(hostPaymentHandlers({ wallet, rates }), 'host API')
  const swaps = await createSwaps({
    db: store.db,
    config: config.swaps,
    backend: config.node.backend,
    network: config.node.network,
    node,
    wallet,
    random: bytes => randomBytes(bytes),
    now: () => clock.now(),
    timers: {
      after(ms, fn) {
        const timer = setTimeout(fn, ms)
        return () => clearTimeout(timer)
      },
    },
    log: log.child({ room: 'swaps' }),
  })
  registry.register(swaps.handlers, 'swaps')
  wallet.attachSwapPayer(swaps.addressPayer)
  const paidCallbacks = startPaidCallbacks({
    events$: events.events$,
    invoice: hash => wallet.invoiceByPaymentHash(hash),
    savedCallbackUrl: walletId => wallet.accounts.appUserOf(walletId)?.callback_url,
    guard: { allowLoopback: config.callbacks.allow_loopback },
    log: log.child({ room: 'callbacks' }),
  })
  // After every listener of the event stream is subscribed: catch-up credits announce themselves to them.
  await wallet.start()
  // After the wallet: a resumed swap finds the wallet following the node (pending payments resolve in the background).
  await swaps.start()
  const notImplemented = registry.seal()
  log.info(
    { implemented: catalogue.length - notImplemented.length, notImplemented: notImplemented.length, missing: notImplemented },
    `${notImplemented.length} of ${catalogue.length} operations are not implemented yet`,
  )

  const authenticate = createAuthenticator({
    adminToken,
    metricsToken: config.auth.metrics_token,
    tokens,
    directory: { ...wallet.directory, userForPubkey: nostrUsers.userForPubkey },
    adminPubkey: linking.adminPubkey,
    adminOnlyExtensions: config.extensions.admin_only,
  })
  const dispatcher = createDispatcher({ registry, authenticate, log, clock, accessLog })
  dispatcher.outcomes$.subscribe(outcomes)

  http.attach(dispatcher, config.console.enabled ? createConsole({
    adminToken,
    config: config.console,
    log: log.child({ room: 'console' }),
    about: () => ({
      backend: config.node.backend,
      network: config.node.network,
      mock: Boolean(node.mock),
      relays: nostr?.relayStatus() ?? [],
      embeddedRelay: relay ? { limits: { maxStoreBytes: config.nostr.relay_max_store_bytes, maxConnections: config.nostr.relay_max_connections }, stats: relay.stats() } : undefined,
    }),
  }) : undefined)
  let nostr: NostrTransport
  try {
    nostr = await startNostrTransport({
      relays: relayUrls,
      dispatcher,
      db: store.db,
      apps: () => wallet.accounts.apps(),
      defaultAppId: defaultApp.id,
      users: { appUserOf: userId => wallet.accounts.appUserOf(userId) },
      events$: events.events$,
      keyPushes$: webrtc.pushes$,
      verifier,
      clock,
      log: log.child({ room: 'nostr' }),
      dataDir,
      maxEventAgeSeconds: config.nostr.max_event_age_seconds,
      maxEventBytes: config.nostr.max_event_bytes,
      maxContentLength: config.nostr.max_content_length,
      fees: { serviceFeeFloor: config.fees.service_fee_floor_sats, serviceFeeBps: config.fees.service_fee_bps },
      clink: clink.server,
    })
  } catch (err) {
    await http.close()
    await relay?.close()
    closeStore()
    throw err
  }
  relayStatus = () => nostr.relayStatus()
  linking.openEnrollment(nostr.nprofile)
  await nwc.start({ verifier, events$: events.events$, maxEventAgeSeconds: config.nostr.max_event_age_seconds, accessLog })
  probes.watchRelays(() => {
    if (relay) return { ok: true, detail: `embedded relay up at ${relay.url}` }
    const status = nostr.relayStatus()
    const connected = status.filter(link => link.connected).length
    return { ok: connected > 0, detail: `${connected} of ${status.length} relays connected` }
  })
  const daemonInfo = JSON.stringify({ url: http.url, relays: relayUrls, pid: process.pid }) + '\n'
  fs.writeFileSync(path.join(dataDir, daemonInfoFile), daemonInfo, { mode: 0o600 })
  log.info({ url: http.url, dataDir }, 'http listening')
  // After the ready file: a start does not wait for the audit worker or for warming up, nor compete with them.
  serving()
  probes.set('start', true, 'started')
  const backups = startBackupSchedule({ dataDir, settings: config.backup, log: log.child({ room: 'backup' }) })
  setImmediate(() => node.warmUp?.())

  let stopping: Promise<void> | undefined
  return {
    url: http.url,
    relays: relayUrls,
    node,
    dataDir,
    dispatcher,
    notImplemented,
    // ---- lifecycle (h26ops) ----
    reload: load => {
      config = reloadConfig({ running: config, load, log, setLogLevel, setHttpLimits: http.setLimits })
    },
    // ---- end lifecycle ----
    ...(relay ? { embeddedRelay: relay } : {}),
    stop: () =>
      (stopping ??= (async () => {
        log.info('stopping')
        probes.set('start', false, 'stopping')
        probes.stop()
        await backups?.stop()
        await webrtc.stop() // peers close first: their channels read the metrics files
        await nostr.stop() // no new relay requests; the ones taken are answered before the relays close
        await nwc.stop()
        // Stop accepting first; model downloads may run for minutes, so they are aborted rather than awaited.
        const httpClosed = http.close()
        await models.close()
        await recordings.close() // running transcriptions are stopped, not awaited, like downloads
        await httpClosed
        await dispatcher.drain()
        await metrics.stop()
        paidCallbacks.unsubscribe()
        swaps.stop()
        wallet.stop()
        audit.cancel()
        lnurl.stop()
        clink.stop()
        await zapPublisher.stop()
        await extensions.stop()
        events.complete()
        await relay?.close()
        forgetRelaySecret()
        await verifier.stop()
        await node.close()
        closeStore()
        fs.rmSync(path.join(dataDir, daemonInfoFile), { force: true })
        log.info('stopped')
      })()),
  }
}

/** A secret kept in the data dir; the log names the file, never the value. */
function secretFile(file: string, log: Logger, what: string): string {
  const { value, created } = ensureSecret(file)
  if (created) log.info({ file }, `generated the ${what}`)
  return value
}
