// Host-wide restaurant settings (reference/restaurant.md, "Entities"): one JSON value per key; a key never set
// reads as its default, so a new setting needs no migration.
import type { Db } from '../../store/index.js'

export interface RestaurantSettings {
  /** Deepest allowed node depth (root = 0). */
  max_menu_depth: number
  invoice_expiry_seconds: number
  publish_to_nostr: boolean
  relays: string[]
  print_on_paid: boolean
}

export function restaurantSettings(db: Db, daemonRelays: readonly string[]) {
  const defaults = (): RestaurantSettings => ({
    max_menu_depth: 3,
    invoice_expiry_seconds: 900,
    publish_to_nostr: true,
    relays: [...daemonRelays],
    print_on_paid: true,
  })
  const read = db.prepare('SELECT key, value FROM restaurant_settings')
  const write = db.prepare(
    'INSERT INTO restaurant_settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
  )

  function get(): RestaurantSettings {
    const settings = defaults()
    for (const { key, value } of read.all() as { key: string; value: string }[]) {
      if (key in settings) (settings as unknown as Record<string, unknown>)[key] = JSON.parse(value)
    }
    return settings
  }

  return {
    get,
    update(changes: Partial<RestaurantSettings>): RestaurantSettings {
      db.transaction(() => {
        for (const [key, value] of Object.entries(changes)) {
          if (value !== undefined && key in defaults()) write.run(key, JSON.stringify(value))
        }
      })()
      return get()
    },
  }
}

export type Settings = ReturnType<typeof restaurantSettings>
