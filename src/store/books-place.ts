// Where a data dir's books are: a daemon on PostgreSQL leaves a note in its data dir, because the data dir still
// holds a SQLite file of the same name (relaypay.sqlite: migrated, its ledger tables empty) that a tool reading only
// the data dir would take for the books: `relaypay backup` would archive empty books and `relaypay audit` would call
// them clean. The note names the server and database (never the password) and when the daemon last started there;
// a daemon on SQLite removes it.
import fs from 'node:fs'
import path from 'node:path'

const noteFile = 'books-in-postgres.json'

export interface PostgresBooksNote {
  /** The database as `host:port/name`, no user or password. */
  database: string
  since: string
}

/** `host:port/name` of a postgres:// URL, with no credentials. */
export function databaseName(url: string): string {
  try {
    const parsed = new URL(url)
    return `${parsed.hostname}${parsed.port ? `:${parsed.port}` : ''}${parsed.pathname}`
  } catch {
    return 'a PostgreSQL database'
  }
}

export function notePostgresBooks(dataDir: string, url: string, now = new Date()): void {
  const note: PostgresBooksNote = { database: databaseName(url), since: now.toISOString() }
  const file = path.join(dataDir, noteFile)
  fs.writeFileSync(`${file}.tmp`, JSON.stringify(note) + '\n', { mode: 0o600 })
  fs.renameSync(`${file}.tmp`, file)
}

export function forgetPostgresBooks(dataDir: string): void {
  fs.rmSync(path.join(dataDir, noteFile), { force: true })
}

/** The note of a daemon on PostgreSQL in this data dir, if any. */
export function postgresBooksOf(dataDir: string): PostgresBooksNote | undefined {
  let text: string
  try {
    text = fs.readFileSync(path.join(dataDir, noteFile), 'utf8')
  } catch {
    return undefined
  }
  try {
    const note = JSON.parse(text) as Partial<PostgresBooksNote>
    return { database: String(note.database ?? 'a PostgreSQL database'), since: String(note.since ?? 'an earlier start') }
  } catch {
    return { database: 'a PostgreSQL database', since: 'an earlier start' }
  }
}
