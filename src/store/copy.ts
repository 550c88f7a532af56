// Moving an installation from SQLite to PostgreSQL (`relaypay store copy`): every table of the daemon's database,
// row for row, into a PostgreSQL database migrated by this build, in ONE transaction — a copy that fails half-way
// leaves the target as empty as it was, and the copy can simply be run again. Rows keep their ids: identity columns
// are inserted with OVERRIDING SYSTEM VALUE and each sequence is then moved past the highest id SQLite ever handed
// out (sqlite_sequence, which remembers deleted ids too), so no id is handed out twice. Integers are read as BigInt
// (exact past 2^53) and written as text. Tables go parents first (SQLite's foreign keys), so PostgreSQL's foreign
// keys hold at every insert. The embedded relay's events (relay.sqlite) stay local, as they do in the daemon.
import type Database from 'better-sqlite3'
import { openDatabaseFile } from './schema-version.js'
import { listMigrations, migratePostgres } from './postgres-migrations.js'
import { packageMigrationFolders, type MigrationFolders } from './migration-files.js'
import type { SqlExecutor, SqlStore } from './sql-store.js'

export class StoreCopyError extends Error {}

export interface CopiedTable {
  table: string
  rows: number
}

export interface StoreCopyOptions {
  /** The daemon's database file (<data dir>/relaypay.sqlite); nothing may be writing it. */
  sqliteFile: string
  target: SqlStore
  /** Folder(s) of numbered migrations; defaults to the package's. */
  migrationsDir?: MigrationFolders
  /** Called after each table, in copy order. */
  onTable?(copied: CopiedTable): void
}

/** PostgreSQL takes at most 65,535 parameters per statement; batches stay well below. */
const maxParamsPerInsert = 30_000
const maxRowsPerInsert = 1_000

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`

export async function copySqliteToPostgres(opts: StoreCopyOptions): Promise<CopiedTable[]> {
  const dir = opts.migrationsDir ?? packageMigrationFolders()
  const latest = Math.max(0, ...listMigrations(dir).map(file => file.version))
  const source = openDatabaseFile(opts.sqliteFile)
  try {
    source.defaultSafeIntegers(true)
    const version = Number((source.prepare('SELECT COALESCE(MAX(version), 0) AS v FROM schema_migrations').get() as { v: bigint }).v)
    if (version !== latest) {
      throw new StoreCopyError(
        `the database is at schema version ${version} and this relaypay at ${latest}: start this relaypay on the data dir once (it migrates at start), stop it, then copy`,
      )
    }
    await migratePostgres(opts.target, dir)
    const tables = tablesParentsFirst(source)
    const identities = await identityColumns(opts.target)
    const copied: CopiedTable[] = []
    // One read transaction on SQLite (one snapshot) inside one transaction on PostgreSQL (all or nothing).
    source.exec('BEGIN')
    try {
      await opts.target.transaction(
        async tx => {
          for (const table of tables) await refuseRows(tx, table)
          for (const table of tables) {
            const rows = await copyTable(source, tx, table, identities.get(table)).catch(err => {
              throw err instanceof StoreCopyError ? err : new StoreCopyError(`copying ${table}: ${(err as Error).message}`)
            })
            copied.push({ table, rows })
            opts.onTable?.({ table, rows })
          }
        },
        { retries: 0 },
      )
    } finally {
      source.exec('COMMIT')
    }
    return copied
  } finally {
    source.close()
  }
}

/** The daemon's tables (not SQLite's own, not the migrations record), parents before the tables that refer to them. */
function tablesParentsFirst(db: Database.Database): string[] {
  const names = (
    db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name != 'schema_migrations' ORDER BY name`).all() as {
      name: string
    }[]
  ).map(row => row.name)
  const parents = new Map(
    names.map(name => [
      name,
      new Set((db.prepare(`SELECT "table" AS parent FROM pragma_foreign_key_list(?)`).all(name) as { parent: string }[]).map(row => row.parent).filter(parent => parent !== name)),
    ]),
  )
  const ordered: string[] = []
  const placed = new Set<string>()
  while (ordered.length < names.length) {
    const ready = names.filter(name => !placed.has(name) && [...parents.get(name)!].every(parent => placed.has(parent) || !parents.has(parent)))
    if (ready.length === 0) throw new StoreCopyError(`the foreign keys of ${names.filter(name => !placed.has(name)).join(', ')} form a cycle`)
    for (const name of ready) {
      ordered.push(name)
      placed.add(name)
    }
  }
  return ordered
}

async function identityColumns(target: SqlStore): Promise<Map<string, string>> {
  const rows = await target.many<{ table: string; column: string }>(
    `SELECT table_name AS "table", column_name AS "column" FROM information_schema.columns
     WHERE table_schema = current_schema() AND is_identity = 'YES'`,
  )
  return new Map(rows.map(row => [row.table, row.column]))
}

async function refuseRows(tx: SqlExecutor, table: string): Promise<void> {
  const exists = await tx.one(`SELECT 1 AS found FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = ?`, [table])
  if (!exists) throw new StoreCopyError(`table ${table} of the SQLite database has no counterpart in PostgreSQL`)
  if (await tx.one(`SELECT 1 AS found FROM ${quote(table)} LIMIT 1`)) {
    throw new StoreCopyError(`the PostgreSQL database already holds rows in ${table}: copy into a new, empty database`)
  }
}

async function copyTable(source: Database.Database, tx: SqlExecutor, table: string, identity: string | undefined): Promise<number> {
  const info = source.prepare(`SELECT name, pk FROM pragma_table_info(?) ORDER BY cid`).all(table) as { name: string; pk: bigint }[]
  const columns = info.map(column => column.name)
  const keys = info.filter(column => column.pk > 0n).sort((a, b) => Number(a.pk - b.pk)).map(column => quote(column.name))
  const withoutRowid = (source.prepare(`SELECT sql FROM sqlite_master WHERE name = ?`).get(table) as { sql: string }).sql.match(/WITHOUT\s+ROWID/i)
  const order = keys.length > 0 ? keys.join(', ') : withoutRowid ? columns.map(quote).join(', ') : 'rowid'
  const perInsert = Math.max(1, Math.min(maxRowsPerInsert, Math.floor(maxParamsPerInsert / columns.length)))
  const head = `INSERT INTO ${quote(table)} (${columns.map(quote).join(', ')})${identity ? ' OVERRIDING SYSTEM VALUE' : ''} VALUES `
  const tuple = `(${columns.map(() => '?').join(', ')})`
  let batch: unknown[] = []
  let inBatch = 0
  let rows = 0
  const flush = async () => {
    if (inBatch === 0) return
    await tx.run(head + Array(inBatch).fill(tuple).join(', '), batch)
    rows += inBatch
    batch = []
    inBatch = 0
  }
  for (const row of source.prepare(`SELECT ${columns.map(quote).join(', ')} FROM ${quote(table)} ORDER BY ${order}`).raw().iterate() as Iterable<unknown[]>) {
    for (const value of row) batch.push(typeof value === 'bigint' ? value.toString() : value)
    if (++inBatch === perInsert) await flush()
  }
  await flush()
  if (identity) await moveSequence(source, tx, table, identity)
  return rows
}

/** The sequence goes past every id SQLite handed out for the table, deleted ones included. */
async function moveSequence(source: Database.Database, tx: SqlExecutor, table: string, column: string): Promise<void> {
  const hasSequence = source.prepare(`SELECT 1 FROM sqlite_master WHERE name = 'sqlite_sequence'`).get()
  const handedOut = hasSequence ? (source.prepare(`SELECT seq FROM sqlite_sequence WHERE name = ?`).get(table) as { seq: bigint } | undefined)?.seq : undefined
  const highest = (source.prepare(`SELECT MAX(${quote(column)}) AS id FROM ${quote(table)}`).get() as { id: bigint | null }).id
  const last = [handedOut ?? 0n, highest ?? 0n].reduce((a, b) => (a > b ? a : b))
  if (last > 0n) await tx.one(`SELECT setval(pg_get_serial_sequence(?, ?), ?)`, [quote(table), column, last.toString()])
}
