// The users' total balance for periodic sampling (metrics). The sum reads every wallet row: on the daemon's SQLite
// connection those pages would stay in its 16 MB page cache though payments need few of them (RSS after start with
// 100k wallets: 178 MB before, 147-165 MB after this). So on SQLite a read-only connection of its own, with a small
// cache, sees the same committed rows (an in-memory database has no second connection: the store is read). On
// PostgreSQL the sum is one statement on the store's pool: the server reads the rows, the daemon gets one number.
import Database from 'better-sqlite3'
import type { SqlStore } from '../store/index.js'
import type { WalletBalanceReader } from './door.js'

/** Page cache of the connection the users' sum is read on: a sequential scan reuses a few pages. */
const readerCacheKib = 512

const usersBalance = 'SELECT CAST(COALESCE(SUM(balance_msat), 0) AS BIGINT) AS total FROM users'

/** `file`: the SQLite database file (undefined when in memory); not read on PostgreSQL. */
export function openBalanceReader(sql: SqlStore, file?: string): WalletBalanceReader {
  if (sql.engine === 'postgres' || file === undefined) {
    return {
      usersBalanceMsat: async () => Number((await sql.one<{ total: number }>(usersBalance))?.total ?? 0),
      close: () => {},
    }
  }
  const reader = new Database(file, { readonly: true, fileMustExist: true })
  reader.pragma(`cache_size = -${readerCacheKib}`)
  const statement = reader.prepare(usersBalance).pluck()
  return {
    usersBalanceMsat: async () => Number(statement.get()),
    close: () => reader.close(),
  }
}
