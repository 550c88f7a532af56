// The wallet as the daemon opens it: on the books' store (PostgreSQL with `[store] url`, else the SQLite file), its
// settings from the config, and the guards it shares with the other rooms (the zap relays' SSRF guard, CLINK's debit
// grants). The composition in daemon.ts keeps only the wires.
import type { Logger } from 'pino'
import type { Config } from '../config/index.js'
import type { Clock, DomainEvent } from '../bus/index.js'
import type { LightningNode } from '../node/index.js'
import { createWallet, type Wallet, type WalletDeps } from '../wallet/index.js'
import { relayRefusal } from '../callbacks/index.js'
import { debitNpubLimits } from '../clink/index.js'
import { walletFees } from './options.js'
import type { Books } from './books.js'

export interface WalletContext {
  books: Books
  tokens: WalletDeps['tokens']
  random: (bytes: number) => Uint8Array
  clock: Clock
  /** The relays the daemon serves on: the first is the one its apps name; zap receipts may go to the others. */
  relayUrls: readonly string[]
  /** The relays named in what is handed out (CLINK pointers): `[nostr] public_relays`, else relayUrls. */
  publicRelays: readonly string[]
  /** Extension ids accounts can enable. */
  extensions: readonly string[]
  node: LightningNode
  emit(event: DomainEvent): void
  log: Logger
}

export function openWallet(config: Config, ctx: WalletContext): Promise<Wallet> {
  const { books, relayUrls } = ctx
  return createWallet({
    sql: books.sql,
    ...(books.fence ? { fence: books.fence } : {}),
    ...(books.engine === 'sqlite' ? { file: books.local.file } : {}),
    tokens: ctx.tokens,
    random: ctx.random,
    now: () => ctx.clock.now(),
    fees: walletFees(config.fees),
    relayUrl: () => ctx.publicRelays[0]!,
    bridgeUrl: config.apps.bridge_url,
    allowBalanceMigration: config.apps.allow_balance_migration,
    newAccounts: { perMinute: config.apps.new_accounts_per_minute, burst: config.apps.new_accounts_burst },
    extensions: ctx.extensions,
    defaultAppName: config.apps.default_app_name,
    allowLoopbackCallbacks: config.callbacks.allow_loopback,
    // A zap request's relays get its receipt: checked by the same guard as the receipt publisher's, when given.
    zapRelayRefusal: relayRefusal(relayUrls, { allowLoopback: config.callbacks.allow_loopback }),
    // PayInvoice / PayAppUserInvoice with debit_npub count against that key's CLINK debit grant.
    debitLimit: debitNpubLimits(),
    node: ctx.node,
    emit: ctx.emit,
    log: ctx.log,
  })
}
