// The database as the operator's disk sees it: private files, migrations applied once and in order.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import fs from 'node:fs'
import path from 'node:path'
import { commitWithoutSync, migrationFiles, openStore, packageMigrationFolders, walSyncFor } from '../../src/store/index.js'
import { tempDataDir } from '../support/daemon.js'
import { writtenMigrations } from '../support/migrations.js'
import { repoRoot } from '../support/paths.js'

const store = suite('store')

store('creates the data dir 0700 and the database 0600, in WAL mode', () => {
  const dataDir = path.join(tempDataDir(), 'nested', 'data')
  const s = openStore({ dataDir })
  assert.is(fs.statSync(dataDir).mode & 0o777, 0o700)
  assert.is(fs.statSync(s.file).mode & 0o777, 0o600)
  assert.is(s.db.pragma('journal_mode', { simple: true }), 'wal')
  // Savepoint journals in memory: in a temp file each money movement of a group commit wrote its own (bench: 116-126
  // write calls per payment with the file, 55-59 without).
  assert.is(s.db.pragma('temp_store', { simple: true }), 2)
  s.close()
})

store('applies every migration once, in numeric order, and records them', () => {
  const dataDir = tempDataDir()
  const first = openStore({ dataDir })
  const versions = first.db.prepare('SELECT version FROM schema_migrations ORDER BY version').pluck().all() as number[]
  assert.ok(versions.length >= 1)
  assert.equal(versions, [...versions].sort((a, b) => a - b))
  assert.ok(first.applied.length === versions.length)
  first.close()
  const again = openStore({ dataDir })
  assert.equal(again.applied, [])
  again.close()
})

store('a failing migration leaves nothing half-applied', () => {
  const dataDir = tempDataDir()
  const migrations = writtenMigrations({
    '001_good.sql': 'CREATE TABLE a (x INTEGER);',
    '002_bad.sql': 'CREATE TABLE b (x INTEGER); INSERT INTO nowhere VALUES (1);',
  })
  assert.throws(() => openStore({ dataDir, migrationsDir: migrations }))
  fs.writeFileSync(path.join(migrations, '002_bad.sql'), 'CREATE TABLE b (x INTEGER);')
  const s = openStore({ dataDir, migrationsDir: migrations })
  assert.equal(s.applied, ['002_bad.sql'])
  assert.ok(s.db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'b'").get())
  s.close()
})

store('a database written by a newer build is refused, naming its version and this build\'s, and left as it was', () => {
  const dataDir = tempDataDir()
  const migrations = writtenMigrations({
    '001_a.sql': 'CREATE TABLE a (x INTEGER);',
    '002_b.sql': 'CREATE TABLE b (x INTEGER);',
    '003_c.sql': 'CREATE TABLE c (x INTEGER);',
  })
  openStore({ dataDir, migrationsDir: migrations }).close()
  // The older build: it knows 001 and 002, and has a 004 of its own that the newer build never had.
  fs.rmSync(path.join(migrations, '003_c.sql'))
  fs.writeFileSync(path.join(migrations, '004_d.sql'), 'CREATE TABLE d (x INTEGER);')
  assert.throws(() => openStore({ dataDir, migrationsDir: migrations }), /schema version 3, newer than this build \(4\).*migration 3\b/)
  fs.rmSync(path.join(migrations, '004_d.sql'))
  assert.throws(() => openStore({ dataDir, migrationsDir: migrations }), /schema version 3, newer than this build \(2\)/)
  // Nothing was applied by the refused starts; the build that wrote it still opens it.
  fs.writeFileSync(path.join(migrations, '003_c.sql'), 'CREATE TABLE c (x INTEGER);')
  const s = openStore({ dataDir, migrationsDir: migrations })
  assert.equal(s.applied, [])
  assert.is(s.db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'd'").get(), undefined)
  s.close()
})

store('two migrations with one number are refused', () => {
  const migrations = writtenMigrations({ '001_a.sql': 'SELECT 1;', '001_b.sql': 'SELECT 1;' })
  assert.throws(() => openStore({ dataDir: tempDataDir(), migrationsDir: migrations }), /two migrations share number 1/)
})

store('the core\'s folder and the extensions\' are one sequence: applied by number across folders, one number twice refused', () => {
  const core = writtenMigrations({ '001_a.sql': 'CREATE TABLE a (x INTEGER);', '003_c.sql': 'CREATE TABLE c (x INTEGER);' })
  const extension = writtenMigrations({ '002_b.sql': 'CREATE TABLE b (x INTEGER);', '004_d.sql': 'CREATE TABLE d (x INTEGER);' })
  const s = openStore({ dataDir: tempDataDir(), migrationsDir: [core, extension] })
  assert.equal(s.applied, ['001_a.sql', '002_b.sql', '003_c.sql', '004_d.sql'])
  s.close()
  const clash = writtenMigrations({ '003_x.sql': 'SELECT 1;' })
  assert.throws(() => openStore({ dataDir: tempDataDir(), migrationsDir: [core, clash] }), /two migrations share number 3 in .* and .*003_c\.sql, 003_x\.sql/)
})

store('the package\'s migrations: schema/sql and each extension\'s folder, keeping their numbers', () => {
  const folders = packageMigrationFolders()
  assert.is(path.relative(repoRoot, folders[0]!), path.join('schema', 'sql'))
  const files = migrationFiles(folders)
  const at = (version: number) => files.find(file => file.version === version)
  // An extension's migration keeps the number existing databases record it under.
  assert.equal(path.relative(repoRoot, path.join(at(30)!.dir, at(30)!.name)), path.join('src/extensions/restaurant/migrations/030_restaurant.sql'))
  assert.equal(path.relative(repoRoot, path.join(at(40)!.dir, at(40)!.name)), path.join('src/extensions/payroll/migrations/040_payroll.sql'))
  assert.equal(at(71)!.name, '071_restaurant_unpaid_orders.sql')
  assert.equal(files.map(file => file.version), [...files.map(file => file.version)].sort((a, b) => a - b))
})

store('a commit without sync keeps the connection FULL for every other writer, also when the work throws', () => {
  const s = openStore({ dataDir: tempDataDir() })
  s.db.exec('CREATE TABLE t (v INTEGER NOT NULL)')
  assert.is(commitWithoutSync(s.db, () => s.db.prepare('INSERT INTO t VALUES (1)').run().changes), 1)
  assert.is(s.db.pragma('synchronous', { simple: true }), 2)
  assert.throws(() => commitWithoutSync(s.db, () => s.db.prepare('INSERT INTO t VALUES (NULL)').run()), /NOT NULL/)
  assert.is(s.db.pragma('synchronous', { simple: true }), 2)
  assert.is(s.db.prepare('SELECT COUNT(*) FROM t').pluck().get(), 1) // the failed one rolled back
  // Inside an outer transaction it joins it.
  s.db.transaction(() => commitWithoutSync(s.db, () => s.db.prepare('INSERT INTO t VALUES (2)').run()))()
  assert.is(s.db.prepare('SELECT COUNT(*) FROM t').pluck().get(), 2)
  s.close()
})

store('the WAL sync exists only where SQLite would sync at every commit (WAL + FULL on a file)', async () => {
  const full = openStore({ dataDir: tempDataDir() })
  const normal = openStore({ dataDir: tempDataDir(), synchronous: 'normal' })
  full.db.exec('CREATE TABLE t (v INTEGER)')
  const sync = walSyncFor(full.db)
  assert.ok(sync)
  assert.is(walSyncFor(normal.db), null)
  assert.is(await new Promise(resolve => sync!(resolve)), null)
  full.close()
  normal.close()
})

store('callers that ask while a WAL sync runs share the next one; each hears back once', async () => {
  const s = openStore({ dataDir: tempDataDir() })
  s.db.exec('CREATE TABLE t (v INTEGER)')
  s.db.prepare('INSERT INTO t VALUES (1)').run()
  const sync = walSyncFor(s.db)!
  const original = fs.fdatasync
  let syncs = 0
  // Counted, and slowed so that the callers below arrive while the first sync is still running.
  ;(fs as { fdatasync: typeof fs.fdatasync }).fdatasync = ((fd: number, done: (err: NodeJS.ErrnoException | null) => void) => {
    syncs++
    setTimeout(() => original(fd, done), 20)
  }) as typeof fs.fdatasync
  try {
    const answers = await Promise.all(Array.from({ length: 5 }, () => new Promise(resolve => sync(resolve))))
    assert.equal(answers, [null, null, null, null, null])
    assert.is(syncs, 2, 'the first caller gets a sync of its own; the four that came during it share the next')
    assert.is(await new Promise(resolve => sync(resolve)), null)
    assert.is(syncs, 3)
  } finally {
    ;(fs as { fdatasync: typeof fs.fdatasync }).fdatasync = original
    s.close()
  }
})

store.run()
