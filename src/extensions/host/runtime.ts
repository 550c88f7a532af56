// Starts the hosted extensions with their host object and delivers tagged paid invoices to them at least once.
import { randomBytes } from 'node:crypto'
import { Subscription, filter, type Clock, type DomainEvent, type Observable } from '../../bus/index.js'
import type { Logger } from 'pino'
import { isStoreFault, type SqlStore } from '../../store/index.js'
import type { Rates } from '../../rates/index.js'
import type { Config } from '../../config/index.js'
import type { Extension, ExtensionWallets, NostrPublisher, PaidInvoice, RunningExtension } from './extension.js'
import { deliveryStore } from './delivery-store.js'
import { doublingDelayMs } from '../../limits/index.js'

export interface ExtensionRuntimeDeps {
  /** The database through the engine-neutral interface: the host's own table and the extensions' storage. */
  sql: SqlStore
  config: Config
  clock: Clock
  /** Random bytes for the extensions (ids, keys); node's CSPRNG when the daemon passes none. */
  random?: (bytes: number) => Uint8Array
  log: Logger
  rates: Rates
  wallets: ExtensionWallets
  relays: readonly string[]
  /**
   * Where extension events go (menu items as NIP-15 products, deletions): the composition root's announcer, which
   * sends through the relay transport's pool; the host neither opens relay connections nor stops it.
   */
  nostr: NostrPublisher
  events$: Observable<DomainEvent>
  /** Paid invoices whose `extra.tag` is `tag`, for re-delivery at start. */
  paidInvoicesTagged(tag: string): Promise<PaidInvoice[]>
}

export interface RunningExtensions {
  started: { id: string; running: RunningExtension }[]
  stop(): Promise<void>
}

export async function startExtensions(extensions: readonly Extension[], deps: ExtensionRuntimeDeps): Promise<RunningExtensions> {
  const deliveries = deliveryStore(deps.sql)
  const subscriptions = new Subscription()
  const started: RunningExtensions['started'] = []
  const catchUps: (() => Promise<void>)[] = []
  const retries = new Set<ReturnType<typeof setTimeout>>()
  let stopping = false

  for (const extension of extensions) {
    const log = deps.log.child({ extension: extension.id })
    const deliver = async (listener: (paid: PaidInvoice) => Promise<void> | void, paid: PaidInvoice, attempt = 1): Promise<void> => {
      try {
        if (await deliveries.delivered(extension.id, paid.paymentHash)) return
        await listener(paid)
        await deliveries.markDelivered(extension.id, paid.paymentHash, deps.clock.now())
      } catch (err) {
        // A database fault (a dropped session, a restarting server) passes: on PostgreSQL the daemon stays up through
        // it, so the delivery is tried again while it runs (1 s, doubling to a minute), not only at the next start.
        if (isStoreFault(err) && !stopping) {
          const delayMs = doublingDelayMs(attempt - 1, 1000, 60_000)
          log.warn({ err: { message: (err as Error).message }, paymentHash: paid.paymentHash, retryInMs: delayMs }, 'an invoice-paid listener met a database fault; trying again')
          const timer = setTimeout(() => {
            retries.delete(timer)
            void deliver(listener, paid, attempt + 1)
          }, delayMs)
          retries.add(timer)
          return
        }
        // Not marked: the next start delivers it again.
        log.error({ err, paymentHash: paid.paymentHash }, 'an invoice-paid listener failed; it will be retried at the next start')
      }
    }
    const running = await extension.start({
      sql: deps.sql,
      config: deps.config,
      clock: deps.clock,
      random: deps.random ?? (bytes => randomBytes(bytes)),
      log,
      rates: deps.rates,
      wallets: deps.wallets,
      nostr: deps.nostr,
      relays: deps.relays,
      events$: deps.events$,
      onInvoicePaid(listener) {
        subscriptions.add(
          deps.events$
            .pipe(filter((e): e is Extract<DomainEvent, { type: 'invoice.paid' }> => e.type === 'invoice.paid' && e.extra?.tag === extension.id))
            .subscribe(event =>
              void deliver(listener, {
                walletId: event.walletId,
                paymentHash: event.paymentHash,
                amountMsat: event.amountMsat,
                extra: event.extra ?? {},
                paidAt: event.paidAt,
                internal: event.internal,
              }),
            ),
        )
        catchUps.push(async () => {
          for (const paid of await deps.paidInvoicesTagged(extension.id)) await deliver(listener, paid)
        })
      },
    })
    started.push({ id: extension.id, running })
  }
  for (const catchUp of catchUps) await catchUp()

  return {
    started,
    async stop() {
      stopping = true
      for (const timer of retries) clearTimeout(timer)
      subscriptions.unsubscribe()
      for (const { running } of started.reverse()) await running.stop()
    },
  }
}
