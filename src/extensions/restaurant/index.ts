// The restaurant extension (docs/restaurant.md): menus as a tree of nodes and items, quotes and orders paid by
// invoice on the restaurant's wallet, kitchen print jobs, menu items published to Nostr, and a customer ordering
// page. The daemon knows it only through this door.
import type { HandlerTable } from '../../bus/index.js'
import type { Extension, ExtensionHost, RunningExtension } from '../host/index.js'
import { createRoom } from './room.js'
import { restaurantHandlers } from './handlers/restaurants.js'
import { menuNodeHandlers } from './handlers/menu-nodes.js'
import { menuItemHandlers } from './handlers/menu-items.js'
import { itemOptionHandlers } from './handlers/item-options.js'
import { orderHandlers } from './handlers/orders.js'
import { printJobHandlers } from './handlers/print-jobs.js'
import { settingsHandlers } from './handlers/settings.js'
import { orderPageHandlers } from './handlers/order-page.js'

export const restaurantExtension: Extension = {
  id: 'restaurant',
  async start(host: ExtensionHost): Promise<RunningExtension> {
    const room = createRoom(host)
    // At-least-once delivery: markPaid is idempotent (a paid order stays paid, one print job per order).
    host.onInvoicePaid(paid => room.orders.markPaid(paid))
    // Unpaid orders whose invoice expired are marked `expired` (reads also expire them on the spot); those that
    // ended long enough ago are deleted with their invoices, so guests cannot fill the database with them.
    const { sweep_seconds, purge_expired_after_seconds } = room.limits
    const forgetInvoice = (paymentHash: string) => host.wallets.forgetExpiredInvoice(paymentHash, 'restaurant')
    // One sweep at a time: a slow one (a large purge) is not overlapped by the next interval's.
    let sweeping: Promise<void> | undefined
    const sweepOnce = async () => {
      try {
        const expired = await room.orders.expireDue()
        if (expired > 0) host.log.info({ expired }, 'unpaid orders expired')
        const purged = await room.orders.purgeEnded(purge_expired_after_seconds * 1000, forgetInvoice)
        if (purged > 0) host.log.info({ purged }, 'old unpaid orders deleted with their invoices')
      } catch (err) {
        host.log.error({ err }, 'the order expiry sweep failed; it runs again at the next interval')
      }
    }
    const sweep = setInterval(() => {
      sweeping ??= sweepOnce().finally(() => (sweeping = undefined))
    }, sweep_seconds * 1000)
    sweep.unref()
    const handlers: HandlerTable = {
      ...restaurantHandlers(room),
      ...menuNodeHandlers(room),
      ...menuItemHandlers(room),
      ...itemOptionHandlers(room),
      ...orderHandlers(room),
      ...printJobHandlers(room),
      ...settingsHandlers(room),
      ...orderPageHandlers(room),
    }
    return {
      handlers,
      async stop() {
        clearInterval(sweep)
        await sweeping
      },
    }
  },
}
