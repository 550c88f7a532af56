// Host-wide restaurant settings (docs/restaurant.md, "Entities"): one JSON value per key; a key never set reads as
// its default, so a new setting needs no migration. Written once on the engine-neutral SqlStore: the same
// statements on SQLite and PostgreSQL.
import type { SqlExecutor, SqlStore } from '../../store/index.js'

export interface RestaurantSettings {
  /** Deepest allowed node depth (root = 0). */
  max_menu_depth: number
  invoice_expiry_seconds: number
  publish_to_nostr: boolean
  relays: string[]
  print_on_paid: boolean
}

const read = 'SELECT key, value FROM restaurant_settings'
const write = 'INSERT INTO restaurant_settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value'

export interface Settings {
  get(): Promise<RestaurantSettings>
  /** Reads the settings inside an open transaction (the paid-order listener's). */
  getOn(on: SqlExecutor): Promise<RestaurantSettings>
  /** Writes the given keys in one transaction and answers the settings as they are then. */
  update(changes: Partial<RestaurantSettings>): Promise<RestaurantSettings>
}

export function restaurantSettings(sql: SqlStore, daemonRelays: readonly string[]): Settings {
  const defaults = (): RestaurantSettings => ({
    max_menu_depth: 3,
    invoice_expiry_seconds: 900,
    publish_to_nostr: true,
    relays: [...daemonRelays],
    print_on_paid: true,
  })

  async function getOn(on: SqlExecutor): Promise<RestaurantSettings> {
    const settings = defaults()
    for (const { key, value } of await on.many<{ key: string; value: string }>(read)) {
      if (key in settings) (settings as unknown as Record<string, unknown>)[key] = JSON.parse(value)
    }
    return settings
  }

  return {
    get: () => getOn(sql),
    getOn,
    update: changes =>
      sql.transaction(async tx => {
        for (const [key, value] of Object.entries(changes)) {
          if (value !== undefined && key in defaults()) await tx.run(write, [key, JSON.stringify(value)])
        }
        return getOn(tx)
      }),
  }
}
