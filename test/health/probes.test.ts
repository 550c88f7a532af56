// GET /healthz and GET /readyz as a service manager asks them: ready on a healthy daemon; not ready (503, the
// failing check named) while the node is unreachable, both once running and during a start that waits for LND;
// /api/health keeps its Lightning.Pub answer.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import net from 'node:net'
import fs from 'node:fs'
import path from 'node:path'
import { spawn } from 'node:child_process'
import Database from 'better-sqlite3'
import pg from 'pg'
import { cliPath, startDaemon, storeEnv, storeUrlOf, tempDataDir, type TestDaemon } from '../support/daemon.js'
import { startFakeLnd, type FakeLnd } from '../support/fake-lnd/fake-lnd.js'
import { startRelay } from '../../src/relay/index.js'
import { createEventVerifier } from '../../src/transports/nostr/verify.js'
import { until } from '../support/until.js'
import { scanLogKeysOf } from '../support/log-keys.js'

const probes = suite('health probes')


const freePort = () =>
  new Promise<number>(resolve => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
  })

const get = async (url: string) => {
  const res = await fetch(url)
  return { status: res.status, json: (await res.json()) as any }
}

const lndConfig = (fake: FakeLnd, extra = '') =>
  `[node]\nbackend = "lnd"\nnetwork = "regtest"\nlnd_socket = "${fake.connection.socket}"\n` +
  `lnd_cert_path = "${fake.connection.certPath}"\nlnd_macaroon_path = "${fake.connection.macaroonPath}"\n${extra}` +
  `[health]\nnode_check_seconds = 1\nnode_timeout_seconds = 1\n`

let fake: FakeLnd
const daemons: TestDaemon[] = []

probes.before(async () => {
  fake = await startFakeLnd({ network: 'regtest' })
})

probes.after(async () => {
  for (const daemon of daemons) await daemon.stop()
  await fake.close()
})

probes('a healthy daemon is alive and ready, every check named; no credential is needed', async () => {
  const daemon = await startDaemon()
  daemons.push(daemon)
  const alive = await daemon.request('GET', '/healthz')
  assert.is(alive.status, 200)
  assert.equal(alive.json, { alive: true })
  const ready = await daemon.request('GET', '/readyz')
  assert.is(ready.status, 200, ready.text)
  assert.is(ready.json.ready, true)
  assert.equal(Object.keys(ready.json.checks).sort(), ['migrations', 'node', 'relays', 'start', 'store'])
  for (const [name, check] of Object.entries<any>(ready.json.checks)) {
    assert.is(check.ok, true, name)
    assert.type(check.detail, 'string')
  }
  assert.match(ready.json.checks.relays.detail, /embedded relay up/)
  assert.is(ready.headers.get('cache-control'), 'no-store')
  const head = await fetch(daemon.url + '/readyz', { method: 'HEAD' })
  assert.is(head.status, 200)
  assert.is(await head.text(), '')
  const pub = await daemon.request('GET', '/api/health')
  assert.equal(pub.json, { status: 'OK' })
})

probes('an unreachable node makes the daemon not ready (503, node named) and alive; it recovers', async () => {
  const daemon = await startDaemon({ config: lndConfig(fake) })
  daemons.push(daemon)
  assert.is((await daemon.request('GET', '/readyz')).status, 200)
  await fake.stop()
  try {
    let answer: { status: number; json: any } | undefined
    await until(async () => (answer = await daemon.request('GET', '/readyz')).status === 503, '/readyz to answer 503')
    assert.is(answer!.json.ready, false)
    assert.is(answer!.json.checks.node.ok, false)
    assert.ok(answer!.json.checks.node.detail.length > 0)
    for (const name of ['start', 'migrations', 'store', 'relays']) assert.is(answer!.json.checks[name].ok, true, name)
    assert.is((await daemon.request('GET', '/healthz')).status, 200)
    // The Lightning.Pub probe keeps its own dialect: 200 with ERROR and the reason.
    const pub = await daemon.request('GET', '/api/health')
    assert.is(pub.json.status, 'ERROR')
  } finally {
    await fake.start()
  }
  await until(async () => (await daemon.request('GET', '/readyz')).status === 200, '/readyz to recover')
})

probes('a store that takes no write makes the daemon not ready, store named; it recovers', async () => {
  const daemon = await startDaemon()
  daemons.push(daemon)
  assert.is((await daemon.request('GET', '/readyz')).status, 200)
  const notReady = async (detail: RegExp) => {
    let answer: { status: number; json: any } | undefined
    await until(async () => (answer = await daemon.request('GET', '/readyz')).status === 503, '/readyz to answer 503')
    assert.is(answer!.json.checks.store.ok, false)
    assert.match(answer!.json.checks.store.detail, detail)
    for (const name of ['start', 'migrations', 'node', 'relays']) assert.is(answer!.json.checks[name].ok, true, name)
  }
  const url = storeUrlOf(daemon.dataDir)
  if (!url) {
    // SQLite: an operator's sqlite3 shell left in a write transaction on the live ledger holds the file's one lock.
    const other = new Database(path.join(daemon.dataDir, 'relaypay.sqlite'))
    try {
      other.exec('BEGIN IMMEDIATE')
      await notReady(/^not writable: database is locked/)
    } finally {
      other.exec('ROLLBACK')
      other.close()
    }
  } else {
    // PostgreSQL has no lock for a whole database: there the database made read-only (as an operator does before a
    // move) takes no write; the daemon's pool sessions are ended so that new ones start read-only.
    const readOnly = async (on: boolean) => {
      const admin = new pg.Client({ connectionString: url })
      await admin.connect()
      try {
        await admin.query('SET default_transaction_read_only = off') // this session, on the read-only database
        const name = new URL(url).pathname.slice(1)
        await admin.query(`ALTER DATABASE ${name} ${on ? 'SET default_transaction_read_only = on' : 'RESET default_transaction_read_only'}`)
        await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND application_name = 'relaypay'`, [name])
      } finally {
        await admin.end()
      }
    }
    await readOnly(true)
    try {
      await notReady(/^not writable: cannot execute UPDATE in a read-only transaction/)
    } finally {
      await readOnly(false)
    }
  }
  await until(async () => (await daemon.request('GET', '/readyz')).status === 200, '/readyz to recover')
})

probes('on external relays: ready while one is connected, 503 naming the relays check when none is; it recovers', async () => {
  const { verify } = await createEventVerifier()
  const relayDir = tempDataDir()
  let relay = await startRelay({ host: '127.0.0.1', port: 0, dataDir: relayDir, verifyEvent: verify })
  const port = Number(new URL(relay.url).port)
  const daemon = await startDaemon({ config: `[nostr]\nrelays = ["${relay.url}"]\n` })
  daemons.push(daemon)
  try {
    await until(async () => (await daemon.request('GET', '/readyz')).status === 200, 'ready on the external relay')
    const ready = await daemon.request('GET', '/readyz')
    assert.equal(ready.json.checks.relays, { ok: true, detail: '1 of 1 relays connected' })
    await relay.close()
    let answer: { status: number; json: any } | undefined
    await until(async () => (answer = await daemon.request('GET', '/readyz')).status === 503, '/readyz to answer 503')
    assert.is(answer!.json.ready, false)
    assert.equal(answer!.json.checks.relays, { ok: false, detail: '0 of 1 relays connected' })
    for (const name of ['start', 'migrations', 'store', 'node']) assert.is(answer!.json.checks[name].ok, true, name)
    assert.is((await daemon.request('GET', '/healthz')).status, 200)
    relay = await startRelay({ host: '127.0.0.1', port, dataDir: relayDir, verifyEvent: verify })
    await until(async () => (await daemon.request('GET', '/readyz')).status === 200, '/readyz to recover', 60_000)
  } finally {
    await relay.close().catch(() => {})
  }
})

probes('during a start that waits for LND, the probes answer (alive, not ready) and operations say it is starting', async () => {
  await fake.stop()
  const dataDir = path.join(tempDataDir(), 'data')
  fs.mkdirSync(dataDir, { recursive: true })
  fs.writeFileSync(path.join(dataDir, 'relaypay.toml'), lndConfig(fake, 'wait_for_node = true\n'))
  const port = await freePort()
  const child = spawn(process.execPath, [cliPath, 'start', '--data-dir', dataDir, '--http-port', String(port)], {
    env: { ...process.env, RELAYPAY_NOSTR_EMBEDDED_RELAY_PORT: '0', ...(await storeEnv(dataDir, {})) },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  scanLogKeysOf(child, `the daemon in ${dataDir}`)
  let output = ''
  child.stdout.on('data', chunk => (output += chunk))
  child.stderr.on('data', chunk => (output += chunk))
  const exited = new Promise(resolve => child.on('exit', resolve))
  const base = `http://127.0.0.1:${port}`
  try {
    await until(async () => (await get(`${base}/healthz`).catch(() => undefined))?.status === 200, 'the probes to answer')
    const starting = await get(`${base}/readyz`)
    assert.is(starting.status, 503)
    assert.is(starting.json.ready, false)
    assert.is(starting.json.checks.start.ok, false)
    assert.is(starting.json.checks.node.ok, false)
    // The migrations ran before the node was asked for.
    await until(async () => (await get(`${base}/readyz`)).json.checks.migrations.ok === true, 'the migrations')
    // Operations wait for the start: the Lightning.Pub dialect says so in its own way (200, ERROR).
    assert.equal((await get(`${base}/api/health`)).json, { status: 'ERROR', reason: 'the daemon is starting' })
    await fake.start()
    await until(async () => (await get(`${base}/readyz`)).status === 200, 'ready once LND answers', 40_000)
    const info = JSON.parse(fs.readFileSync(path.join(dataDir, 'daemon.json'), 'utf8'))
    assert.is(info.url, base)
  } catch (err) {
    throw new Error(`${(err as Error).message}\n${output}`)
  } finally {
    await fake.start().catch(() => {})
    child.kill('SIGTERM')
    await exited
  }
})

probes.run()
