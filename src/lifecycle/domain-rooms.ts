// The domain rooms, built on the ground the daemon opened (books, node, relays, the event stream) and registered in
// the operation registry, which is sealed at the end: every catalogue entry then has its handler. This file's table
// is spliced into the daemon's (daemon.ts), between the ground and the transports; what the rooms need of the
// transports is asked late, through `late`. A room's handlers are registered in a step of their own after the room
// starts, so a start failing at its registration still stops that room.
import type { Logger } from 'pino'
import { catalogue } from '../../schema/catalogue.js'
import type { Config } from '../config/index.js'
import {
  createRegistry, Subject, systemTimers, type CallOutcome, type Clock, type EventBus, type HandlerTable, type Registry,
} from '../bus/index.js'
import type { TokenSigner } from '../auth/index.js'
import { createMetrics } from '../metrics/index.js'
import { createWebRtc } from '../webrtc/index.js'
import { hostPaymentHandlers } from '../host-api/index.js'
import { relayRefusal, startPaidCallbacks } from '../callbacks/index.js'
import { healthHandlers } from '../health/index.js'
import { nodeHandlers, nodeNotReadyReason, type LightningNode } from '../node/index.js'
import { modelHandlers, startModelRoom } from '../models/index.js'
import { createRates } from '../rates/index.js'
import { hostedExtensions } from '../extensions/index.js'
import { startExtensions } from '../extensions/host/index.js'
import type { Announcer } from '../transports/nostr/index.js'
import type { RelayThread } from '../relay/index.js'
import { createLinking } from '../linking/index.js'
import { createNwc } from '../nwc/index.js'
import { createLnurl } from '../lnurl/index.js'
import { createClink } from '../clink/index.js'
import { createSwaps } from '../swaps/index.js'
import { apiDocsHandlers } from '../api-docs/index.js'
import { walletLinkHandlers, walletPageHandlers } from '../wallet-page/index.js'
import type { Wallet } from '../wallet/index.js'
import { extensionWallets } from './extension-wallets.js'
import { rateProviders } from './options.js'
import { openWallet } from './wallet.js'
import type { Books } from './books.js'
import type { LateParts } from './late.js'
import type { PublicRelays } from './public-relays.js'
import type { StartTable } from './start-table.js'

/** Extension ids named by the catalogue (each extension's operations): the ones accounts can enable. */
const extensionIds = [...new Set(catalogue.flatMap(entry => ('extension' in entry && entry.extension ? [entry.extension] : [])))]

/** What the rooms are built on: opened before them, in daemon.ts. */
export interface Ground {
  config: Config
  log: Logger
  clock: Clock
  random(bytes: number): Uint8Array
  dataDir: string
  books: Books
  tokens: TokenSigner
  node: LightningNode
  events: EventBus
  /** The embedded relay's thread, when it runs. */
  relay: RelayThread | undefined
  relayUrls: string[]
  publicRelays: PublicRelays
  /** Extension events and zap receipts: queued until the Nostr transport starts, then sent through its pool. */
  announcer: Announcer
  /** Where the daemon listens. */
  listenUrl(): string
  /** What the rooms ask of the transports, which start after them. */
  late: Pick<LateParts, 'dispatcher' | 'relayStatus'>
}

/** The domain rooms in the order they start (they stop in reverse). */
export const openDomainRooms = <B extends object, C extends Ground>(table: StartTable<B, C>) =>
  table
    .step('service url', ({ config, listenUrl }) => ({ serviceUrl: () => config.http.public_url ?? listenUrl() }))
    .step('open wallet', openWalletRoom)
    // Nothing leaves a wallet before the books are proven; a large journal's audit and the first metrics sample (it
    // asks the node for balances) wait for the ready file (daemon.ts calls `serving`).
    .step('serving gate', servingGate)
    .step('start audit', async ({ wallet, books, served }) => {
      const audit = await wallet.auditAtStart(books.local.file, { backgroundAfter: served })
      return { stop: () => audit.cancel(), audit }
    })
    .step('models', modelRoom)
    .step('registry', ({ node, wallet }) => ({ registry: registryWithBasics(node, wallet) }))
    .step('nwc', nwcRoom)
    .step('linking', linkingRoom)
    .step('model and node handlers', ({ registry, models, recordings, node, wallet }) => {
      registry.register(modelHandlers(models, recordings), 'models')
      registry.register(nodeHandlers({
        node,
        books: wallet.booked,
        settlementApplied: (index, withinMs, paymentHash) => wallet.settlementApplied(index, withinMs, paymentHash),
      }), 'node')
      return {}
    })
    // LNURL and zaps; built before the wallet starts so payments credited at start-up still get zap receipts.
    .step('lnurl', lnurlRoom)
    .step('lnurl handlers', ({ registry, lnurl }) => registered(registry, lnurl.handlers, 'lnurl'))
    .step('clink', clinkRoom)
    .step('clink handlers', ({ registry, clink }) => registered(registry, clink.handlers, 'clink'))
    .step('rates', ratesRoom)
    .step('extensions', extensionsRoom)
    .step('extension handlers', ({ registry, extensions }) => {
      for (const { id, running } of extensions.started) registry.register(running.handlers, `extension ${id}`)
      return {}
    })
    // The dispatcher is built once the registry is sealed; metrics take its outcomes through this bridge.
    .step('call outcomes', () => ({ outcomes: new Subject<CallOutcome>() }))
    .step('metrics', metricsRoom)
    .step('metrics handlers', ({ registry, metrics }) => registered(registry, metrics.handlers, 'metrics'))
    .step('webrtc', webRtcRoom) // its peers' channels read the metrics files: they close first
    .step('webrtc handlers', ({ registry, webrtc }) => registered(registry, webrtc.handlers, 'webrtc'))
    .step('host API handlers', ({ registry, wallet, rates }) => registered(registry, hostPaymentHandlers({ wallet, rates }), 'host API'))
    .step('open swaps', swapsRoom)
    .step('paid callbacks', paidCallbacksOf)
    // After every listener of the event stream is subscribed: catch-up credits announce themselves to them. So the
    // wallet stops before they do, and they hear everything it does until then; its stop is set before its start,
    // so a start failing half-way stops it too.
    .step('wallet', ({ wallet }) => ({ stop: () => wallet.stop() }))
    .step('wallet start', async ({ wallet }) => (await wallet.start(), {}))
    // After the wallet: a resumed swap finds the wallet following the node (pending payments resolve in the background).
    .step('swaps', ({ swaps }) => ({ stop: () => swaps.stop() }))
    .step('swaps start', async ({ swaps }) => (await swaps.start(), {}))
    // Every catalogue entry has its handler by now: a missing one is a wiring fault, refused at start, not at a call.
    .step('sealed registry', ({ registry, log }) => {
      registry.seal({ requireAll: true })
      log.info({ operations: catalogue.length }, `${catalogue.length} operations registered`)
      return {}
    })

function registered(registry: Registry, handlers: HandlerTable, label: string) {
  registry.register(handlers, label)
  return {}
}

type WithServiceUrl = Ground & { serviceUrl(): string }
type WithWallet = WithServiceUrl & { wallet: Wallet; defaultApp: Wallet['defaultApp']; registry: Registry }

async function openWalletRoom({ config, books, tokens, random, clock, relayUrls, publicRelays, node, events, log }: Ground) {
  const wallet = await openWallet(config, {
    books, tokens, random, clock, relayUrls, publicRelays: publicRelays.urls, extensions: extensionIds, node, emit: event => events.emit(event), log: log.child({ room: 'wallet' }),
  })
  const defaultApp = wallet.defaultApp
  log.info({ app: defaultApp.name, pubkey: defaultApp.nostr_public_key }, 'default app ready')
  return { wallet, defaultApp }
}

function servingGate() {
  let serving!: () => void
  const served = new Promise<void>(resolve => (serving = resolve))
  return { serving, served }
}

async function modelRoom({ config, books, dataDir, clock, random, log }: Ground) {
  const { models, recordings } = await startModelRoom(config.models, {
    sql: books.sql,
    dataDir,
    clock,
    random,
    log: log.child({ room: 'models' }),
    env: process.env,
  })
  // Downloads and transcriptions are aborted, not awaited (they may run for minutes); the HTTP stop aborts them too.
  const stop = async () => {
    await models.close()
    await recordings.close()
  }
  return { stop, models, recordings }
}

function registryWithBasics(node: LightningNode, wallet: Wallet): Registry {
  const registry = createRegistry(catalogue)
  registry.register(healthHandlers({ notReadyReason: () => nodeNotReadyReason(node) }), 'health')
  registry.register(apiDocsHandlers(), 'api-docs')
  registry.register(walletPageHandlers(), 'wallet-page')
  registry.register(wallet.handlers, 'wallet')
  return registry
}

async function nwcRoom({ books, wallet, node, publicRelays, clock, random, events, log, registry, serviceUrl }: WithWallet) {
  const nwc = await createNwc({
    sql: books.sql,
    wallet,
    node,
    relays: publicRelays.urls,
    clock,
    random,
    walletLinkLive: id => wallet.walletLinks.live(id),
    emit: events.emit,
    log: log.child({ room: 'nwc' }),
  })
  registry.register(nwc.handlers, 'nwc')
  registry.register(
    walletLinkHandlers({ accounts: wallet.accounts, links: wallet.walletLinks, endConnections: id => nwc.endWithWalletLink(id), serviceUrl }),
    'wallet-page',
  )
  return { nwc }
}

async function linkingRoom({ config, books, wallet, tokens, clock, random, log, dataDir, defaultApp, serviceUrl, late, registry }: WithWallet) {
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
    serviceUrl,
    // BatchUser runs its entries through the dispatcher, which is built once every handler is registered.
    dispatcher: { resolve: op => late.dispatcher().resolve(op), call: call => late.dispatcher().call(call) },
  })
  registry.register(linking.handlers, 'linking')
  return { linking }
}

function lnurlRoom(ground: WithWallet) {
  const { config, books, node, wallet, defaultApp, events, announcer, listenUrl, random, clock, log } = ground
  const lnurl = createLnurl({
    sql: books.sql,
    node,
    accounts: wallet.accounts,
    wallet,
    defaultAppId: defaultApp.id,
    events$: events.events$,
    // A zap request names the relays its receipt goes to: those are caller URLs, which the announcer's guard checks.
    publisher: announcer,
    publicUrl: config.http.public_url,
    allowLoopback: config.lnurl.allow_loopback,
    listenUrl,
    metaText: config.lnurl.meta_text,
    callbacks: { perMinute: config.lnurl.callbacks_per_minute, burst: config.lnurl.callbacks_burst },
    fees: { serviceFeeBps: config.fees.service_fee_bps, serviceFeeFloorSats: config.fees.service_fee_floor_sats },
    outbound: { allowLoopback: config.callbacks.allow_loopback },
    random,
    clock,
    log: log.child({ room: 'lnurl' }),
  })
  return { stop: () => lnurl.stop(), lnurl }
}

async function clinkRoom({ config, books, wallet, node, events, publicRelays, relayUrls, clock, random, log }: WithWallet) {
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
    enroll: {
      powBits: config.clink.enroll_pow_bits,
      maxDeltaMs: config.clink.enroll_max_delta_ms,
      accountsPerMinute: config.clink.enroll_accounts_per_minute,
    },
  })
  return { stop: () => clink.stop(), clink }
}

function ratesRoom({ config, books, clock, log }: Ground) {
  const rates = createRates({
    sql: books.sql,
    providers: rateProviders(config.rates),
    timeoutMs: config.rates.timeout_ms,
    clock,
    log: log.child({ room: 'rates' }),
  })
  return { rates }
}

async function extensionsRoom({ config, books, clock, log, rates, relayUrls, events, wallet, announcer }: WithWallet & { rates: ReturnType<typeof createRates> }) {
  const extensions = await startExtensions(hostedExtensions, {
    sql: books.sql,
    config,
    clock,
    log,
    rates,
    relays: relayUrls,
    nostr: announcer,
    events$: events.events$,
    wallets: extensionWallets(wallet, clock),
    paidInvoicesTagged: tag => wallet.paidInvoicesTagged(tag),
  })
  return { stop: () => extensions.stop(), extensions }
}

function metricsRoom(ground: WithWallet & { outcomes: Subject<CallOutcome>; served: Promise<void> }) {
  const { config, dataDir, outcomes, events, node, books, wallet, clock, log, late, relay, served } = ground
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
    // The Nostr transport starts after the metrics room (and HTTP, which may be scraped first): none until then.
    relays: () => late.relayStatus(),
    embeddedRelayConnections: () => relay?.stats()?.connections,
    firstSampleAfter: served,
  })
  return { stop: () => metrics.stop(), metrics }
}

function webRtcRoom({ config, metrics, log }: Ground & { metrics: ReturnType<typeof createMetrics> }) {
  const webrtc = createWebRtc({
    settings: config.webrtc,
    metricsFile: (request, callerAppId) => metrics.metricsFile(request, callerAppId),
    log: log.child({ room: 'webrtc' }),
  })
  return { stop: () => webrtc.stop(), webrtc }
}

async function swapsRoom({ config, books, node, wallet, random, clock, log, registry }: WithWallet) {
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
  return { swaps }
}

function paidCallbacksOf({ config, events, wallet, log }: WithWallet) {
  const paidCallbacks = startPaidCallbacks({
    events$: events.events$,
    invoice: hash => wallet.invoiceByPaymentHash(hash),
    savedCallbackUrl: async walletId => (await wallet.accounts.appUserOf(walletId))?.callback_url,
    guard: { allowLoopback: config.callbacks.allow_loopback },
    log: log.child({ room: 'callbacks' }),
  })
  return { stop: () => paidCallbacks.unsubscribe() }
}
