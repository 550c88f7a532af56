// Hot standby: two real daemon processes on one PostgreSQL 15 and one fake LND. The second waits (its
// probes answer, /readyz 503 names the standby, nothing else starts: no LND invoice stream, no ready file); kill -9
// of the active one and the standby serves within 10 s; a daemon whose lock session is ended by the server stops and
// exits non-zero. Only a daemon configured as a standby (`[store] standby`) waits: any other second start on the
// same books refuses in one line naming the first, and with the embedded node there is no standby at all.
import fs from 'node:fs'
import path from 'node:path'
import pg from 'pg'
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { startDaemon, type TestDaemon } from '../support/daemon.js'
import { startFakeLnd, type FakeLnd } from '../support/fake-lnd/fake-lnd.js'
import { postgresSkipReason, testPostgres, type TestPostgres } from '../support/postgres.js'
import { logPostgresSkipped } from '../support/sql-engines.js'
import { until } from '../support/until.js'

/** The bound on a takeover, from the active daemon's death to the standby serving (docs/postgres.md, "Takeover steps"). */
const takeoverWithinMs = 10_000
const standbyDetail = 'standby: another daemon holds the books'

// Every daemon here names its own PostgreSQL (RELAYPAY_STORE_URL): the store switch changes nothing, so the
// PostgreSQL half of a run leaves this file to the first (test/store-tests.ts).
delete process.env.RELAYPAY_TEST_STORE
const postgres = await testPostgres()
if (!postgres) logPostgresSkipped(postgresSkipReason)
const s = suite('hot standby: two daemons on one PostgreSQL')
let fake: FakeLnd
const started: TestDaemon[] = []

const auth = '[auth]\njwt_secret = "standby-test-secret-0123456789abcdefghij"\n'
const lndConfig = () => {
  const c = fake.connection
  return `${auth}[node]\nbackend = "lnd"\nnetwork = "regtest"\nlnd_socket = "${c.socket}"\nlnd_cert_path = "${c.certPath}"\nlnd_macaroon_path = "${c.macaroonPath}"\n`
}
/** A daemon on the books at `url`; configured as a standby (`[store] standby`) unless `standby` is false. */
async function daemonOn(url: string, opts: { untilProbes?: boolean; dataDir?: string; config?: string; standby?: boolean } = {}): Promise<TestDaemon> {
  const env = { RELAYPAY_STORE_URL: url, RELAYPAY_STORE_STANDBY: String(opts.standby ?? true) }
  const daemon = await startDaemon({ config: opts.config ?? lndConfig(), env, untilProbes: opts.untilProbes, dataDir: opts.dataDir })
  started.push(daemon)
  return daemon
}
const readyz = async (daemon: TestDaemon) => daemon.request('GET', '/readyz')
const subscriptions = () => fake.node.traffic.calls.get('SubscribeInvoices') ?? 0

s.before(async () => {
  fake = await startFakeLnd({ network: 'regtest' })
})
// A failed case leaves no daemon holding the lock for the next one.
s.after.each(async () => {
  for (const daemon of started.splice(0)) await daemon.kill().catch(() => {})
})
s.after(async () => {
  for (const daemon of started) if (daemon.process.exitCode === null && daemon.process.signalCode === null) await daemon.stop()
  await fake?.close()
  await postgres?.close()
})

function onPostgres(name: string, run: (pgs: TestPostgres) => Promise<void>) {
  s(name, async () => {
    if (!postgres) return console.log(`  skipped "${name}": ${postgresSkipReason}`)
    await run(postgres)
  })
}

onPostgres('the second daemon waits as a standby, and takes over within 10 s of a kill -9 of the active one', async pgs => {
  const active = await daemonOn(pgs.url)
  await until(async () => (await readyz(active)).status === 200, 'the active daemon to be ready')
  const streamsBefore = subscriptions()

  const standby = await daemonOn(pgs.url, { untilProbes: true })
  assert.is((await standby.request('GET', '/healthz')).status, 200)
  await until(async () => (await readyz(standby)).json?.checks?.start?.detail === standbyDetail, 'the standby to say it is one')
  const waiting = await readyz(standby)
  assert.is(waiting.status, 503)
  assert.is(waiting.json.ready, false)
  // Nothing runs while it waits: operations are not served, no ready file, no invoice stream from LND.
  await new Promise(resolve => setTimeout(resolve, 1500))
  const refused = await standby.request('POST', '/api/admin/app/add', { body: { name: 'x' }, headers: { authorization: standby.adminToken } })
  // The upstream API answers errors with 200 and an ERROR body.
  assert.equal(refused.json, { status: 'ERROR', reason: 'the daemon is starting' })
  assert.not.ok(fs.existsSync(path.join(standby.dataDir, 'daemon.json')), 'a standby wrote the ready file')
  assert.is(subscriptions(), streamsBefore, 'a standby subscribed to LND invoices')
  assert.match(standby.logs(), 'standby: another daemon holds the books; waiting for its lock')

  const killedAt = Date.now()
  await active.kill()
  await standby.waitUntilServing(takeoverWithinMs + 20_000)
  await until(async () => (await readyz(standby)).status === 200, 'the standby to be ready', takeoverWithinMs + 20_000)
  const tookMs = Date.now() - killedAt
  console.log(`  takeover: kill -9 of the active daemon to the standby's /readyz 200 in ${tookMs} ms`)
  assert.ok(tookMs < takeoverWithinMs, `the takeover took ${tookMs} ms`)
  assert.ok(subscriptions() > streamsBefore, 'the new active daemon follows LND invoices')
  assert.match(standby.logs(), 'this daemon is the active one: starting')

  // The one killed comes back as a standby of the new active one.
  const back = await daemonOn(pgs.url, { untilProbes: true, dataDir: active.dataDir })
  await until(async () => (await readyz(back)).json?.checks?.start?.detail === standbyDetail, 'the restarted daemon to wait')
  await standby.stop()
  await back.waitUntilServing(takeoverWithinMs + 20_000)
  await back.stop()
})

onPostgres('a daemon whose lock session the server ends stops serving and exits non-zero; the standby takes over', async pgs => {
  const active = await daemonOn(pgs.url)
  const standby = await daemonOn(pgs.url, { untilProbes: true })
  await until(async () => (await readyz(standby)).json?.checks?.start?.detail === standbyDetail, 'the standby to wait')
  const admin = new pg.Client({ connectionString: pgs.url })
  await admin.connect()
  try {
    // The holder's lock session (the standby's is the one waiting; both have the same name): the one holding it.
    // Advisory locks belong to a database: other tests' daemons on this server hold the same key in theirs.
    const { rows } = await admin.query(
      `SELECT l.pid FROM pg_locks l JOIN pg_database d ON d.oid = l.database
        WHERE d.datname = current_database() AND l.locktype = 'advisory' AND l.granted AND l.classid = $1 AND l.objid = $2`,
      [0x72706179, 2],
    )
    assert.is(rows.length, 1, 'one session holds the active-daemon lock')
    await admin.query('SELECT pg_terminate_backend($1)', [rows[0].pid])
  } finally {
    await admin.end()
  }
  const code = await Promise.race([active.exited, new Promise(resolve => setTimeout(() => resolve('still running'), 15_000))])
  assert.is(code, 3, `the daemon that lost its lock exited with ${String(code)}`)
  assert.match(active.logs(), 'lost the active-daemon lock')
  await standby.waitUntilServing(takeoverWithinMs + 20_000)
  await until(async () => (await readyz(standby)).status === 200, 'the standby to be ready', 30_000)
  await standby.stop()
})

onPostgres('with the embedded node a second daemon on the same books refuses to start, saying why', async pgs => {
  const config = `${auth}[node]\nbackend = "embedded"\n`
  const first = await daemonOn(pgs.url, { config })
  const err = await daemonOn(pgs.url, { config }).then(
    () => undefined,
    (e: Error) => e,
  )
  assert.ok(err, 'the second daemon started')
  assert.match(err!.message, 'exited with 1')
  assert.match(err!.message, `another daemon holds these books (`)
  assert.match(err!.message, ` pid ${first.process.pid} since `)
  assert.match(err!.message, 'there is no standby')
  assert.match(err!.message, 'backend = "lnd"')
  assert.is((await readyz(first)).status, 200, 'the first daemon serves on')
  await first.stop()
})

onPostgres('a second daemon not configured as a standby refuses in one line naming the first; a standby waits', async pgs => {
  const first = await daemonOn(pgs.url, { standby: false })
  const err = await daemonOn(pgs.url, { standby: false }).then(
    () => undefined,
    (e: Error) => e,
  )
  assert.ok(err, 'the second daemon started')
  assert.match(err!.message, 'exited with 1')
  const refusal = err!.message.split('\n').filter(line => line.includes('another daemon holds these books'))
  assert.is(refusal.length, 1, err!.message)
  assert.match(refusal[0]!, ` pid ${first.process.pid} since `)
  assert.match(refusal[0]!, '[store] standby = true')
  assert.is((await readyz(first)).status, 200, 'the first daemon serves on')
  // Configured as one, the same start waits as a standby instead.
  const standby = await daemonOn(pgs.url, { untilProbes: true })
  await until(async () => (await readyz(standby)).json?.checks?.start?.detail === standbyDetail, 'the standby to say it waits')
  await first.stop()
  await standby.waitUntilServing(takeoverWithinMs + 20_000)
  await standby.stop()
})

s.run()
