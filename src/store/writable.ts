// Whether the store can take a write now (the readiness probe asks): the write lock, and a row of the store's own
// migrations table changed to itself, then rolled back, so the check leaves nothing behind. A read-only file, a
// lost lock or a full disk on the lock fails it. The store's tables are the store's: the probe asks here.
import type Database from 'better-sqlite3'
import type { SqlStore } from './sql-store.js'

export type WriteProbe = { ok: true; detail: string } | { ok: false; detail: string }

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

/** Thrown inside the PostgreSQL probe's transaction to roll its write back. */
class ProbeRollback extends Error {}

/**
 * Whether PostgreSQL takes a write now, as the SQLite probe above asks: a replica in recovery does not, nor a
 * database or session made read-only (`default_transaction_read_only`), nor one whose migrations row an operator's
 * session holds locked past `lock_timeout`. The write is a row of the migrations table set to itself, rolled back,
 * so the check leaves nothing behind.
 */
export async function postgresWriteProbe(sql: SqlStore): Promise<WriteProbe> {
  const row = await sql.one<{ recovery: boolean }>('SELECT pg_is_in_recovery() AS recovery')
  if (row?.recovery) return { ok: false, detail: 'PostgreSQL is a read-only replica (in recovery)' }
  try {
    await sql.transaction(async tx => {
      await tx.run('UPDATE schema_migrations SET name = name WHERE version = (SELECT MAX(version) FROM schema_migrations)')
      throw new ProbeRollback()
    }, { retries: 0 })
  } catch (err) {
    if (!(err instanceof ProbeRollback)) return { ok: false, detail: `not writable: ${(err as Error).message}` }
  }
  return { ok: true, detail: 'PostgreSQL takes writes' }
}
