// The NWC room (NIP-47): every user's wallet usable from any Nostr Wallet Connect app. Its handlers manage
// connections and serve the NIP-47 methods, which reach them like every request: the room's kind-23194 codec
// (nostr-codec.ts, run by the relay transport), the one claim store, authentication (caller kind nwcConnection), the
// dispatcher. Money moves only through the wallet's door. The codec reads the room's relay view for the keys to
// serve on, the connections' info events and the payment notifications.
import type { Logger } from 'pino'
import type { SqlStore } from '../store/index.js'
import { type Clock, type DomainEvent, type HandlerTable } from '../bus/index.js'
import type { NwcDirectory } from '../auth/index.js'
import { nwcConnectionStore } from './connection-store.js'
import { loadConnectionDirectory, type ConnectionDirectory } from './connection-directory.js'
import { nwcHandlers } from './handlers/connections.js'
import { nip47Handlers } from './handlers/nip47.js'
import { methodTable } from './methods.js'
import { walletTransactionReader } from './transactions.js'
import { nwcDirectory, nwcRelayView } from './relay-view.js'
import { nwcNostrKinds } from './nostr-codec.js'
import type { ServeKinds } from '../nostr-codecs/index.js'
import type { NodeFacts, NwcWallet } from './methods.js'

export type { NwcWallet, NodeFacts } from './methods.js'

export interface NwcDeps {
  sql: SqlStore
  wallet: NwcWallet
  node: NodeFacts
  /** The daemon's relays, named in connection URIs (SIGHUP changes the array's contents). */
  relays: readonly string[]
  clock: Clock
  random(bytes: number): Uint8Array
  /** Whether a wallet link (by its id) still opens its wallet: the wallet room's, asked through its door. */
  walletLinkLive(walletLinkId: string): Promise<boolean>
  /** Domain events: `nwc.connection` when a connection is made or changed. */
  emit(event: DomainEvent): void
  log: Logger
}

export interface Nwc {
  handlers: HandlerTable
  /** Who a NIP-47 request's author is (the nwcConnection caller kind). */
  directory: NwcDirectory
  /** Kind 23194 for the relay transport: the room's NIP-47 codec over its connections. */
  nostrKinds: ServeKinds
  /**
   * Ends every connection the wallet link `walletLinkId` made on the wallet page (the link was revoked or replaced):
   * once this resolves, their requests are refused and no payment of theirs is debited any more. How many ended.
   */
  endWithWalletLink(walletLinkId: string): Promise<number>
}

/** Makes the room; resolves once the connections are loaded for the relay transport (connection-directory.ts). */
export async function createNwc(deps: NwcDeps): Promise<Nwc> {
  const store = nwcConnectionStore(deps.sql)
  const directory = await loadConnectionDirectory(store)
  await endOrphans(directory, deps)
  const transactions = walletTransactionReader(deps.wallet)
  const methods = methodTable({ wallet: deps.wallet, node: deps.node, store, transactions, clock: deps.clock, log: deps.log })
  const handlers = {
    ...nwcHandlers({
      store,
      directory,
      clock: deps.clock,
      random: deps.random,
      relays: deps.relays,
      changed: connection => deps.emit({ type: 'nwc.connection', servicePubkey: connection.service_pubkey }),
      walletLinkLive: deps.walletLinkLive,
    }),
    ...nip47Handlers(store, methods),
  }
  return {
    handlers,
    directory: nwcDirectory(directory),
    nostrKinds: nwcNostrKinds(nwcRelayView(directory, transactions, deps.clock)),
    endWithWalletLink: async walletLinkId => (await directory.endWithLink(walletLinkId, deps.clock.now())).length,
  }
}

/**
 * A link's end deletes the link first and then ends its connections: a daemon stopped between the two leaves live
 * connections of a link that is gone. They end here, before the relay transport serves them.
 */
async function endOrphans(directory: ConnectionDirectory, deps: NwcDeps): Promise<void> {
  const links = new Set(directory.all().flatMap(c => (c.wallet_link_id !== null && c.revoked_at === null ? [c.wallet_link_id] : [])))
  for (const link of links) {
    if (await deps.walletLinkLive(link)) continue
    const ended = await directory.endWithLink(link, deps.clock.now())
    deps.log.info({ connections: ended.length }, 'ended NWC connections of a wallet link that is gone')
  }
}
