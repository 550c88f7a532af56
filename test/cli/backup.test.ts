// `relaypay backup` under payment load and `relaypay restore` as an operator runs them: the snapshot is taken
// while payments flow over HTTP, restored into an empty dir, a daemon starts on it, `relaypay audit` is clean and
// the balances are those of the snapshot (each wallet's balance is its journal sum, the total is conserved, the
// payee holds a whole number of the payments made around the snapshot). A non-empty target and a corrupt archive
// are refused with a clear message. `[backup]` writes archives on a schedule and keeps the newest N.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import fs from 'node:fs'
import path from 'node:path'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { cliPath, startDaemon, tempDataDir, type TestDaemon } from '../support/daemon.js'
import { addAppUser, createAppWithUser, jwtSecretConfig, type TestAppUser } from '../support/accounts.js'
import { appBalance, assertAuditClean, balanceOf, call, newInvoice, ok } from '../support/money.js'

// SQLite's alone: the archive holds the books when they are the data dir's file. On PostgreSQL, backup refuses
// (backup-postgres.test.ts).
delete process.env.RELAYPAY_TEST_STORE

const run = promisify(execFile)
const relaypay = async (args: string[]) => {
  try {
    const { stdout, stderr } = await run(process.execPath, [cliPath, ...args], { timeout: 120_000 })
    return { code: 0, stdout, stderr }
  } catch (err) {
    const failed = err as { code?: number; stdout?: string; stderr?: string }
    return { code: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' }
  }
}

const jwtSecret = 'backup-test-secret-0123456789abcdefghij'
const price = 1000
const funded = 5_000_000
const test = suite('backup and restore')
let live: TestDaemon
let app: TestAppUser
let shop: { userToken: string; identifier: string }
const stopped: TestDaemon[] = []

test.before(async () => {
  live = await startDaemon({ config: jwtSecretConfig(jwtSecret) })
  app = await createAppWithUser(live, { jwtSecret, identifier: 'spender' })
  shop = await addAppUser(live, { appToken: app.appToken, appId: app.appId, jwtSecret, identifier: 'shop' })
  await ok(live, '/api/app/mock/user/blance/set', app.appToken, { user_identifier: 'spender', amount: funded })
})
test.after(async () => {
  for (const daemon of [live, ...stopped]) if (daemon.process.exitCode === null) await daemon.stop()
})

test('a snapshot taken under payment load restores into a daemon whose books are those of the snapshot', async () => {
  const total = async (daemon: TestDaemon) =>
    (await balanceOf(daemon, app.appToken, 'spender')) + (await balanceOf(daemon, app.appToken, 'shop')) + (await appBalance(daemon, app.appToken))
  const totalBefore = await total(live)
  // Four payers in a loop, each paying a fresh invoice of the shop.
  let paid = 0
  let loading = true
  const payers = Array.from({ length: 4 }, async () => {
    while (loading) {
      const invoice = await newInvoice(live, shop.userToken, price)
      const reply = await call(live, '/api/user/invoice/pay', app.userToken, { invoice, amount: 0 })
      assert.is(reply.status, 'OK', JSON.stringify(reply))
      paid++
    }
  })
  while (paid < 20) await new Promise(resolve => setTimeout(resolve, 20))
  const archive = path.join(tempDataDir(), 'snapshot.tar.gz')
  const paidAtStart = paid
  const backup = await relaypay(['backup', archive, '--data-dir', live.dataDir, '--json'])
  const paidAtEnd = paid
  loading = false
  await Promise.all(payers)
  assert.is(backup.code, 0, backup.stderr)
  assert.ok(paidAtEnd > paidAtStart, `payments went on during the backup (${paidAtStart} → ${paidAtEnd})`)
  const manifest = JSON.parse(backup.stdout)
  assert.is(fs.statSync(archive).mode & 0o777, 0o600, 'the archive holds secrets')
  assert.is(manifest.format, 'relaypay-backup/1')
  assert.ok(manifest.schema_version > 0)
  assert.ok(manifest.ledger.audit_ok)
  const listed = manifest.files.map((file: { path: string }) => file.path)
  for (const name of ['relaypay.sqlite', 'relay.sqlite', 'admin.token', 'node.key', 'relaypay.toml']) {
    assert.ok(listed.includes(name), name)
  }
  assert.not.ok(listed.some((name: string) => /-wal$|-shm$|daemon\.json/.test(name)))
  for (const file of manifest.files) assert.match(file.sha256, /^[0-9a-f]{64}$/)

  // The live daemon is untouched and its books are clean after the load.
  const liveShop = await balanceOf(live, app.appToken, 'shop')
  await assertAuditClean(live.dataDir)

  const target = path.join(tempDataDir(), 'restored')
  const restore = await relaypay(['restore', archive, target])
  assert.is(restore.code, 0, restore.stderr)
  assert.is(fs.statSync(target).mode & 0o777, 0o700)
  assert.is(fs.statSync(path.join(target, 'admin.token')).mode & 0o777, 0o600)
  assert.is(fs.readFileSync(path.join(target, 'admin.token'), 'utf8'), fs.readFileSync(path.join(live.dataDir, 'admin.token'), 'utf8'))

  const report = await assertAuditClean(target)
  assert.is(report.walletsTotalMsat, manifest.ledger.wallets_total_msat)
  const restored = await startDaemon({ dataDir: target })
  stopped.push(restored)
  // Same secrets: the app token and the admin token minted before the backup still work.
  const shopAtSnapshot = await balanceOf(restored, app.appToken, 'shop')
  assert.is(shopAtSnapshot % price, 0)
  const paymentsInSnapshot = shopAtSnapshot / price
  assert.ok(paymentsInSnapshot >= paidAtStart && paymentsInSnapshot <= paidAtEnd, `${paymentsInSnapshot} in [${paidAtStart}, ${paidAtEnd}]`)
  assert.ok(shopAtSnapshot <= liveShop)
  assert.is(await total(restored), totalBefore, 'no sat made or lost')
  // The restored daemon serves and pays.
  const invoice = await newInvoice(restored, shop.userToken, price)
  await ok(restored, '/api/user/invoice/pay', app.userToken, { invoice, amount: 0 })
  assert.is(await balanceOf(restored, app.appToken, 'shop'), shopAtSnapshot + price)
  await restored.stop()
  await assertAuditClean(target)

  // Restore never writes into a data dir that holds anything.
  const again = await relaypay(['restore', archive, target])
  assert.is(again.code, 1)
  assert.match(again.stderr, /is not an empty directory/)

  // One flipped byte anywhere in the archive is caught (gzip's CRC or a checksum), and nothing is written.
  const corrupt = path.join(path.dirname(archive), 'corrupt.tar.gz')
  const bytes = fs.readFileSync(archive)
  bytes[Math.floor(bytes.length / 2)] ^= 0xff
  fs.writeFileSync(corrupt, bytes)
  const empty = path.join(tempDataDir(), 'never')
  const refused = await relaypay(['restore', corrupt, empty])
  assert.is(refused.code, 1)
  assert.match(refused.stderr, /^relaypay: .*(not a readable relaypay backup|not a valid relaypay backup)/)
  assert.not.ok(fs.existsSync(empty) && fs.readdirSync(empty).length > 0)
  assert.equal(fs.readdirSync(path.dirname(empty)).filter(name => name.startsWith('.relaypay-restore-')), [])
})

test('a restore checks each file against the manifest and SHA256SUMS', async () => {
  const dir = tempDataDir()
  const archive = path.join(dir, 'b.tar.gz')
  assert.is((await relaypay(['backup', archive, '--data-dir', live.dataDir])).code, 0)
  // Unpack, change one secret, pack again: gzip is whole, the checksum is not.
  const unpacked = path.join(dir, 'unpacked')
  fs.mkdirSync(unpacked)
  await run('tar', ['xzf', archive, '-C', unpacked])
  fs.writeFileSync(path.join(unpacked, 'data', 'admin.token'), 'someone else\n')
  const tampered = path.join(dir, 'tampered.tar.gz')
  await run('tar', ['czf', tampered, '-C', unpacked, 'manifest.json', 'SHA256SUMS', 'data'])
  const refused = await relaypay(['restore', tampered, path.join(dir, 'target')])
  assert.is(refused.code, 1)
  assert.match(refused.stderr, /data\/admin\.token/)
  assert.not.ok(fs.existsSync(path.join(dir, 'target', 'relaypay.sqlite')))
  // An existing archive is never overwritten.
  const twice = await relaypay(['backup', archive, '--data-dir', live.dataDir])
  assert.is(twice.code, 1)
  assert.match(twice.stderr, /exists already/)
})

test('[backup] writes archives on a schedule and keeps the newest N', async () => {
  const daemon = await startDaemon({ config: '[backup]\ndir = "backups"\ninterval_seconds = 1\nkeep = 2\n' })
  stopped.push(daemon)
  const dir = path.join(daemon.dataDir, 'backups')
  const written = () => daemon.logs().split('\n').filter(line => line.includes('scheduled backup written')).length
  const started = Date.now()
  while (written() < 3) {
    if (Date.now() - started > 60_000) throw new Error(`3 scheduled backups did not happen:\n${daemon.logs()}`)
    await new Promise(resolve => setTimeout(resolve, 100))
  }
  await daemon.stop()
  const archives = fs.readdirSync(dir).filter(name => name.endsWith('.tar.gz'))
  assert.is(archives.length, 2, archives.join(', '))
  for (const name of archives) {
    assert.match(name, /^relaypay-backup-\d{8}T\d{9}Z\.tar\.gz$/)
    assert.is(fs.statSync(path.join(dir, name)).mode & 0o777, 0o600)
  }
  const restored = await relaypay(['restore', path.join(dir, archives.sort().at(-1)!), path.join(tempDataDir(), 'r')])
  assert.is(restored.code, 0, restored.stderr)
})

test('an archive in the data dir is never archived, and [backup] dir may not be the data dir', async () => {
  // Archives written among the files they archive would each hold all the earlier ones (45 → 89 → 177 → 351 KB).
  const first = path.join(live.dataDir, 'first.tar.gz')
  assert.is((await relaypay(['backup', first, '--data-dir', live.dataDir])).code, 0)
  const second = await relaypay(['backup', path.join(tempDataDir(), 'second.tar.gz'), '--data-dir', live.dataDir, '--json'])
  assert.is(second.code, 0, second.stderr)
  const files = (JSON.parse(second.stdout).files as { path: string }[]).map(file => file.path)
  assert.ok(files.includes('relaypay.sqlite'), files.join())
  assert.not.ok(files.includes('first.tar.gz'), files.join())
  fs.rmSync(first)
  // A schedule into the data dir itself is refused at start, naming the key.
  for (const dir of ['.', './']) {
    const dataDir = path.join(tempDataDir(), 'data')
    fs.mkdirSync(dataDir)
    fs.writeFileSync(path.join(dataDir, 'relaypay.toml'), `[backup]\ndir = "${dir}"\n`)
    const refused = await relaypay(['start', '--data-dir', dataDir, '--http-port', '0'])
    assert.is(refused.code, 1)
    assert.match(refused.stderr, /backup\.dir.*must not be the data dir itself/)
    assert.not.ok(fs.existsSync(path.join(dataDir, 'relaypay.sqlite')), 'nothing started')
  }
})

test.run()
