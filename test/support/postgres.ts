// A real PostgreSQL 15 for tests: Debian's server binaries started in a temporary directory on a free loopback port,
// or the server RELAYPAY_TEST_POSTGRES_URL names (.ci/run starts one for the whole run and sets it). Each test file
// gets a database of its own. Without a server the PostgreSQL tests report themselves skipped, unless
// RELAYPAY_TEST_REQUIRE_POSTGRES=1 (set by .ci/run), where a missing server fails them.
import { execFile, execFileSync } from 'node:child_process'
import { promisify } from 'node:util'
import { createHash, randomBytes } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { migratePostgres, packageMigrationFolders, postgresSqlStore } from '../../src/store/index.js'
import { freePort } from './ports.js'

export const postgresBinDir = process.env.RELAYPAY_TEST_POSTGRES_BIN ?? '/usr/lib/postgresql/15/bin'

export interface TestPostgres {
  /** URL of a fresh, empty database on the server. */
  url: string
  /** URL of the server's `postgres` database (for CREATE DATABASE and the like). */
  adminUrl: string
  /** Drops the database and stops the server when this file started it. */
  close(): Promise<void>
}

export interface PostgresServer {
  /** URL of the `postgres` database, user relaypay, no password (trust on loopback). */
  adminUrl: string
  /** Stops the server at once (`-m immediate`: nothing in it is worth a clean shutdown) and deletes its files. */
  stop(): void
  /**
   * Restarts the server and returns once it accepts sessions again: `fast` ends every session and shuts down
   * cleanly, `immediate` is a crash (no shutdown checkpoint; the server recovers from its WAL at start).
   */
  restart(mode: 'fast' | 'immediate'): Promise<void>
}

const postgresRequired = () => process.env.RELAYPAY_TEST_REQUIRE_POSTGRES === '1'

/** Where a test server cannot start: undefined and why, or a throw when the run requires PostgreSQL. */
function unavailable(reason: string): undefined {
  if (postgresRequired()) throw new Error(`RELAYPAY_TEST_REQUIRE_POSTGRES=1 but ${reason}`)
  postgresSkipReason = reason
  return undefined
}

/** Why the last `testPostgres()` gave undefined, for the skip line. */
export let postgresSkipReason = ''

/**
 * Starts PostgreSQL in a new temporary directory: initdb (trust, user relaypay, no sync), then the server on
 * 127.0.0.1 and a free port, its socket in the directory, with fsync off and commits answered before their WAL is
 * written. `durableCommits`: commits wait for their WAL (a test that crashes the server needs them); `durable`:
 * PostgreSQL's own defaults, fsync included, for benches that compare it with SQLite at synchronous = full. initdb
 * refuses to run as root, so as root the directory goes to the `postgres` user and the binaries run through `runuser`.
 */
export async function startPostgresServer(opts: { durable?: boolean; durableCommits?: boolean } = {}): Promise<PostgresServer> {
  const bin = (name: string) => path.join(postgresBinDir, name)
  if (!fs.existsSync(bin('initdb')) || !fs.existsSync(bin('pg_ctl'))) {
    throw new Error(`no PostgreSQL server binaries in ${postgresBinDir} (apt-get install postgresql-15)`)
  }
  const root = process.getuid?.() === 0
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'relaypay-pg-'))
  const data = path.join(dir, 'data')
  const as = (file: string, args: string[]) =>
    root ? execFileSync('runuser', ['-u', 'postgres', '--', file, ...args], { stdio: 'pipe' }) : execFileSync(file, args, { stdio: 'pipe' })
  if (root) execFileSync('chown', ['postgres:postgres', dir])
  const remove = () => fs.rmSync(dir, { recursive: true, force: true })
  try {
    as(bin('initdb'), ['-D', data, '--auth=trust', '-U', 'relaypay', '--no-sync', '-E', 'UTF8', '--locale=C'])
    const port = await freePort()
    const settings = [
      `-p ${port}`, "-c listen_addresses='127.0.0.1'", `-k ${dir}`, '-c max_connections=200',
      // Off, a commit is answered before its WAL is written: a server crash (`restart('immediate')`) loses it.
      // fsync and full-page writes only matter when the machine itself goes down, which no test does.
      ...(opts.durable ? [] : ['-c fsync=off', '-c full_page_writes=off']),
      ...(opts.durable || opts.durableCommits ? [] : ['-c synchronous_commit=off']),
    ].join(' ')
    as(bin('pg_ctl'), ['-D', data, '-l', path.join(dir, 'server.log'), '-o', settings, '-w', '-t', '30', 'start'])
    let stopped = false
    const stop = () => {
      if (stopped) return
      stopped = true
      try {
        as(bin('pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop'])
      } catch {
        // Already gone (killed with its test): the files are removed all the same.
      }
      remove()
    }
    // A test file that crashes still stops its server: `exit` handlers run for uncaught errors and process.exit.
    process.once('exit', stop)
    // Not blocking: the test's own clients go on while the server restarts.
    const restart = async (mode: 'fast' | 'immediate') => {
      const args = ['-D', data, '-l', path.join(dir, 'server.log'), '-o', settings, '-m', mode, '-w', '-t', '30', 'restart']
      await promisify(execFile)(root ? 'runuser' : bin('pg_ctl'), root ? ['-u', 'postgres', '--', bin('pg_ctl'), ...args] : args)
    }
    return { adminUrl: `postgres://relaypay@127.0.0.1:${port}/postgres`, stop, restart }
  } catch (err) {
    const log = path.join(dir, 'server.log')
    const detail = fs.existsSync(log) ? `\n${fs.readFileSync(log, 'utf8')}` : ''
    remove()
    const stderr = (err as { stderr?: Buffer }).stderr?.toString() ?? ''
    throw new Error(`PostgreSQL did not start: ${(err as Error).message}${stderr}${detail}`)
  }
}

/** A fresh database on `adminUrl`'s server (a copy of `template` when given, else empty); its URL. */
export async function createDatabase(adminUrl: string, template?: string): Promise<string> {
  const name = `relaypay_test_${randomBytes(6).toString('hex')}`
  const admin = new pg.Client({ connectionString: adminUrl })
  await admin.connect()
  try {
    await admin.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`)
  } finally {
    await admin.end()
  }
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  return url.toString()
}

/**
 * A fresh database with every migration of this checkout applied, for a daemon of the suite's PostgreSQL run: a
 * copy of a template migrated once per server and schema (a daemon then starts with nothing to migrate, saving
 * ~2 s of round trips per start on the suite's hundreds of starts). Migrating an empty database is the migration
 * tests' subject (test/store/postgres-migrations.test.ts, test/lifecycle/standby.test.ts).
 */
export async function createMigratedDatabase(adminUrl: string): Promise<string> {
  let template = templates.get(adminUrl)
  if (!template) {
    template = migratedTemplate(adminUrl)
    templates.set(adminUrl, template)
    template.catch(() => templates.delete(adminUrl))
  }
  return createDatabase(adminUrl, await template)
}

const templates = new Map<string, Promise<string>>()

/** The template's name: the migrations' names and texts hashed, so a changed schema gets a template of its own. */
function templateName(): string {
  const hash = createHash('sha256')
  const files = packageMigrationFolders().flatMap(dir => fs.readdirSync(dir).filter(name => name.endsWith('.sql')).map(name => ({ dir, name })))
  for (const { dir, name } of files.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    hash.update(name).update('\0').update(fs.readFileSync(path.join(dir, name))).update('\0')
  }
  return `relaypay_template_${hash.digest('hex').slice(0, 16)}`
}

/**
 * Made by whichever test process needs it first: migrated under a scratch name, then renamed (atomic; no session
 * stays on it, which CREATE DATABASE … TEMPLATE requires). A process that loses the race drops its scratch copy.
 */
async function migratedTemplate(adminUrl: string): Promise<string> {
  const name = templateName()
  const exists = async () => {
    const admin = new pg.Client({ connectionString: adminUrl })
    await admin.connect()
    try {
      return (await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 1
    } finally {
      await admin.end()
    }
  }
  if (await exists()) return name
  const scratch = await createDatabase(adminUrl)
  const store = postgresSqlStore({ url: scratch, max: 1, applicationName: 'relaypay-test-template' })
  try {
    await migratePostgres(store)
  } finally {
    await store.close()
  }
  const admin = new pg.Client({ connectionString: adminUrl })
  await admin.connect()
  try {
    await admin.query(`ALTER DATABASE ${new URL(scratch).pathname.slice(1)} RENAME TO ${name}`)
  } catch (err) {
    if ((err as { code?: string }).code !== '42P04') throw err // 42P04: another process made it first
    await dropDatabase(adminUrl, scratch)
  } finally {
    await admin.end()
  }
  return name
}

export async function dropDatabase(adminUrl: string, url: string): Promise<void> {
  const name = new URL(url).pathname.slice(1)
  const admin = new pg.Client({ connectionString: adminUrl })
  await admin.connect()
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
  } finally {
    await admin.end()
  }
}

/**
 * The PostgreSQL of this test file: the shared server of RELAYPAY_TEST_POSTGRES_URL or one started now, with a
 * fresh database. Undefined when there is none (the caller skips; `postgresSkipReason` says why).
 */
export async function testPostgres(): Promise<TestPostgres | undefined> {
  const shared = process.env.RELAYPAY_TEST_POSTGRES_URL
  let server: PostgresServer | undefined
  let adminUrl: string
  if (shared) {
    adminUrl = shared
  } else {
    try {
      server = await startPostgresServer()
    } catch (err) {
      return unavailable((err as Error).message)
    }
    adminUrl = server.adminUrl
  }
  let url: string
  try {
    url = await createDatabase(adminUrl)
  } catch (err) {
    server?.stop()
    return unavailable(`no database could be created on ${adminUrl}: ${(err as Error).message}`)
  }
  return {
    url,
    adminUrl,
    async close() {
      if (server) return server.stop()
      await dropDatabase(adminUrl, url)
    },
  }
}
