// The numbered migrations (schema/sql's and each extension's, migration-files.ts) on PostgreSQL. One set of files serves both engines: each is written in
// SQLite's dialect within the subset both share, and rewritten for PostgreSQL by the substitution table below (as
// LND does for its native SQL). Where a rewrite cannot express a migration (a SQLite table rebuild, JSON
// functions), a twin `NNN_name.pg.sql` beside it is applied on PostgreSQL instead; SQLite's runner never reads
// twins (its pattern has no second dot). Every run holds pg_advisory_xact_lock, so daemons starting together on one
// database migrate it once, one after the other.
import fs from 'node:fs'
import path from 'node:path'
import type { SqlExecutor, SqlStore } from './sql-store.js'
import { refuseNewerSchema } from './schema-version.js'
import { migrationFiles, packageMigrationFolders, type MigrationFolders } from './migration-files.js'

/** Key of the migration lock (two int4: "rpay" and 1); the active-daemon lock uses ("rpay", 2). */
export const migrationLockKey = [0x72706179, 1] as const

/** SQLite's GLOB pattern as SIMILAR TO's: both match the whole text; `*` is `%`, `?` is `_`, [..] is the same. */
function globToSimilar(glob: string): string {
  return glob.replace(/[*?%_]/g, c => ({ '*': '%', '?': '_', '%': '\\%', _: '\\_' })[c]!)
}

/**
 * SQLite text → PostgreSQL text. Each row names what it changes and why it is the same schema:
 * - INTEGER PRIMARY KEY AUTOINCREMENT → BIGINT GENERATED ALWAYS AS IDENTITY: like AUTOINCREMENT a number is never
 *   handed out twice. Unlike SQLite, an explicit value is refused: PostgreSQL's sequence would not move past it and
 *   a later insert would collide. A copy of an installation inserts with OVERRIDING SYSTEM VALUE and then moves
 *   each sequence past the highest serial (setval), as SQLite's sqlite_sequence would have it.
 * - INTEGER → BIGINT: SQLite's INTEGER is 8 bytes; PostgreSQL's is 4 (2,147,483,647 msat is 2.1 M sat, and unix ms
 *   overflow it today). Every msat amount and time column is BIGINT.
 * - BLOB → BYTEA, REAL → DOUBLE PRECISION: the same values.
 * - WITHOUT ROWID: SQLite's storage choice; PostgreSQL tables have no rowid at all.
 * - GLOB 'pattern' → SIMILAR TO 'pattern' (whole-text match on both).
 * - json_extract(col, '$.key') → (col::jsonb ->> 'key'): the key's value as text, NULL when missing or null.
 */
const substitutions: [RegExp, string | ((...groups: string[]) => string)][] = [
  [/\bINTEGER\s+PRIMARY\s+KEY\s+AUTOINCREMENT\b/gi, 'BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY'],
  [/\bINTEGER\b/gi, 'BIGINT'],
  [/\bBLOB\b/gi, 'BYTEA'],
  [/\bREAL\b/gi, 'DOUBLE PRECISION'],
  [/\)\s*WITHOUT\s+ROWID\b/gi, ')'],
  [/\bGLOB\s+'([^']*)'/gi, (_match, glob) => `SIMILAR TO '${globToSimilar(glob!)}'`],
  [/\bjson_extract\(\s*([a-z_][a-z0-9_.]*)\s*,\s*'\$\.([a-z_][a-z0-9_]*)'\s*\)/gi, (_match, column, key) => `(${column}::jsonb ->> '${key}')`],
]

/** Comments go first: they are prose, and a word in them ("an INTEGER of msat") must not be rewritten. */
function withoutComments(sql: string): string {
  return sql.replace(/--[^\n]*/g, '')
}

export function toPostgresSchema(sqliteText: string): string {
  let sql = withoutComments(sqliteText)
  for (const [pattern, replacement] of substitutions) sql = sql.replace(pattern, replacement as string)
  return sql
}

export interface MigrationFile {
  version: number
  name: string
  /** The text PostgreSQL runs: the twin's when there is one, else the rewritten file. */
  postgresSql(): string
}

export function listMigrations(folders: MigrationFolders = packageMigrationFolders()): MigrationFile[] {
  return migrationFiles(folders).map(({ version, name, dir }) => {
    const twin = path.join(dir, name.replace(/\.sql$/, '.pg.sql'))
    return {
      version,
      name,
      postgresSql: () => (fs.existsSync(twin) ? fs.readFileSync(twin, 'utf8') : toPostgresSchema(fs.readFileSync(path.join(dir, name), 'utf8'))),
    }
  })
}

/**
 * Applies every migration the database lacks, each in its own transaction under the migration lock (taken
 * first, so the list of applied versions is read by one runner at a time). Returns the names applied.
 */
export async function migratePostgres(store: SqlStore, folders: MigrationFolders = packageMigrationFolders()): Promise<string[]> {
  if (store.engine !== 'postgres') throw new Error('migratePostgres runs on a PostgreSQL store')
  const files = listMigrations(folders)
  const applied: string[] = []
  const lock = (tx: SqlExecutor) => tx.one('SELECT pg_advisory_xact_lock(?, ?)', [...migrationLockKey])
  await store.transaction(async tx => {
    await lock(tx)
    await tx.run(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version BIGINT PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`)
    const done = await tx.many<{ version: number }>('SELECT version FROM schema_migrations')
    refuseNewerSchema(done.map(row => Number(row.version)), files.map(file => file.version))
  })
  for (const file of files) {
    const done = await store.transaction(
      async tx => {
        await lock(tx)
        if (await tx.one('SELECT 1 FROM schema_migrations WHERE version = ?', [file.version])) return false
        await tx.exec(file.postgresSql())
        await tx.run('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)', [
          file.version,
          file.name,
          new Date().toISOString(),
        ])
        return true
      },
      { retries: 0 },
    )
    if (done) applied.push(file.name)
  }
  return applied
}
