// The domain rooms, built on the ground the daemon opened (books, node, relays, the event stream) and registered in
// the operation registry, which is sealed at the end: every catalogue entry then has its handler. Each room's stop
// goes on the stack where it starts. The transports come after (daemon.ts); what the rooms need of them is asked
// late, through `later`.
import type { Logger } from 'pino'
import { catalogue } from '../../schema/catalogue.js'
import type { Config } from '../config/index.js'
import {
  createRegistry, Subject, systemTimers, type CallOutcome, type Clock, type Dispatcher, type EventBus,
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
import { extensionWallets } from './extension-wallets.js'
import { rateProviders } from './options.js'
import { openWallet } from './wallet.js'
import type { Books } from './books.js'
import type { PublicRelays } from './public-relays.js'
import type { RoomStack } from './room-stack.js'

/** Extension ids named by the catalogue (each extension's operations): the ones accounts can enable. */
const extensionIds = [...new Set(catalogue.flatMap(entry => ('extension' in entry && entry.extension ? [entry.extension] : [])))]

/** What the rooms are built on: opened before them, in daemon.ts. */
export interface Ground {
  log: Logger
  clock: Clock
  random(bytes: number): Uint8Array
  dataDir: string
  rooms: RoomStack
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
}

/** What the rooms ask of the transports, which start after them. */
export interface Later {
  /** The dispatcher (BatchUser runs its entries through it); asked only once it exists. */
  dispatcher(): Dispatcher
  /** The relays the Nostr transport serves on; none until it starts. */
  relayStatus(): { url: string; connected: boolean }[]
}

export async function openDomainRooms(config: Config, ground: Ground, later: Later) {
  const { log, clock, random, dataDir, rooms, books, tokens, node, events, relay, relayUrls, publicRelays, listenUrl, announcer } = ground
  const serviceUrl = () => config.http.public_url ?? listenUrl()
  const wallet = await openWallet(config, {
    books, tokens, random, clock, relayUrls, publicRelays: publicRelays.urls, extensions: extensionIds, node, emit: event => events.emit(event), log: log.child({ room: 'wallet' }),
  })
  const defaultApp = wallet.defaultApp
  log.info({ app: defaultApp.name, pubkey: defaultApp.nostr_public_key }, 'default app ready')
  // Nothing leaves a wallet before the books are proven; a large journal's audit and the first metrics sample (it
  // asks the node for balances) wait for the ready file (below).
  let serving!: () => void
  const served = new Promise<void>(resolve => (serving = resolve))
  const audit = await wallet.auditAtStart(books.local.file, { backgroundAfter: served })
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
    dispatcher: { resolve: op => later.dispatcher().resolve(op), dispatch: call => later.dispatcher().dispatch(call) },
  })
  registry.register(linking.handlers, 'linking')
  registry.register(modelHandlers(models, recordings), 'models')
  registry.register(nodeHandlers({
    node,
    books: wallet.booked,
    settlementApplied: (index, withinMs, paymentHash) => wallet.settlementApplied(index, withinMs, paymentHash),
  }), 'node')
  // LNURL and zaps; built before the wallet starts so payments credited at start-up still get zap receipts.
  // A zap request names the relays its receipt goes to: those are caller URLs, which the announcer's guard checks.
  const lnurl = createLnurl({
    sql: books.sql,
    node,
    accounts: wallet.accounts,
    wallet,
    defaultAppId: defaultApp.id,
    events$: events.events$,
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
    enroll: {
      powBits: config.clink.enroll_pow_bits,
      maxDeltaMs: config.clink.enroll_max_delta_ms,
      accountsPerMinute: config.clink.enroll_accounts_per_minute,
    },
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
    nostr: announcer,
    events$: events.events$,
    wallets: extensionWallets(wallet, clock),
    paidInvoicesTagged: tag => wallet.paidInvoicesTagged(tag),
  })
  rooms.started('extensions', () => extensions.stop())
  for (const { id, running } of extensions.started) registry.register(running.handlers, `extension ${id}`)
  // The dispatcher is built once the registry is sealed; metrics take its outcomes through this bridge.
  const outcomes = new Subject<CallOutcome>()
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
    relays: () => later.relayStatus(),
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

  return { wallet, defaultApp, serving, audit, models, recordings, registry, nwc, linking, clink, outcomes, webrtc }
}

export type DomainRooms = Awaited<ReturnType<typeof openDomainRooms>>
