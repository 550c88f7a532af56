// Reading a database file that is not the daemon's open store (a backup's copy, say): opened read-only for one
// read and closed. The migrations table is the store's, so the schema version of a file is read here too.
import Database from 'better-sqlite3'

/** Opens the database file read-only; the caller closes it. */
export function openDatabaseFile(file: string): Database.Database {
  return new Database(file, { readonly: true, fileMustExist: true })
}

/** Opens the database file read-only, runs `read` on it and closes it again. */
export function readDatabaseFile<T>(file: string, read: (db: Database.Database) => T): T {
  const db = openDatabaseFile(file)
  try {
    return read(db)
  } finally {
    db.close()
  }
}

/** The newest migration version recorded in the database file; 0 when none was applied. */
export function schemaVersionOf(file: string): number {
  return readDatabaseFile(file, db => (db.prepare('SELECT COALESCE(MAX(version), 0) AS v FROM schema_migrations').get() as { v: number }).v)
}

/**
 * Refuses a database that records migrations this build does not have: it was written by a newer relaypay. An
 * older build on a newer schema would not fail at once but use it wrongly (a lookup whose index a newer migration
 * dropped walks the whole table on every payment, as the payments bench found), so the start stops here.
 */
export function refuseNewerSchema(applied: Iterable<number>, known: Iterable<number>): void {
  const have = new Set(known)
  const unknown = [...applied].filter(version => !have.has(version)).sort((a, b) => a - b)
  if (unknown.length === 0) return
  const newest = Math.max(0, ...have)
  throw new Error(
    `the database is at schema version ${unknown.at(-1)}, newer than this build (${newest}): it was written by a newer relaypay ` +
      `(migration${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}). Start the version that wrote it, or restore a backup made by this one`,
  )
}
