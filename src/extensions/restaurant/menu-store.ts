// Restaurants and their menus: small intent-named queries over the tables of migrations/030_restaurant.sql, written once on
// the engine-neutral SqlStore so the same statements run on SQLite and PostgreSQL. Rows keep the
// database's shapes (0/1 flags, epoch ms; BIGINT comes back as a number on both); wire.ts turns them into the
// messages callers see. `menuStore(sql)` reads and writes on its own; `transaction` hands the work a copy bound
// to one transaction, and inside it only that copy may be used.
import type { SqlExecutor, SqlStore, TransactionOptions } from '../../store/index.js'

export interface RestaurantRow {
  id: string
  wallet: string
  account_id: string
  name: string
  slug: string
  description: string
  currency: string
  timezone: string
  image: string | null
  active: number
  nostr_secret_key: string
  stall_created_at: number | null
  created_at: number
  updated_at: number
}

export interface MenuNodeRow {
  id: string
  restaurant_id: string
  parent_id: string | null
  name: string
  description: string
  sort: number
  image: string | null
  depth: number
  path: string
  created_at: number
  updated_at: number
}

export interface MenuItemRow {
  id: string
  restaurant_id: string
  node_id: string | null
  name: string
  description: string
  price: string
  image: string | null
  sort: number
  active: number
  sold_out: number
  published_event_id: string | null
  published_created_at: number | null
  created_at: number
  updated_at: number
}

export interface ModifierGroupRow {
  id: string
  item_id: string
  name: string
  min_select: number
  max_select: number | null
  sort: number
}

export interface ModifierRow {
  id: string
  group_id: string
  name: string
  price_delta: string
  sort: number
}

export interface AvailabilityWindowRow {
  id: string
  item_id: string
  days: string
  start_time: string
  end_time: string
}

/** Which columns an update may set, per table: callers pass only these, values are bound, never spliced. */
const updatable = {
  restaurant_restaurants: ['name', 'slug', 'description', 'currency', 'timezone', 'image', 'active', 'updated_at'],
  restaurant_menu_nodes: ['name', 'description', 'sort', 'image', 'updated_at'],
  restaurant_menu_items: ['node_id', 'name', 'description', 'price', 'image', 'sort', 'active', 'sold_out', 'updated_at'],
} as const
type Table = keyof typeof updatable

/** The statements on the store, or on one open transaction. */
export function menuStatements(on: SqlExecutor) {
  const one = <T>(sql: string) => (...params: unknown[]) => on.one<T>(sql, params)
  const all = <T>(sql: string) => (...params: unknown[]) => on.many<T>(sql, params)
  const run = (sql: string) => async (...params: unknown[]) => (await on.run(sql, params)).changes
  const insert = <T extends object>(table: string, columns: (keyof T & string)[]) => {
    const sql = `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(c => `@${c}`).join(', ')})`
    return async (row: T) => {
      await on.run(sql, Object.fromEntries(columns.map(c => [c, row[c]])))
    }
  }
  const update = async (table: Table, id: string, changes: Record<string, unknown>) => {
    const allowed: readonly string[] = updatable[table]
    const columns = Object.keys(changes).filter(column => changes[column] !== undefined)
    for (const column of columns) if (!allowed.includes(column)) throw new Error(`${table}.${column} is not updatable`)
    if (columns.length === 0) return
    await on.run(`UPDATE ${table} SET ${columns.map(c => `${c} = @${c}`).join(', ')} WHERE id = @id`, {
      ...Object.fromEntries(columns.map(c => [c, changes[c]])),
      id,
    })
  }

  return {
    restaurant: one<RestaurantRow>('SELECT * FROM restaurant_restaurants WHERE id = ?'),
    restaurantBySlug: one<RestaurantRow>('SELECT * FROM restaurant_restaurants WHERE slug = ?'),
    restaurantsOfWallet: all<RestaurantRow>('SELECT * FROM restaurant_restaurants WHERE wallet = ? ORDER BY created_at, id'),
    restaurantsOfAccount: all<RestaurantRow>(
      'SELECT * FROM restaurant_restaurants WHERE account_id = ? ORDER BY created_at, id',
    ),
    insertRestaurant: insert<RestaurantRow>('restaurant_restaurants', [
      'id', 'wallet', 'account_id', 'name', 'slug', 'description', 'currency', 'timezone', 'image', 'active',
      'nostr_secret_key', 'stall_created_at', 'created_at', 'updated_at',
    ]),
    updateRestaurant: (id: string, changes: Partial<RestaurantRow>) => update('restaurant_restaurants', id, changes),
    setStallCreatedAt: run('UPDATE restaurant_restaurants SET stall_created_at = ? WHERE id = ?'),
    /** Three statements: run it inside a transaction. */
    async deleteRestaurant(id: string): Promise<void> {
      // Nodes reference each other; detaching them first lets ON DELETE CASCADE remove the menu in one go.
      await on.run('UPDATE restaurant_menu_items SET node_id = NULL WHERE restaurant_id = ?', [id])
      await on.run('UPDATE restaurant_menu_nodes SET parent_id = NULL WHERE restaurant_id = ?', [id])
      await on.run('DELETE FROM restaurant_restaurants WHERE id = ?', [id])
    },

    node: one<MenuNodeRow>('SELECT * FROM restaurant_menu_nodes WHERE id = ?'),
    nodesOfRestaurant: all<MenuNodeRow>(
      'SELECT * FROM restaurant_menu_nodes WHERE restaurant_id = ? ORDER BY depth, sort, name, id',
    ),
    /**
     * The node and every node below it (path prefix; compared with substr because ids may contain `_`, and LIKE
     * differs between the engines). The CAST lets PostgreSQL type the parameter inside length().
     */
    subtree: (match: { id: string; prefix: string }) =>
      on.many<MenuNodeRow>(
        `SELECT * FROM restaurant_menu_nodes WHERE id = @id
           OR substr(path, 1, length(CAST(@prefix AS TEXT))) = @prefix ORDER BY depth, sort, name, id`,
        match,
      ),
    childCount: one<{ n: number }>('SELECT count(*) AS n FROM restaurant_menu_nodes WHERE parent_id = ?'),
    insertNode: insert<MenuNodeRow>('restaurant_menu_nodes', [
      'id', 'restaurant_id', 'parent_id', 'name', 'description', 'sort', 'image', 'depth', 'path', 'created_at',
      'updated_at',
    ]),
    updateNode: (id: string, changes: Partial<MenuNodeRow>) => update('restaurant_menu_nodes', id, changes),
    placeNode: run('UPDATE restaurant_menu_nodes SET parent_id = ?, depth = ?, path = ?, updated_at = ? WHERE id = ?'),
    deleteNode: run('DELETE FROM restaurant_menu_nodes WHERE id = ?'),

    item: one<MenuItemRow>('SELECT * FROM restaurant_menu_items WHERE id = ?'),
    itemsOfRestaurant: all<MenuItemRow>('SELECT * FROM restaurant_menu_items WHERE restaurant_id = ? ORDER BY sort, name, id'),
    itemsOfNode: all<MenuItemRow>('SELECT * FROM restaurant_menu_items WHERE node_id = ? ORDER BY sort, name, id'),
    itemCountOfNode: one<{ n: number }>('SELECT count(*) AS n FROM restaurant_menu_items WHERE node_id = ?'),
    insertItem: insert<MenuItemRow>('restaurant_menu_items', [
      'id', 'restaurant_id', 'node_id', 'name', 'description', 'price', 'image', 'sort', 'active', 'sold_out',
      'published_event_id', 'published_created_at', 'created_at', 'updated_at',
    ]),
    updateItem: (id: string, changes: Partial<MenuItemRow>) => update('restaurant_menu_items', id, changes),
    detachItem: run('UPDATE restaurant_menu_items SET node_id = NULL, updated_at = ? WHERE id = ?'),
    setItemPublished: run('UPDATE restaurant_menu_items SET published_event_id = ?, published_created_at = ? WHERE id = ?'),
    deleteItem: run('DELETE FROM restaurant_menu_items WHERE id = ?'),

    group: one<ModifierGroupRow>('SELECT * FROM restaurant_modifier_groups WHERE id = ?'),
    groupsOfItem: all<ModifierGroupRow>('SELECT * FROM restaurant_modifier_groups WHERE item_id = ? ORDER BY sort, name, id'),
    insertGroup: insert<ModifierGroupRow>('restaurant_modifier_groups', ['id', 'item_id', 'name', 'min_select', 'max_select', 'sort']),
    deleteGroup: run('DELETE FROM restaurant_modifier_groups WHERE id = ?'),

    modifier: one<ModifierRow>('SELECT * FROM restaurant_modifiers WHERE id = ?'),
    modifiersOfGroup: all<ModifierRow>('SELECT * FROM restaurant_modifiers WHERE group_id = ? ORDER BY sort, name, id'),
    modifiersOfItem: all<ModifierRow>(
      `SELECT m.* FROM restaurant_modifiers m JOIN restaurant_modifier_groups g ON g.id = m.group_id
        WHERE g.item_id = ? ORDER BY m.sort, m.name, m.id`,
    ),
    insertModifier: insert<ModifierRow>('restaurant_modifiers', ['id', 'group_id', 'name', 'price_delta', 'sort']),
    deleteModifier: run('DELETE FROM restaurant_modifiers WHERE id = ?'),

    window: one<AvailabilityWindowRow>('SELECT * FROM restaurant_availability_windows WHERE id = ?'),
    windowsOfItem: all<AvailabilityWindowRow>('SELECT * FROM restaurant_availability_windows WHERE item_id = ? ORDER BY start_time, id'),
    insertWindow: insert<AvailabilityWindowRow>('restaurant_availability_windows', ['id', 'item_id', 'days', 'start_time', 'end_time']),
    deleteWindow: run('DELETE FROM restaurant_availability_windows WHERE id = ?'),
  }
}

/** The statements, on the store or on one open transaction. */
export type MenuStatements = ReturnType<typeof menuStatements>

export interface MenuStore extends MenuStatements {
  /** Runs `work` in one transaction, handing it the statements bound to that transaction. */
  transaction<T>(work: (tx: MenuStatements) => Promise<T>, options?: TransactionOptions): Promise<T>
}

export function menuStore(sql: SqlStore): MenuStore {
  return {
    ...menuStatements(sql),
    transaction: (work, options) => sql.transaction(tx => work(menuStatements(tx)), options),
  }
}
