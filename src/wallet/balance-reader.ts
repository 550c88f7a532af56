// The users' total balance for periodic sampling (metrics). The sum reads every wallet row: on the daemon's
// connection those pages would stay in its 16 MB page cache though payments need few of them (RSS after start with
// 100k wallets: 178 MB before, 147-165 MB after this). A read-only connection of its own, with a small cache, sees
// the same committed rows. An in-memory database has no second connection.
import Database from 'better-sqlite3'
import type { Db } from '../store/index.js'
import type { WalletBalanceReader } from './door.js'

/** Page cache of the connection the users' sum is read on: a sequential scan reuses a few pages. */
const readerCacheKib = 512

export function openBalanceReader(db: Db): WalletBalanceReader {
  const reader = db.memory ? db : new Database(db.name, { readonly: true, fileMustExist: true })
  if (reader !== db) reader.pragma(`cache_size = -${readerCacheKib}`)
  const usersBalance = reader.prepare('SELECT COALESCE(SUM(balance_msat), 0) FROM users').pluck()
  return {
    usersBalanceMsat: () => Number(usersBalance.get()),
    close: () => {
      if (reader !== db) reader.close()
    },
  }
}
