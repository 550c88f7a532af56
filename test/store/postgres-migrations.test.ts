// One set of migrations for both engines: every migration (schema/sql's and the extensions') applied on SQLite and on a real
// PostgreSQL 15 gives the same tables, columns, nullability and keys; amounts are BIGINT on PostgreSQL; a negative
// balance is refused on both; daemons starting together migrate a database once; the PostgreSQL twins of the
// migrations that move data (070, 073) leave the same rows as their SQLite originals, and 083 the same on both.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import fs from 'node:fs'
import path from 'node:path'
import Database from 'better-sqlite3'
import {
  migrate,
  migratePostgres,
  openStore,
  postgresSqlStore,
  sqlErrorKind,
  toPostgresSchema,
  sqliteSqlStore,
  type SqlStore,
} from '../../src/store/index.js'
import { auditLedger } from '../../src/wallet/audit.js'
import { tempDataDir } from '../support/daemon.js'
import { addMigrations, migrationsUpTo, writtenMigrations } from '../support/migrations.js'
import { createDatabase, postgresSkipReason, testPostgres } from '../support/postgres.js'

const postgres = await testPostgres()

const unit = suite('the substitution table')

unit('rewrites types, GLOB and json_extract, and leaves comments out', () => {
  const sql = toPostgresSchema(`-- an INTEGER in prose stays prose
CREATE TABLE t (
  serial INTEGER PRIMARY KEY AUTOINCREMENT,
  amount_msat INTEGER NOT NULL, raw BLOB, ratio REAL,
  day TEXT CHECK (day GLOB '[0-9][0-9]-?*')
) WITHOUT ROWID;
CREATE INDEX t_tag ON t(json_extract(extra, '$.tag'));`)
  assert.not.match(sql, /prose/)
  assert.match(sql, /serial BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY/)
  assert.match(sql, /amount_msat BIGINT NOT NULL, raw BYTEA, ratio DOUBLE PRECISION/)
  assert.match(sql, /day SIMILAR TO '\[0-9\]\[0-9\]-_%'/)
  assert.match(sql, /\n\);/)
  assert.not.match(sql, /ROWID/)
  assert.match(sql, /ON t\(\(extra::jsonb ->> 'tag'\)\)/)
})

unit.run()

interface Column {
  name: string
  nullable: boolean
  key: boolean
}

function sqliteShape(db: Database.Database): Record<string, Column[]> {
  const tables = db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
    .pluck()
    .all() as string[]
  return Object.fromEntries(
    tables.map(table => {
      const columns = db.prepare(`PRAGMA table_info(${table})`).all() as { name: string; notnull: number; pk: number }[]
      // A primary key column is NOT NULL on PostgreSQL by definition; SQLite's table_info leaves notnull 0 on it.
      return [table, columns.map(c => ({ name: c.name, nullable: c.notnull === 0 && c.pk === 0, key: c.pk > 0 }))]
    }),
  )
}

async function postgresShape(store: SqlStore): Promise<Record<string, Column[]>> {
  const rows = await store.many<{ table: string; name: string; nullable: string; key: boolean }>(
    `SELECT c.table_name AS "table", c.column_name AS name, c.is_nullable AS nullable,
            EXISTS (SELECT 1 FROM information_schema.table_constraints tc
                      JOIN information_schema.key_column_usage k
                        ON k.constraint_name = tc.constraint_name AND k.table_name = tc.table_name
                     WHERE tc.table_name = c.table_name AND tc.constraint_type = 'PRIMARY KEY'
                       AND k.column_name = c.column_name) AS key
       FROM information_schema.columns c
      WHERE c.table_schema = 'public'
      ORDER BY c.table_name, c.ordinal_position`,
  )
  const shape: Record<string, Column[]> = {}
  for (const row of rows) (shape[row.table] ??= []).push({ name: row.name, nullable: row.nullable === 'YES', key: row.key })
  return shape
}

/** A folder holding the migrations up to `last` (and their twins), to stop a database before a later one. */

if (!postgres) {
  console.log(`  skipped on PostgreSQL: no server (${postgresSkipReason})`)
} else {
  const both = suite('every migration on SQLite and on PostgreSQL 15')
  const stores: SqlStore[] = []
  const pgStore = async (url?: string) => {
    const store = postgresSqlStore({ url: url ?? (await createDatabase(postgres.adminUrl)) })
    stores.push(store)
    return store
  }
  both.after(async () => {
    for (const store of stores) await store.close()
    await postgres.close()
  })
  /**
   * The same books on both engines as migration `before` found them: migrated up to it, `seed` run on each, then
   * migrated up to `upTo`.
   */
  const twinBooks = async (before: number, seed: string[], upTo = before) => {
    const dir = migrationsUpTo(before - 1)
    const sqlite = new Database(':memory:')
    migrate(sqlite, dir)
    const store = await pgStore()
    await migratePostgres(store, dir)
    for (const sql of seed) {
      sqlite.exec(sql)
      await store.run(sql)
    }
    addMigrations(dir, upTo)
    migrate(sqlite, dir)
    await migratePostgres(store, dir)
    return { sqlite, store }
  }

  both('the same tables, columns, nullability and primary keys', async () => {
    const dataDir = tempDataDir()
    const sqlite = openStore({ dataDir })
    const store = await pgStore(postgres.url)
    const applied = await migratePostgres(store)
    assert.equal(applied, sqlite.applied, 'PostgreSQL applied the same migrations, in the same order')
    const expected = sqliteShape(sqlite.db)
    sqlite.close()
    const actual = await postgresShape(store)
    assert.equal(Object.keys(actual).sort(), Object.keys(expected).sort())
    for (const table of Object.keys(expected)) assert.equal(actual[table], expected[table], table)
    assert.equal(await migratePostgres(store), [], 'a second run applies nothing')
  })

  both('every integer column is BIGINT on PostgreSQL (msat amounts and unix-ms times overflow INTEGER)', async () => {
    const store = stores[0]!
    const types = await store.many<{ table: string; column: string; type: string }>(
      `SELECT table_name AS "table", column_name AS "column", data_type AS type FROM information_schema.columns
        WHERE table_schema = 'public'`,
    )
    const msat = types.filter(t => /msat/.test(t.column))
    assert.ok(msat.length >= 20, `${msat.length} msat columns`)
    assert.equal(msat.filter(t => t.type !== 'bigint'), [])
    assert.equal(types.filter(t => t.type === 'integer' || t.type === 'smallint'), [])
  })

  both('a negative balance is refused by a CHECK on both engines', async () => {
    const sqlite = openStore({ dataDir: tempDataDir() })
    for (const store of [sqlite.sql, stores[0]!]) {
      await store.run('INSERT INTO accounts (id, created_at) VALUES (?, 1)', ['a'])
      await store.run(
        "INSERT INTO users (id, account_id, balance_msat, admin_key, invoice_key, created_at) VALUES ('u', 'a', 5, 'k1', 'k2', 1)",
      )
      const err = await store.run("UPDATE users SET balance_msat = balance_msat - 6 WHERE id = 'u'").catch(e => e)
      assert.is(sqlErrorKind(err), 'check', store.engine)
      const insert = await store
        .run("INSERT INTO users (id, account_id, balance_msat, admin_key, invoice_key, created_at) VALUES ('v', 'a', -1, 'k3', 'k4', 1)")
        .catch(e => e)
      assert.is(sqlErrorKind(insert), 'check', store.engine)
      assert.equal(await store.one("SELECT balance_msat AS b FROM users WHERE id = 'u'"), { b: 5 })
    }
    sqlite.close()
  })

  both('daemons migrating one new database together apply each migration once (pg_advisory_xact_lock)', async () => {
    const url = await createDatabase(postgres.adminUrl)
    const runners = await Promise.all([pgStore(url), pgStore(url), pgStore(url)])
    const results = await Promise.all(runners.map(store => migratePostgres(store)))
    const all = results.flat()
    assert.is(all.length, new Set(all).size, 'no migration applied twice')
    assert.equal(all.sort(), (await runners[0]!.many<{ name: string }>('SELECT name FROM schema_migrations')).map(r => r.name).sort())
  })

  both('a failing migration leaves nothing half-applied and the next run carries on', async () => {
    const dir = writtenMigrations({
      '001_good.sql': 'CREATE TABLE a (x INTEGER);',
      '002_bad.sql': 'CREATE TABLE b (x INTEGER); INSERT INTO nowhere VALUES (1);',
    })
    const store = await pgStore()
    const err = await migratePostgres(store, dir).catch(e => e)
    assert.match(String(err), /nowhere/)
    assert.equal(await store.many('SELECT name FROM schema_migrations'), [{ name: '001_good.sql' }])
    assert.is(await store.one("SELECT 1 FROM information_schema.tables WHERE table_name = 'b'"), undefined)
    fs.writeFileSync(path.join(dir, '002_bad.sql'), 'CREATE TABLE b (x INTEGER);')
    assert.equal(await migratePostgres(store, dir), ['002_bad.sql'])
  })

  both('a database written by a newer build is refused on PostgreSQL too, and left as it was', async () => {
    const dir = writtenMigrations({ '001_a.sql': 'CREATE TABLE a (x INTEGER);', '002_b.sql': 'CREATE TABLE b (x INTEGER);' })
    const store = await pgStore()
    assert.equal(await migratePostgres(store, dir), ['001_a.sql', '002_b.sql'])
    fs.rmSync(path.join(dir, '002_b.sql'))
    fs.writeFileSync(path.join(dir, '003_c.sql'), 'CREATE TABLE c (x INTEGER);')
    const err = await migratePostgres(store, dir).catch(e => e)
    assert.match(String(err), /schema version 2, newer than this build \(3\)/)
    assert.is(await store.one("SELECT 1 FROM information_schema.tables WHERE table_name = 'c'"), undefined)
  })

  both('070 (its twin on PostgreSQL): attempts kept, a failed attempt no longer blocks its hash, one live attempt per hash', async () => {
    const attempt = (status: string) =>
      `INSERT INTO payments (payment_hash, payment_request, user_id, amount_msat, service_fee_msat, max_routing_fee_msat,
         internal, status, created_at, resolved_at)
       VALUES ('h1', 'lnbc1', 'u', 1000, 0, 10, 0, '${status}', 3, ${status === 'pending' ? 'NULL' : 4})`
    const seed = [
      "INSERT INTO accounts (id, created_at) VALUES ('a', 1)",
      "INSERT INTO users (id, account_id, admin_key, invoice_key, created_at) VALUES ('u', 'a', 'k1', 'k2', 1)",
      attempt('failed'),
    ]
    const { sqlite, store } = await twinBooks(62, seed, 70)
    for (const engine of ['sqlite', 'postgres'] as const) {
      const run = async (sql: string) => (engine === 'sqlite' ? sqlite.exec(sql) : void (await store.run(sql)))
      const rows = async (sql: string) => (engine === 'sqlite' ? sqlite.prepare(sql).all() : store.many(sql))
      await run(attempt('pending'))
      const second = await run(attempt('pending')).catch(e => e)
      assert.is(sqlErrorKind(second), 'unique', `${engine}: a second live attempt is refused`)
      assert.equal(await rows('SELECT serial, status FROM payments ORDER BY serial'), [
        { serial: 1, status: 'failed' },
        { serial: 2, status: 'pending' },
      ], `${engine}: the failed attempt kept, the serials continued`)
    }
    // An explicit serial is refused on PostgreSQL (its sequence would not move past it): see toPostgresSchema.
    const explicit = await store
      .run(
        `INSERT INTO payments (serial, payment_hash, payment_request, user_id, amount_msat, service_fee_msat,
           max_routing_fee_msat, internal, status, created_at) VALUES (9, 'h2', 'l', 'u', 1, 0, 0, 0, 'pending', 1)`,
      )
      .catch(e => e)
    assert.match(String(explicit), /cannot insert a non-DEFAULT value into column "serial"/)
  })

  both('083: an invoice credit is renamed to its invoice serial on both engines, and the audit finds credits by it', async () => {
    const invoice = (hash: string, paidMsat: number | null) =>
      `INSERT INTO invoices (payment_hash, payment_request, user_id, amount_msat, created_at, expires_at, paid_at, paid_msat, paid_internally)
       VALUES ('${hash}', 'lnbcrt-${hash}', 'u', 1000, 1, 2, ${paidMsat === null ? 'NULL, NULL, NULL' : `3, ${paidMsat}, 1`})`
    // Ids are taken in order from 1 on both engines (PostgreSQL refuses one given).
    const posting = (id: number, kind: string, ref: string, msat: number) => [
      `INSERT INTO ledger_transactions (kind, ref, created_at) VALUES ('${kind}', '${ref}', 3)`,
      `INSERT INTO ledger_entries (transaction_id, account, amount_msat) VALUES (${id}, 'user:u', ${msat}), (${id}, 'system:lightning', ${-msat})`,
    ]
    const seed = [
      "INSERT INTO accounts (id, created_at) VALUES ('a', 1)",
      "INSERT INTO users (id, account_id, balance_msat, admin_key, invoice_key, created_at) VALUES ('u', 'a', 3500, 'k1', 'k2', 1)",
      invoice('h1', 1000),
      invoice('h2', 2000),
      invoice('h3', null),
      ...posting(1, 'invoice_credit', 'h1', 1000),
      ...posting(2, 'invoice_credit', 'h2', 2000),
      ...posting(3, 'invoice_credit', 'hx', 500), // a credit whose hash names no invoice
      ...posting(4, 'transfer', 'h1', 0), // another kind keeps its ref, whatever it spells
    ]
    const { sqlite, store } = await twinBooks(83, seed)
    for (const books of [sqliteSqlStore(sqlite), store]) {
      assert.equal(await books.many('SELECT id, kind, ref FROM ledger_transactions ORDER BY id'), [
        { id: 1, kind: 'invoice_credit', ref: '1' },
        { id: 2, kind: 'invoice_credit', ref: '2' },
        { id: 3, kind: 'invoice_credit', ref: 'hx' },
        { id: 4, kind: 'transfer', ref: 'h1' },
      ], books.engine)
      const orphan = { serial: null, paymentHash: null, problem: 'credited for no invoice (journal ref hx)' }
      assert.equal((await auditLedger(books)).invoiceMismatches, [orphan], `${books.engine}: both credits found by their serial`)
      // The audit's rules by serial: a credit of an unpaid invoice, a paid invoice credited nothing, a number that
      // names no invoice.
      await books.run('UPDATE invoices SET paid_at = NULL, paid_msat = NULL, paid_internally = NULL WHERE serial = 2')
      await books.run('UPDATE invoices SET paid_at = 3, paid_msat = 1000, paid_internally = 1 WHERE serial = 3')
      await books.run("UPDATE ledger_transactions SET ref = '9' WHERE id = 3")
      const report = await auditLedger(books)
      assert.not.ok(report.ok)
      assert.equal(report.invoiceMismatches, [
        { serial: 2, paymentHash: 'h2', problem: 'credited but not marked paid' },
        { serial: 3, paymentHash: 'h3', problem: 'paid 1000 msat but credited nothing' },
        { serial: 9, paymentHash: null, problem: 'credited for no invoice (journal ref 9)' },
      ], books.engine)
    }
    sqlite.close()
  })

  both('073 (its twin on PostgreSQL): NIP-47 requests move to nostr_requests with the same answers', async () => {
    const seed = [
      "INSERT INTO accounts (id, created_at) VALUES ('a', 1)",
      "INSERT INTO users (id, account_id, admin_key, invoice_key, created_at) VALUES ('u', 'a', 'k1', 'k2', 1)",
      `INSERT INTO nwc_connections (id, user_id, name, service_pubkey, service_secret, client_pubkey, methods, created_at)
       VALUES ('c1', 'u', 'n', 'svc', 's', 'cl', 'pay_invoice', 1)`,
      `INSERT INTO nwc_requests (event_id, connection_id, requester, created_at, received_at, reply) VALUES
         ('e1', 'c1', 'r', 1, 2, NULL),
         ('e2', 'c1', 'r', 1, 2, '{"sentAt":5,"content":"abc"}'),
         ('e3', 'c1', 'r', 1, 2, '{"sentAt":6}'),
         ('e4', 'c1', 'r', 1, 2, '{"sentAt":7,"content":null}')`,
    ]
    const { sqlite, store } = await twinBooks(73, seed)
    const parse = (rows: unknown[]) =>
      (rows as { event_id: string; app_pubkey: string; reply: string | null }[]).map(r => ({ ...r, reply: r.reply === null ? null : JSON.parse(r.reply) }))
    const query = 'SELECT event_id, app_pubkey, reply FROM nostr_requests ORDER BY event_id'
    const fromSqlite = parse(sqlite.prepare(query).all())
    assert.equal(fromSqlite[1]!.reply, { sentAt: 5, contents: ['abc'] })
    assert.equal(parse(await store.many(query)), fromSqlite)
    assert.is(await store.one("SELECT 1 FROM information_schema.tables WHERE table_name = 'nwc_requests'"), undefined)
  })

  both.run()
}
