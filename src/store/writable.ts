// Whether the store can take a write now (the readiness probe asks): the write lock, and a row of the store's own
// migrations table changed to itself, then rolled back, so the check leaves nothing behind. A read-only file, a
// lost lock or a full disk on the lock fails it. The store's tables are the store's: the probe asks here.
import type Database from 'better-sqlite3'

/** ok with what was seen, or why the store cannot take a write. */
export function writeProbe(db: Database.Database): { ok: true; detail: 'writable' | 'a transaction is open' } | { ok: false; detail: string } {
  // Synchronous code cannot interleave with another transaction on this connection; still, never nest one.
  if (db.inTransaction) return { ok: true, detail: 'a transaction is open' }
  try {
    db.exec('BEGIN IMMEDIATE')
    try {
      db.prepare('UPDATE schema_migrations SET name = name WHERE version = (SELECT MAX(version) FROM schema_migrations)').run()
    } finally {
      db.exec('ROLLBACK')
    }
    return { ok: true, detail: 'writable' }
  } catch (err) {
    return { ok: false, detail: `not writable: ${(err as Error).message}` }
  }
}
