// What the daemon gives an extension: its database, the clock, rates, wallet operations and a Nostr publisher.
// Extensions use only this object (and the doors of core rooms it names); core code never imports an extension.
import type { Observable, Clock, HandlerTable } from '../../bus/index.js'
import type { Logger } from 'pino'
import type { SqlStore } from '../../store/index.js'
import type { Rates } from '../../rates/index.js'
import type { Config } from '../../config/index.js'

/** A paid invoice whose `extra.tag` named the extension; delivered at least once, so listeners are idempotent. */
export interface PaidInvoice {
  walletId: string
  paymentHash: string
  amountMsat: number
  extra: Record<string, unknown>
  paidAt: number
  internal: boolean
}

export interface WalletSummary {
  id: string
  accountId: string
  name: string
  balanceMsat: number
}

export interface ExtensionWallets {
  get(walletId: string): Promise<WalletSummary | undefined>
  /** An invoice on a wallet; `extra` (≤ 4 KiB JSON, with `tag` = the extension id) comes back when it is paid. */
  createInvoice(
    walletId: string,
    request: { amountMsat: number; memo: string; expirySeconds: number; extra: Record<string, unknown> },
  ): Promise<{ paymentHash: string; paymentRequest: string; expiresAt: number }>
  /**
   * Pays an invoice from a wallet through the normal payment path and ledger (an invoice of another wallet of
   * this daemon settles internally in one transaction). Throws OperationError on refusal (e.g.
   * insufficient_balance) having moved nothing.
   */
  payInvoice(fromWalletId: string, paymentRequest: string): Promise<{ paymentHash: string; feeMsat: number }>
  /**
   * Deletes an unpaid, expired invoice whose `extra.tag` is `tag` (a purge of old unpaid orders). True when no such
   * unpaid invoice remains (deleted, or gone already); false when it was paid or has not expired: keep its record.
   */
  forgetExpiredInvoice(paymentHash: string, tag: string): Promise<boolean>
}

export interface NostrPublisher {
  /**
   * Signs and queues an event for the service relays; retried with backoff, never blocks or fails the caller.
   * Returns the event id once queued. The daemon's relay transport sends it, through its one relay pool.
   */
  publish(template: { kind: number; content: string; tags: string[][]; created_at?: number }, secretKey: Uint8Array): string
}

export interface ExtensionHost {
  /**
   * The database through the engine-neutral interface: an extension's storage is written on it, so
   * the same statements run on SQLite and PostgreSQL. Its own tables only; the wallets are reached through
   * `wallets`.
   */
  sql: SqlStore
  /** The daemon's validated config; an extension reads its own section (e.g. `[payroll]`). */
  config: Config
  clock: Clock
  /** Cryptographically strong random bytes (ids, keys); injected so tests can make them deterministic. */
  random(bytes: number): Uint8Array
  log: Logger
  rates: Rates
  wallets: ExtensionWallets
  nostr: NostrPublisher
  relays: readonly string[]
  /**
   * Delivers every paid invoice tagged with this extension to `listener`, at least once: a delivery counts only
   * after the listener resolves, and undelivered ones are delivered again at the next start. Listeners must be
   * idempotent on the payment hash.
   */
  onInvoicePaid(listener: (paid: PaidInvoice) => Promise<void> | void): void
  events$: Observable<unknown>
}

export interface RunningExtension {
  handlers: HandlerTable
  stop(): Promise<void>
}

export interface Extension {
  /** The id used in `extra.tag`, the extension gate and `/api/v1/extension/{ext_id}/enable`. */
  id: string
  start(host: ExtensionHost): Promise<RunningExtension>
}
