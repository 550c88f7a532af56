// The log scan every test daemon gets when it stops, for logs must never hold a secret: the secrets a daemon holds
// or handed out — its data-dir secret files, the secret columns of its database, the tokens and keys tests sent
// and received, its config's tokens — and shapes that are secret wherever they appear (JWTs, nsec keys, LND
// macaroons) must not occur in anything it printed. Everything here is synchronous so it can also run at exit, but
// the books in PostgreSQL (the suite's PostgreSQL run), which are read when the daemon stops or is killed.
import fs from 'node:fs'
import path from 'node:path'
import Database from 'better-sqlite3'
import pg from 'pg'

/** A secret value and where it came from (named in a failure; the value itself never is). */
export interface KnownSecret {
  what: string
  value: string
}

/** Data-dir files whose whole content is a secret. */
const secretFiles = ['admin.token', '.jwt_secret', 'node.key', 'admin.enroll']
/** Database columns holding secrets, by name, in every table (so new tables are covered without a list). */
const secretColumn = /(secret|private_key|preimage|admin_key|invoice_key|token|k1|macaroon|seed|mnemonic)/i
/** JSON fields of answers and headers of requests that carry secrets. */
const secretField = /^(auth_token|token|invoice_key|admin_key|preimage|secret|nsec|macaroon|jwt_secret|service_secret|nostr_private_key|mnemonic|seed|authorization|x-api-key)$/i
/** Config keys whose values are secrets. */
const secretConfigKey = /^\s*(admin_token|metrics_token|jwt_secret|[a-z_]*secret[a-z_]*|[a-z_]*token[a-z_]*)\s*=\s*"([^"]+)"/gim
/** Secret shapes: a JWT, a bech32 private key, an LND macaroon in hex (it starts with version 2, location "lnd"). */
const secretShapes: { what: string; pattern: RegExp }[] = [
  { what: 'a JWT', pattern: /eyJ[\w-]{8,}\.eyJ[\w-]{8,}\.[\w-]{16,}/ },
  { what: 'an nsec private key', pattern: /nsec1[02-9ac-hj-np-z]{50,}/ },
  { what: 'an LND macaroon', pattern: /0201036c6e64[0-9a-f]{20,}/i },
]
/** Shorter values are too likely to occur by chance (and no secret of ours is this short). */
const minLength = 16

export class SecretLedger {
  private readonly values = new Map<string, string>()

  add(what: string, value: unknown): void {
    if (typeof value !== 'string') return
    const trimmed = value.replace(/^Bearer\s+/i, '').trim()
    if (trimmed.length >= minLength && !this.values.has(trimmed)) this.values.set(trimmed, what)
  }

  /** Secret fields anywhere in a JSON answer, and NWC/secret query parameters inside its strings. */
  addFromJson(json: unknown, where: string): void {
    const walk = (value: unknown, key: string) => {
      if (typeof value === 'string') {
        if (secretField.test(key)) this.add(`${where}: ${key}`, value)
        for (const m of value.matchAll(/[?&]secret=([0-9a-f]{32,})/gi)) this.add(`${where}: ${key} secret parameter`, m[1])
      } else if (Array.isArray(value)) value.forEach(item => walk(item, key))
      else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) walk(v, k)
    }
    walk(json, '')
  }

  addFromHeaders(headers: Record<string, string> | undefined, where: string): void {
    for (const [name, value] of Object.entries(headers ?? {})) if (secretField.test(name)) this.add(`${where}: ${name} header`, value)
  }

  addFromConfig(toml: string | undefined): void {
    if (!toml) return
    for (const m of toml.matchAll(secretConfigKey)) this.add(`config ${m[1]}`, m[2])
    const macaroon = /^\s*lnd_macaroon_path\s*=\s*"([^"]+)"/m.exec(toml)?.[1]
    if (macaroon) this.addFile('the LND macaroon', macaroon, 'hex')
  }

  addFile(what: string, file: string, encoding: 'utf8' | 'hex' = 'utf8'): void {
    try {
      this.add(what, fs.readFileSync(file).toString(encoding))
    } catch {
      // not there: nothing to look for
    }
  }

  /** The data dir's secret files and every secret column of its database (read-only, after the daemon stopped). */
  addFromDataDir(dataDir: string): void {
    for (const name of secretFiles) this.addFile(name, path.join(dataDir, name))
    const file = path.join(dataDir, 'relaypay.sqlite')
    if (!fs.existsSync(file)) return
    let db: Database.Database | undefined
    try {
      db = new Database(file, { readonly: true, fileMustExist: true })
      const tables = db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).pluck().all() as string[]
      for (const table of tables) {
        const columns = (db.prepare(`SELECT name FROM pragma_table_info(?)`).pluck().all(table) as string[]).filter(c => secretColumn.test(c))
        for (const column of columns) {
          for (const value of db.prepare(`SELECT "${column}" FROM "${table}" WHERE "${column}" IS NOT NULL`).pluck().iterate()) {
            this.add(`${table}.${column}`, value)
          }
        }
      }
    } catch {
      // A database another test left half-written (a crash test) still had its log scanned for the other secrets.
    } finally {
      db?.close()
    }
  }

  /** Every secret column of the books in the PostgreSQL database at `url` (the tables the daemon keeps there). */
  async addFromPostgres(url: string): Promise<void> {
    const client = new pg.Client({ connectionString: url })
    try {
      await client.connect()
      const columns = await client.query<{ table_name: string; column_name: string }>(
        `SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = 'public' AND data_type = 'text'`,
      )
      for (const { table_name: table, column_name: column } of columns.rows.filter(c => secretColumn.test(c.column_name))) {
        const values = await client.query({ text: `SELECT "${column}" AS v FROM "${table}" WHERE "${column}" IS NOT NULL`, rowMode: 'array' })
        for (const [value] of values.rows) this.add(`${table}.${column}`, value)
      }
    } catch {
      // A database dropped or unreachable: the log is still scanned for the other secrets.
    } finally {
      await client.end().catch(() => {})
    }
  }

  /** Where the known secrets came from (what a test can check the scan covers). */
  sources(): string[] {
    return [...new Set(this.values.values())]
  }

  /** Every leak in `output`, described without the secret itself. */
  leaksIn(output: string): string[] {
    const leaks: string[] = []
    for (const [value, what] of this.values) {
      const at = output.indexOf(value)
      if (at !== -1) leaks.push(`${what} appears in the log: …${redact(output, at, value.length)}…`)
    }
    for (const { what, pattern } of secretShapes) {
      const m = pattern.exec(output)
      if (m) leaks.push(`${what} appears in the log: …${redact(output, m.index, m[0].length)}…`)
    }
    return leaks
  }
}

function redact(output: string, at: number, length: number): string {
  return (output.slice(Math.max(0, at - 120), at) + '<SECRET>' + output.slice(at + length, at + length + 60)).replace(/\s+/g, ' ')
}
