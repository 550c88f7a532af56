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
