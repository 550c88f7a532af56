// The books of a test daemon, reached behind its back: the tables in its data dir's relaypay.sqlite, or in the
// PostgreSQL database the harness gave that data dir (RELAYPAY_TEST_STORE=postgres, test/support/daemon.ts). For
// tests that plant or read rows the way a crash, a disk error or an operator's edit would leave them; the same SQL
// runs on both engines (`?` placeholders, the shared subset docs/postgres.md describes).
import Database from 'better-sqlite3'
import path from 'node:path'
import { postgresSqlStore, sqliteSqlStore, type SqlEngine, type SqlStore } from '../../src/store/index.js'
import { storeUrlOf } from './daemon.js'

export interface DaemonBooks extends SqlStore {
  /** Which engine holds the books of this data dir. */
  readonly engine: SqlEngine
  /** Where: the SQLite file's path or the PostgreSQL database's URL, for messages. */
  readonly where: string
}

/**
 * Opens the books of `dataDir`'s daemon (running or not): its PostgreSQL database when the harness put it there,
 * else its SQLite file (waiting up to 5 s for the daemon's write lock). Close it when done.
 */
export function openBooks(dataDir: string, opts: { readonly?: boolean } = {}): DaemonBooks {
  const url = storeUrlOf(dataDir)
  if (url) {
    const store = postgresSqlStore({ url, max: 2, applicationName: 'relaypay-test-books' })
    return { ...store, engine: 'postgres', where: url }
  }
  const file = path.join(dataDir, 'relaypay.sqlite')
  const db = new Database(file, { readonly: opts.readonly ?? false, fileMustExist: true })
  db.pragma('busy_timeout = 5000')
  const store = sqliteSqlStore(db)
  return {
    ...store,
    engine: 'sqlite',
    where: file,
    async close() {
      await store.close()
      db.close()
    },
  }
}

/** Runs `work` on the books of `dataDir` and closes them after. */
export async function withBooks<T>(dataDir: string, work: (books: DaemonBooks) => Promise<T>, opts: { readonly?: boolean } = {}): Promise<T> {
  const books = openBooks(dataDir, opts)
  try {
    return await work(books)
  } finally {
    await books.close()
  }
}

/**
 * Bytes the books of `dataDir` take: the SQLite database's pages, or the PostgreSQL database
 * (`pg_database_size`: its tables, indexes and free space, the server's WAL not counted).
 */
export async function booksBytes(dataDir: string): Promise<number> {
  if (!storeUrlOf(dataDir)) {
    // The database as of its last commit: its pages, the WAL's newest frames included. Not the files' sizes: the
    // WAL file keeps the size it once reached (it is reused from its start after each checkpoint), and when it
    // reaches it depends on when the checkpoint thread starts, not on what the books hold.
    const db = new Database(path.join(dataDir, 'relaypay.sqlite'), { readonly: true, fileMustExist: true })
    try {
      return Number(db.pragma('page_count', { simple: true })) * Number(db.pragma('page_size', { simple: true }))
    } finally {
      db.close()
    }
  }
  return withBooks(dataDir, async books => (await books.one<{ bytes: number }>('SELECT pg_database_size(current_database()) AS bytes'))!.bytes)
}
