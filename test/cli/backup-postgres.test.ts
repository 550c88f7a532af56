// Books in PostgreSQL, and the commands that read a data dir: the data dir still holds a SQLite file of the same
// name, migrated and empty, which `relaypay backup` used to archive and `relaypay audit` used to call "clean, 0
// wallets" while the wallets were in PostgreSQL. Now both read the configuration `start` reads (the file, then the
// environment): audit audits PostgreSQL, backup refuses and says what to use; with no configuration at hand, the
// note the daemon leaves in its data dir says where the books are. A `[backup]` schedule on PostgreSQL is refused
// at start. On a real PostgreSQL 15.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import fs from 'node:fs'
import path from 'node:path'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { cliPath, startDaemon, tempDataDir, type TestDaemon } from '../support/daemon.js'
import { createAppWithUser, jwtSecretConfig } from '../support/accounts.js'
import { ok } from '../support/money.js'
import { postgresSkipReason, testPostgres, type TestPostgres } from '../support/postgres.js'

// This file names its own database: its daemons are on PostgreSQL in either half of a run.
delete process.env.RELAYPAY_TEST_STORE

const run = promisify(execFile)
const relaypay = async (args: string[], env: Record<string, string> = {}) => {
  try {
    const { stdout, stderr } = await run(process.execPath, [cliPath, ...args], { timeout: 120_000, env: { ...process.env, ...env } })
    return { code: 0, stdout, stderr }
  } catch (err) {
    const failed = err as { code?: number; stdout?: string; stderr?: string }
    return { code: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' }
  }
}

const jwtSecret = 'backup-postgres-secret-0123456789abcdefgh'
const test = suite('backup and audit of books in PostgreSQL')
let postgres: TestPostgres | undefined
let daemon: TestDaemon

test.before(async () => {
  postgres = await testPostgres()
  if (!postgres) return
  daemon = await startDaemon({ config: jwtSecretConfig(jwtSecret), env: { RELAYPAY_STORE_URL: postgres.url } })
  const app = await createAppWithUser(daemon, { jwtSecret, identifier: 'holder' })
  await ok(daemon, '/api/app/mock/user/blance/set', app.appToken, { user_identifier: 'holder', amount: 21_000 })
})
test.after(async () => {
  await daemon?.stop()
  await postgres?.close()
})

test('relaypay backup writes no archive of books in PostgreSQL, and says what to use instead', async () => {
  if (!postgres) return console.log(`  skipped: ${postgresSkipReason}`)
  const dir = tempDataDir()
  // With the daemon's environment (RELAYPAY_STORE_URL), and with only the data dir: its note says where the books are.
  for (const env of [{ RELAYPAY_STORE_URL: postgres.url }, {}] as Record<string, string>[]) {
    const archive = path.join(dir, `${Object.keys(env).length}.tar.gz`)
    const refused = await relaypay(['backup', archive, '--data-dir', daemon.dataDir], env)
    assert.is(refused.code, 1, refused.stdout)
    assert.match(refused.stderr, /^relaypay: the books are in PostgreSQL \(127\.0\.0\.1:\d+\/\w+\), not in the data dir: .*pg_dump/)
    assert.not.match(refused.stderr, /password|relaypay@/, 'no credentials in the message')
    assert.not.ok(fs.existsSync(archive))
  }
})

test('relaypay audit audits PostgreSQL where the configuration keeps the books, and refuses the empty SQLite file', async () => {
  if (!postgres) return console.log(`  skipped: ${postgresSkipReason}`)
  const wallets = (stdout: string) => JSON.parse(stdout) as { ok: boolean; wallets: number; walletsTotalMsat: number }
  // The environment start reads.
  const byEnv = await relaypay(['audit', '--data-dir', daemon.dataDir, '--json'], { RELAYPAY_STORE_URL: postgres.url })
  assert.is(byEnv.code, 0, byEnv.stderr)
  assert.ok(wallets(byEnv.stdout).ok)
  assert.ok(wallets(byEnv.stdout).walletsTotalMsat >= 21_000_000, byEnv.stdout)
  // A config file, as start reads it.
  const config = path.join(tempDataDir(), 'relaypay.toml')
  fs.writeFileSync(config, `data_dir = "${daemon.dataDir}"\n[store]\nurl = "${postgres.url}"\n`)
  const byFile = await relaypay(['audit', '--config', config, '--json'])
  assert.is(byFile.code, 0, byFile.stderr)
  assert.equal(wallets(byFile.stdout), wallets(byEnv.stdout))
  // Neither: the data dir's SQLite file holds no books, and audit says where they are instead of calling it clean.
  const dataDirOnly = await relaypay(['audit', '--data-dir', daemon.dataDir])
  assert.is(dataDirOnly.code, 2, dataDirOnly.stdout)
  assert.match(dataDirOnly.stderr, /the books of .* are in PostgreSQL \(127\.0\.0\.1:\d+\/\w+, .*\), not in its SQLite file: .*--store-url/)
  assert.not.match(dataDirOnly.stdout, /audit clean/)
})

test('a [backup] schedule with the books in PostgreSQL is refused at start', async () => {
  if (!postgres) return console.log(`  skipped: ${postgresSkipReason}`)
  const dataDir = path.join(tempDataDir(), 'data')
  fs.mkdirSync(dataDir)
  fs.writeFileSync(path.join(dataDir, 'relaypay.toml'), '[backup]\ndir = "backups"\n')
  const refused = await relaypay(['start', '--data-dir', dataDir, '--http-port', '0'], { RELAYPAY_STORE_URL: postgres.url })
  assert.is(refused.code, 1)
  assert.match(refused.stderr, /backup\.dir.*the books are in PostgreSQL.*pg_dump/)
})

test.run()
