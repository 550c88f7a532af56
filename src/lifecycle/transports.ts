// The transports, started last: HTTP's operations attach to the dispatcher (its server has answered the probes
// since the first moment), then the Nostr transport subscribes on the relays. Each stops before the dispatcher
// drains, so no new request arrives while the calls in flight are answered.
import type { Logger } from 'pino'
import type { Config } from '../config/index.js'
import type { AccessLog, Clock, Dispatcher, EventBus } from '../bus/index.js'
import type { HttpServer } from '../transports/http/index.js'
import { startNostrTransport, type EventVerifier, type TransportAnnouncer } from '../transports/nostr/index.js'
import type { RelayThread } from '../relay/index.js'
import type { Wallet } from '../wallet/index.js'
import type { Clink } from '../clink/index.js'
import type { Nwc } from '../nwc/index.js'
import type { WebRtc } from '../webrtc/index.js'
import type { startModelRoom } from '../models/index.js'
import { consoleFor } from './console.js'
import { embeddedRelayView } from './embedded-relay.js'
import { nostrTransportLimits } from './options.js'
import type { Books } from './books.js'
import type { LateParts } from './late.js'
import type { PublicRelays } from './public-relays.js'

type ModelRoom = Awaited<ReturnType<typeof startModelRoom>>

export interface HttpOperationsParts extends ModelRoom {
  config: Config
  log: Logger
  adminToken: string
  http: HttpServer
  dispatcher: Dispatcher
  node: { mock?: unknown }
  relay: RelayThread | undefined
  publicRelays: PublicRelays
  late: Pick<LateParts, 'relayStatus'>
}

/** HTTP serves the catalogue from now on, and the console when it is on. */
export function attachHttpOperations({ config, log, adminToken, http, dispatcher, node, relay, publicRelays, late, models, recordings }: HttpOperationsParts) {
  http.attach(dispatcher, consoleFor(config, adminToken, log, () => ({
    mock: Boolean(node.mock),
    relays: late.relayStatus(),
    embeddedRelay: embeddedRelayView(relay, config.nostr),
    publicRelays: { urls: [...publicRelays.urls], loopbackOnly: publicRelays.loopbackOnly() },
  })))
  // No new request once the relays are gone: HTTP stops accepting (long model downloads are aborted, not awaited).
  const stop = async () => {
    const closed = http.close()
    await models.close()
    await recordings.close()
    await closed
  }
  return { stop }
}

export interface NostrTransportParts {
  config: Config
  log: Logger
  clock: Clock
  dataDir: string
  accessLog: AccessLog | undefined
  relayUrls: string[]
  publicRelays: PublicRelays
  dispatcher: Dispatcher
  books: Books
  wallet: Wallet
  defaultApp: Wallet['defaultApp']
  events: EventBus
  webrtc: WebRtc
  verifier: EventVerifier
  clink: Clink
  nwc: Nwc
  /** What the rooms announced before the transport started goes out through its pool from now on. */
  announcer: TransportAnnouncer
  late: Pick<LateParts, 'transportStarted'>
  graceLeftMs(): number
}

export async function startTransport(parts: NostrTransportParts) {
  const { config, log, clock, dataDir, accessLog, relayUrls, publicRelays, dispatcher, books, wallet, defaultApp, events, webrtc, verifier, clink, nwc, announcer } = parts
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
  parts.late.transportStarted(() => transport.relayStatus())
  // The requests it took are answered before the relays close.
  return { stop: () => transport.stop(parts.graceLeftMs()), transport }
}
