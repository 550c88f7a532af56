// The daemon's one SQLite database: opened in WAL mode, migrated at start from the numbered migrations (schema/sql's
// and each extension's, migration-files.ts).
import Database from 'better-sqlite3'
import fs from 'node:fs'
import path from 'node:path'
import type { CheckpointWorker } from './checkpointer.js'
import type { SqlStore } from './sql-store.js'
import { sqliteSqlStore } from './sqlite-sql-store.js'
import { refuseNewerSchema } from './schema-version.js'
import { migrationFiles, packageMigrationFolders, type MigrationFolders } from './migration-files.js'

export { startCheckpointWorker, type CheckpointWorker } from './checkpointer.js'
// The engine layer (docs/postgres.md): rooms ported to it take a SqlStore, on either engine.
export {
  isStoreFault,
  sqlErrorKind,
  type Isolation,
  type SqlEngine,
  type SqlErrorKind,
  type SqlExecutor,
  type SqlParams,
  type SqlStore,
  type SqlTransaction,
  type TransactionOptions,
} from './sql-store.js'
export { sqliteSqlStore } from './sqlite-sql-store.js'
export { postgresSqlStore, type PostgresStoreOptions } from './postgres-sql-store.js'
export { migratePostgres, toPostgresSchema } from './postgres-migrations.js'
export { migrationFiles, newestMigration, packageMigrationFolders, type MigrationFileRef, type MigrationFolders } from './migration-files.js'
export { acquireActiveLock, ActiveElsewhere, checkEpoch, lockHolder, NotActive, type ActiveLease, type ActiveLockOptions } from './active-lock.js'
export { postgresWriteProbe, writeProbe, type WriteProbe } from './writable.js'
export { openDatabaseFile, readDatabaseFile, refuseNewerSchema, schemaVersionOf } from './schema-version.js'
export { commitWithoutSync, walSyncFor, type WalSync } from './wal-sync.js'
export { DataDirInUse, lockDataDir, type DataDirLock } from './data-dir-lock.js'
export { databaseName, forgetPostgresBooks, notePostgresBooks, postgresBooksOf, type PostgresBooksNote } from './books-place.js'

export type Db = Database.Database

export interface StoreOptions {
  dataDir: string
  /** File name inside the data dir. */
  file?: string
  /** SQLite `synchronous` level: `full` makes every commit durable against power loss. */
  synchronous?: 'full' | 'normal'
  /** Folder(s) of numbered migrations; defaults to the package's (schema/sql and each extension's). */
  migrationsDir?: MigrationFolders
  /**
   * Checkpoint the WAL on this worker thread instead of inside commits (checkpointer.ts): for the daemon, whose
   * one thread serves every request. Tools that open the database briefly keep SQLite's automatic checkpoints.
   */
  checkpoints?: CheckpointWorker
}

export interface Store {
  db: Db
  /** The same connection through the engine-neutral interface, for rooms ported to it. */
  sql: SqlStore
  file: string
  /** Migrations applied by this open (empty when the schema was current). */
  applied: string[]
  close(): void
}


/** Creates the data dir (0700) if needed and opens the database file (0600). */
export function ensureDataDir(dataDir: string): void {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 })
}

export function openStore(opts: StoreOptions): Store {
  ensureDataDir(opts.dataDir)
  const file = path.join(opts.dataDir, opts.file ?? 'relaypay.sqlite')
  const existed = fs.existsSync(file)
  const db = new Database(file)
  if (!existed) fs.chmodSync(file, 0o600)
  db.pragma('journal_mode = WAL')
  db.pragma(`synchronous = ${opts.synchronous === 'normal' ? 'NORMAL' : 'FULL'}`)
  db.pragma('foreign_keys = ON')
  db.pragma('busy_timeout = 5000')
  // SQLite's default page cache is 2 MB. With a journal of a million rows the index pages a payment touches no
  // longer fit, and every payment reads some back from the OS (about 0.09 ms of CPU each at 1M rows). 16 MB holds
  // them; the cache only grows as pages are used.
  db.pragma('cache_size = -16384')
  // Statement and savepoint journals in memory: every money movement runs in a savepoint of the group commit, and
  // with the default (a temp file) each wrote its journal there. Measured at c=32 (bench/side-by-side.ts): write
  // calls per payment 116-126 -> 55-59, and the payment rate back above the build before the SqlStore port.
  db.pragma('temp_store = MEMORY')
  const applied = migrate(db, opts.migrationsDir ?? packageMigrationFolders())
  const unwatch = opts.checkpoints?.watch(db)
  return {
    db,
    sql: sqliteSqlStore(db),
    file,
    applied,
    close: () => {
      unwatch?.()
      db.close()
    },
  }
}


/**
 * Applies every migration newer than the database, each inside its own transaction, in numeric order; refuses a
 * database that records a migration this build does not have (refuseNewerSchema).
 */
export function migrate(db: Db, folders: MigrationFolders): string[] {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`)
  const done = new Set(
    (db.prepare('SELECT version FROM schema_migrations').all() as { version: number }[]).map(r => r.version),
  )
  const files = migrationFiles(folders)
  refuseNewerSchema(done, files.map(file => file.version))
  const applied: string[] = []
  const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)')
  for (const { version, name, dir } of files) {
    if (done.has(version)) continue
    const sql = fs.readFileSync(path.join(dir, name), 'utf8')
    db.transaction(() => {
      db.exec(sql)
      record.run(version, name, new Date().toISOString())
    })()
    applied.push(name)
  }
  return applied
}
export { copySqliteToPostgres, StoreCopyError, type CopiedTable, type StoreCopyOptions } from './copy.js'
