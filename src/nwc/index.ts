// The NWC room (NIP-47, issue 13): every user's wallet usable from any Nostr Wallet Connect app. Its handlers
// manage connections; its service, started once the relays are up, answers the apps' requests on the daemon's
// relays and moves money only through the wallet's door.
import type { AccessLog } from '../bus/access-log.js'
import type { Observable } from '../bus/rx.js'
import type { Logger } from 'pino'
import type { Db } from '../store/index.js'
import type { Clock } from '../bus/context.js'
import type { DomainEvent } from '../bus/events.js'
import type { HandlerTable } from '../bus/handler.js'
import type { EventVerifier } from '../transports/nostr/verify.js'
import { nwcStore, type ConnectionRow } from './store.js'
import { nwcHandlers } from './handlers.js'
import { walletTransactionReader } from './transactions.js'
import { startNwcService, type NwcService } from './service.js'
import type { NodeFacts, NwcWallet } from './methods.js'

export type { NwcWallet, NodeFacts } from './methods.js'

export interface NwcDeps {
  db: Db
  wallet: NwcWallet
  node: NodeFacts
  /** The daemon's relays: named in connection URIs and served on. */
  relays: readonly string[]
  clock: Clock
  random(bytes: number): Uint8Array
  log: Logger
}

export interface NwcStartDeps {
  verifier: EventVerifier
  events$: Observable<DomainEvent>
  maxEventAgeSeconds: number
  /** One line per answered request; none when the access log is off. */
  accessLog?: AccessLog
}

export interface Nwc {
  handlers: HandlerTable
  /** Subscribes on the relays and publishes the live connections' info events. */
  start(deps: NwcStartDeps): Promise<void>
  /** Serves on these relays from now on (a SIGHUP changed `[nostr] relays`). */
  setRelays(urls: readonly string[]): Promise<void>
  stop(): Promise<void>
}

/** Builds the room; its handlers work before `start` (a connection made then is announced at start). */
export function createNwc(deps: NwcDeps): Nwc {
  const store = nwcStore(deps.db)
  const transactions = walletTransactionReader(deps.db)
  let service: NwcService | undefined
  const handlers = nwcHandlers({
    store,
    clock: deps.clock,
    random: deps.random,
    relays: deps.relays,
    changed: (connection: ConnectionRow) => service?.connectionChanged(connection),
  })
  return {
    handlers,
    async start(startDeps) {
      service = await startNwcService({
        ...startDeps,
        relays: deps.relays,
        wallet: deps.wallet,
        node: deps.node,
        store,
        transactions,
        clock: deps.clock,
        log: deps.log,
      })
    },
    async setRelays(urls) {
      await service?.setRelays(urls)
    },
    async stop() {
      await service?.stop()
      service = undefined
    },
  }
}
