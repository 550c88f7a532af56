// `relaypay store copy --from <data dir> --to <postgres url>` and `relaypay audit --store-url`, through the CLI, on a
// real daemon's data dir (wallets funded, paid between, invoices left open, an NWC connection) and a real
// PostgreSQL 15: every table arrives row for row, both audits are clean and agree (whatever order PostgreSQL sums
// the system accounts in), ids go on past the copied ones,
// a second copy into the same database is refused, a copy of a served data dir is refused, and a copy that fails
// half-way leaves the target without a row.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import fs from 'node:fs'
import path from 'node:path'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import Database from 'better-sqlite3'
import { cliPath, relaypayArgs, startDaemon, tempDataDir, type TestDaemon } from '../support/daemon.js'
import { addAppUser, createAppWithUser, jwtSecretConfig, type TestAppUser } from '../support/accounts.js'
import { call, newInvoice, ok } from '../support/money.js'
import { createDatabase, postgresSkipReason, testPostgres } from '../support/postgres.js'
import { postgresSqlStore, type SqlStore } from '../../src/store/index.js'

// The copy's source is a daemon's data dir on SQLite in every run: its subject is moving those books to PostgreSQL.
// It runs on PostgreSQL in both halves of a run, so the PostgreSQL half leaves it out (test/store-tests.ts).
delete process.env.RELAYPAY_TEST_STORE

const run = promisify(execFile)
const relaypay = async (args: string[]) => {
  try {
    const { stdout, stderr } = await run(process.execPath, relaypayArgs(cliPath, args), { timeout: 180_000 })
    return { code: 0, stdout, stderr }
  } catch (err) {
    const failed = err as { code?: number; stdout?: string; stderr?: string }
    return { code: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' }
  }
}

const postgres = await testPostgres()
const test = suite('store copy to PostgreSQL')
if (!postgres) {
  test('skipped: no PostgreSQL server', () => console.log(`  skipped on PostgreSQL: no server (${postgresSkipReason})`))
  test.run()
} else {
  const jwtSecret = 'store-copy-test-secret-0123456789abcdef'
  let daemon: TestDaemon
  let app: TestAppUser
  const opened: SqlStore[] = []
  const open = (url: string) => {
    const store = postgresSqlStore({ url })
    opened.push(store)
    return store
  }

  test.before(async () => {
    daemon = await startDaemon({ config: jwtSecretConfig(jwtSecret) })
    app = await createAppWithUser(daemon, { jwtSecret, identifier: 'payer' })
    const shop = await addAppUser(daemon, { appToken: app.appToken, appId: app.appId, jwtSecret, identifier: 'shop' })
    await ok(daemon, '/api/app/mock/user/blance/set', app.appToken, { user_identifier: 'payer', amount: 2_000_000 })
    for (let i = 0; i < 25; i++) {
      const invoice = await newInvoice(daemon, shop.userToken, 1_000 + i)
      const reply = await call(daemon, '/api/user/invoice/pay', app.userToken, { invoice, amount: 0 })
      assert.is(reply.status, 'OK', JSON.stringify(reply))
    }
    await newInvoice(daemon, shop.userToken, 777) // left open
    await ok(daemon, '/api/user/nwc/create', app.userToken, { name: 'shop', budget: { amount_sats: 1000, interval: 'DAY' } })
  })
  test.after(async () => {
    if (daemon.process.exitCode === null) await daemon.stop()
    for (const store of opened) await store.close()
    await postgres.close()
  })

  test('a served data dir is refused: what the daemon writes after the copy would be lost', async () => {
    const copy = await relaypay(['store', 'copy', '--from', daemon.dataDir, '--to', postgres.url])
    assert.is(copy.code, 2, copy.stdout)
    assert.match(copy.stderr, `a daemon (pid ${daemon.process.pid}) is serving`)
    const target = open(postgres.url)
    assert.not.ok(await target.one(`SELECT 1 AS found FROM information_schema.tables WHERE table_name = 'users'`), 'nothing was created')
  })

  test('every table arrives row for row; both audits are clean and agree', async () => {
    assert.is(await daemon.stop(), 0)
    const copy = await relaypay(['store', 'copy', '--from', daemon.dataDir, '--to', postgres.url])
    assert.is(copy.code, 0, copy.stderr + copy.stdout)
    assert.match(copy.stdout, 'the copy is identical')
    assert.match(copy.stdout, /copied ledger_entries: \d+ rows/)

    const source = new Database(path.join(daemon.dataDir, 'relaypay.sqlite'), { readonly: true })
    source.defaultSafeIntegers(true)
    const target = open(postgres.url)
    const tables = (source.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name != 'schema_migrations'`).all() as { name: string }[]).map(
      row => row.name,
    )
    let compared = 0
    for (const table of tables) {
      const columns = (source.prepare('SELECT name FROM pragma_table_info(?) ORDER BY cid').all(table) as { name: string }[]).map(c => `"${c.name}"`)
      const order = columns.join(', ')
      // Values compared as text: integers (BigInt on one side, numbers on the other), blobs as hex.
      const text = (value: unknown) => (value === null ? null : Buffer.isBuffer(value) ? value.toString('hex') : String(value))
      const fromSqlite = (source.prepare(`SELECT ${order} FROM "${table}" ORDER BY ${order}`).raw().all() as unknown[][]).map(row => row.map(text))
      const fromPostgres = (await target.many<Record<string, unknown>>(`SELECT ${order} FROM "${table}" ORDER BY ${order}`)).map(row => Object.values(row).map(text))
      // PostgreSQL and SQLite sort text alike only for ASCII; compare as sets of rows.
      assert.equal(fromPostgres.map(row => JSON.stringify(row)).sort(), fromSqlite.map(row => JSON.stringify(row)).sort(), table)
      compared += fromSqlite.length
    }
    source.close()
    assert.ok(compared > 100, `rows compared: ${compared}`)

    const onSqlite = await relaypay(['audit', '--data-dir', daemon.dataDir, '--json'])
    const onPostgres = await relaypay(['audit', '--store-url', postgres.url, '--json'])
    assert.is(onPostgres.code, 0, onPostgres.stderr + onPostgres.stdout)
    const [a, b] = [JSON.parse(onSqlite.stdout), JSON.parse(onPostgres.stdout)]
    assert.ok(a.ok && b.ok)
    assert.equal(b, a)
    assert.ok(b.transactions >= 26 && b.wallets >= 2, JSON.stringify(b))
  })

  test('ids go on past the copied ones', async () => {
    const target = open(postgres.url)
    const { max } = (await target.one<{ max: number }>('SELECT MAX(id) AS max FROM ledger_transactions'))!
    const next = await target.transaction(async tx => {
      const row = await tx.one<{ id: number }>(`INSERT INTO ledger_transactions (kind, ref, created_at) VALUES ('probe', 'x', 1) RETURNING id`)
      throw Object.assign(new Error('roll back'), { id: row!.id })
    }).catch(err => (err as { id: number }).id)
    assert.ok(next > max, `${next} > ${max}`)
  })

  test('a second copy into the same database is refused and changes nothing', async () => {
    const target = open(postgres.url)
    const before = (await target.one<{ n: number }>('SELECT COUNT(*) AS n FROM ledger_entries'))!.n
    const copy = await relaypay(['store', 'copy', '--from', daemon.dataDir, '--to', postgres.url])
    assert.is(copy.code, 1)
    assert.match(copy.stderr, 'already holds rows')
    assert.is((await target.one<{ n: number }>('SELECT COUNT(*) AS n FROM ledger_entries'))!.n, before)
  })

  test('books whose system accounts PostgreSQL groups in another order still agree; the audit lists them by name', async () => {
    // Thousands of journal rows over four system accounts: PostgreSQL then sums them with a hash aggregate, whose
    // groups come out in no particular order (a 1M-row copy was reported as differing from identical books).
    const books = path.join(tempDataDir(), 'data')
    fs.mkdirSync(books)
    fs.copyFileSync(path.join(daemon.dataDir, 'relaypay.sqlite'), path.join(books, 'relaypay.sqlite'))
    const db = new Database(path.join(books, 'relaypay.sqlite'))
    const posting = db.prepare("INSERT INTO ledger_transactions (kind, ref, created_at) VALUES ('transfer', ?, 1)")
    const entry = db.prepare('INSERT INTO ledger_entries (transaction_id, account, amount_msat) VALUES (?, ?, ?)')
    const pairs = [['system:chain', 'system:seized'], ['system:seized', 'system:migration'], ['system:migration', 'system:chain']]
    db.transaction(() => {
      for (let i = 0; i < 6000; i++) {
        const id = posting.run(`bulk-${i}`).lastInsertRowid
        const [from, to] = pairs[i % pairs.length]!
        entry.run(id, to, 1_000 + i)
        entry.run(id, from, -(1_000 + i))
      }
    })()
    db.close()
    const url = await createDatabase(postgres.adminUrl)
    const copy = await relaypay(['store', 'copy', '--from', books, '--to', url])
    assert.is(copy.code, 0, copy.stderr + copy.stdout)
    assert.match(copy.stdout, 'the copy is identical')
    for (const where of [['--data-dir', books], ['--store-url', url]]) {
      const audit = await relaypay(['audit', ...where, '--json'])
      assert.is(audit.code, 0, audit.stderr + audit.stdout)
      const accounts = Object.keys(JSON.parse(audit.stdout).systemAccounts)
      assert.equal(accounts, [...accounts].sort(), where[0])
      assert.ok(accounts.length >= 5, accounts.join())
    }
  })

  test('with no --from or --to, the copy reads the configuration start reads: its data dir and [store] url', async () => {
    await daemon.stop().catch(() => {})
    const books = path.join(tempDataDir(), 'configured')
    fs.mkdirSync(books)
    fs.copyFileSync(path.join(daemon.dataDir, 'relaypay.sqlite'), path.join(books, 'relaypay.sqlite'))
    // Nothing names the database yet: the copy says where it could be named.
    const unnamed = await relaypay(['store', 'copy', '--data-dir', books])
    assert.is(unnamed.code, 2)
    assert.is(unnamed.stderr.trim(), 'relaypay: name the PostgreSQL database to copy into: --to postgres://…, or [store] url in the configuration (RELAYPAY_STORE_URL)')
    const url = await createDatabase(postgres.adminUrl)
    const config = path.join(books, 'relaypay.toml')
    fs.writeFileSync(config, `data_dir = "."\n[store]\nurl = "${url}"\n`)
    const copy = await relaypay(['store', 'copy', '--config', config])
    assert.is(copy.code, 0, copy.stderr + copy.stdout)
    assert.match(copy.stdout, 'the copy is identical')
    // The same configuration now audits the copy in PostgreSQL, and it holds what the SQLite books hold.
    const [configured, original] = await Promise.all([
      relaypay(['audit', '--config', config, '--json']),
      relaypay(['audit', '--store-url', url, '--json']),
    ])
    assert.is(configured.code, 0, configured.stderr)
    assert.equal(JSON.parse(configured.stdout).walletsTotalMsat, JSON.parse(original.stdout).walletsTotalMsat)
    assert.ok(JSON.parse(configured.stdout).walletsTotalMsat > 0)
  })

  test('a copy that fails half-way leaves the target without a row', async () => {
    // A value SQLite's type affinity keeps but PostgreSQL refuses, in a table copied late.
    const broken = path.join(tempDataDir(), 'data')
    fs.mkdirSync(broken)
    fs.copyFileSync(path.join(daemon.dataDir, 'relaypay.sqlite'), path.join(broken, 'relaypay.sqlite'))
    const db = new Database(path.join(broken, 'relaypay.sqlite'))
    db.prepare(`UPDATE invoices SET amount_msat = 'not a number' WHERE rowid = (SELECT MAX(rowid) FROM invoices)`).run()
    db.close()
    const url = await createDatabase(postgres.adminUrl)
    const copy = await relaypay(['store', 'copy', '--from', broken, '--to', url])
    assert.is(copy.code, 1, copy.stdout)
    assert.match(copy.stderr, 'copying invoices')
    const target = open(url)
    for (const table of ['users', 'apps', 'ledger_entries', 'invoices']) {
      assert.not.ok(await target.one(`SELECT 1 AS found FROM "${table}" LIMIT 1`), `${table} is empty`)
    }
  })

  test.run()
}
