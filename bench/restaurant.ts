// The restaurant extension under load over loopback HTTP: the public menu read, a quote, placing an order (which
// issues an invoice on the restaurant's wallet) and the customer ordering page, each at a few concurrencies.
// `bench/run.ts` may call benchRestaurant; run this file directly to print its figures alone.
import { pathToFileURL } from 'node:url'
import { buildMenu, startRestaurantDaemon, unlimitedGuestsConfig } from '../test/extensions/restaurant/restaurant-daemon.js'
import { runLoad, type LoadResult } from './load.js'

export interface RestaurantBenchOptions {
  concurrencies?: number[]
  /** Per operation and concurrency. */
  durationMs?: number
}

export async function benchRestaurant(opts: RestaurantBenchOptions = {}): Promise<Record<string, Record<string, LoadResult>>> {
  const concurrencies = opts.concurrencies ?? [1, 16]
  const durationMs = opts.durationMs ?? 2000
  // Measures the cost of an order, not the guest limits (which refuse a loop from one address within seconds).
  const rd = await startRestaurantDaemon({ config: unlimitedGuestsConfig, env: { RELAYPAY_LOG_LEVEL: 'warn' } })
  try {
    const owner = await rd.wallet()
    const menu = await buildMenu(rd, owner)
    const cart = [
      { item_id: menu.burger.id, quantity: 2, modifier_ids: [menu.double.id, menu.bacon.id] },
      { item_id: menu.cola.id, quantity: 1 },
    ]
    const api = `${rd.daemon.url}/restaurant/api/v1`
    const targets = {
      RestaurantMenu: { url: `${api}/restaurants/${menu.id}/menu`, method: 'GET' as const },
      OrderQuote: { url: `${api}/orders/quote`, method: 'POST' as const, body: cart },
      OrderPlace: { url: `${api}/orders`, method: 'POST' as const, body: { restaurant_id: menu.id, items: cart } },
      RestaurantOrderPage: { url: `${rd.daemon.url}/restaurant/r/${menu.slug}`, method: 'GET' as const },
    }
    const results: Record<string, Record<string, LoadResult>> = {}
    for (const [name, target] of Object.entries(targets)) {
      results[name] = {}
      for (const concurrency of concurrencies) {
        results[name]![`c${concurrency}`] = await runLoad({
          ...target,
          concurrency,
          durationMs,
          ok: status => status === 200 || status === 201,
        })
      }
    }
    return results
  } finally {
    await rd.stop()
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const results = await benchRestaurant()
  process.stdout.write(JSON.stringify({ machine: 'shared 2-core; noisy: compare ratios within one run', results }, null, 2) + '\n')
}
