// The schema version of a database file (a backup's copy, say): the newest migration applied to it. The migrations
// table is the store's; a room that needs the version of a file asks here.
import Database from 'better-sqlite3'

/** The newest migration version recorded in the database file; 0 when none was applied. Opens it read-only. */
export function schemaVersionOf(file: string): number {
  const db = new Database(file, { readonly: true, fileMustExist: true })
  try {
    return (db.prepare('SELECT COALESCE(MAX(version), 0) AS v FROM schema_migrations').get() as { v: number }).v
  } finally {
    db.close()
  }
}
