// The restaurant extension's parts, assembled once at start from the host and handed to every handler factory.
// Its storage is on the host's engine-neutral SqlStore: menu-store.ts, order-store.ts (behind the
// order book), print-job-store.ts and settings-store.ts.
import type { ExtensionHost } from '../host/index.js'
import { newId } from './ids.js'
import { orderBook, type OrderBook } from './order-book.js'
import { printJobStore, type PrintJobStore } from './print-job-store.js'
import { menuPublishing, type MenuPublishing } from './publishing.js'
import { restaurantSettings, type Settings } from './settings-store.js'
import { menuStore, type MenuStore } from './menu-store.js'
import { guestBudgets, type GuestBudgets, type RestaurantLimits } from './guest-limits.js'

export interface RestaurantRoom {
  host: ExtensionHost
  store: MenuStore
  settings: Settings
  publishing: MenuPublishing
  orders: OrderBook
  printJobs: PrintJobStore
  /** `[restaurant]` in the config: what guests may ask for. */
  limits: RestaurantLimits
  budgets: GuestBudgets
  newId(): string
  now(): number
}

export function createRoom(host: ExtensionHost): RestaurantRoom {
  const store = menuStore(host.sql)
  const settings = restaurantSettings(host.sql, host.relays)
  const printJobs = printJobStore(host.sql)
  const now = () => host.clock.now()
  const id = () => newId(bytes => host.random(bytes))
  return {
    host,
    store,
    settings,
    printJobs,
    limits: host.config.restaurant,
    budgets: guestBudgets(host.config.restaurant),
    publishing: menuPublishing({ store, settings, nostr: host.nostr, clock: host.clock, log: host.log.child({ part: 'publishing' }) }),
    orders: orderBook({
      sql: host.sql,
      printOnPaid: async on => (await settings.getOn(on)).print_on_paid,
      newId: id,
      now,
      log: host.log.child({ part: 'orders' }),
    }),
    newId: id,
    now,
  }
}
