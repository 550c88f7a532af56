// Database faults on PostgreSQL, part 4: the one moment the load only hits by chance, made to happen. A payment to
// another node has left (LND paid it), and the transaction that settles it in the books loses its session: the test
// holds the payments table locked so the settle waits, and ends the waiting session. The caller is told the outcome
// is unknown; the payment, still pending with its sats reserved, is then settled by the tracker asking LND again —
// while the daemon runs, not at its next start. LND is asked once; the audit is clean.
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { createHash, randomBytes } from 'node:crypto'
import { decode } from 'light-bolt11-decoder'
import pg from 'pg'
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { cliPath, startDaemon, tempDataDir, type TestDaemon } from '../support/daemon.js'
import { startFakeLnd, type FakeLnd } from '../support/fake-lnd/fake-lnd.js'
import { outsideInvoice } from '../support/outside-invoice.js'
import { createDatabase, type PostgresServer } from '../support/postgres.js'
import { appProfile, PubClient } from '../support/pub-client.js'
import { until } from '../support/until.js'
import { startRelayProcess, type RelayProcess } from '../support/relay-process.js'
import { storeFaultReason } from '../../src/bus/errors.js'
import { feeSats } from './chaos-world.js'
import { ownPostgres, poolSession } from './postgres-faults-suite.js'

const server: PostgresServer | undefined = await ownPostgres()
const s = suite('database faults on PostgreSQL: the settle of a paid payment cut off')
let fake: FakeLnd | undefined
let relay: RelayProcess | undefined
let daemon: TestDaemon | undefined
let client: PubClient | undefined

s.after(async () => {
  client?.close()
  await daemon?.stop().catch(() => {})
  await relay?.stop()
  await fake?.close()
  server?.stop()
})

const hashOf = (invoice: string) => (decode(invoice).sections.find(x => x.name === 'payment_hash') as { value: string }).value

s('LND paid it, the settle lost its session: "outcome unknown", then settled by the tracker without a restart', async () => {
  if (!server) return
  fake = await startFakeLnd({ network: 'regtest' })
  relay = await startRelayProcess(tempDataDir())
  const url = await createDatabase(server.adminUrl)
  const c = fake.connection
  const config =
    '[auth]\njwt_secret = "settle-fault-secret-0123456789abcdefghijk"\n' +
    `[nostr]\nrelays = ["${relay.url}"]\n` +
    `[node]\nbackend = "lnd"\nnetwork = "regtest"\nlnd_socket = "${c.socket}"\nlnd_cert_path = "${c.certPath}"\nlnd_macaroon_path = "${c.macaroonPath}"\n`
  daemon = await startDaemon({ config, env: { RELAYPAY_STORE_URL: url }, mock: false })
  client = await PubClient.connect({ relays: [relay.url], appPubkey: appProfile(daemon.dataDir).pubkey, timeoutMs: 60_000 })
  const funding = 50_000
  fake.settleInvoice(hashOf((await client.ok('NewInvoice', { amountSats: funding, memo: 'funding' })).invoice))
  await until(async () => (await client!.ok('GetUserInfo')).balance === funding, 'the funding to be credited')

  const sats = 1_234
  const preimage = randomBytes(32)
  const paymentHash = createHash('sha256').update(preimage).digest('hex')
  const outside = outsideInvoice({ network: 'regtest', nowMs: Date.now(), amountMsat: sats * 1000, paymentHash })
  let ended = 0
  const cutOff = (async () => {
    // Once LND has the payment (the pending row and the debit committed), the payments table is locked, LND says
    // paid, and the session whose settle waits for the lock is ended.
    await until(() => (fake!.node.traffic.calls.get('SendPaymentV2') ?? 0) > 0, 'the payment to reach LND')
    const admin = new pg.Client({ connectionString: url })
    await admin.connect()
    try {
      await admin.query('BEGIN')
      await admin.query('LOCK TABLE payments IN ACCESS EXCLUSIVE MODE')
      fake!.node.payments.succeed(paymentHash, preimage.toString('hex'))
      await until(async () => {
        const { rows } = await admin.query(
          `SELECT count(*) FILTER (WHERE pg_terminate_backend(pid))::int AS ended FROM pg_stat_activity
            WHERE datname = current_database() AND application_name = $1 AND wait_event_type = 'Lock'`,
          [poolSession],
        )
        ended += rows[0].ended as number
        return ended > 0
      }, 'the settle to wait for the lock', 10_000)
      await admin.query('COMMIT')
    } finally {
      await admin.end()
    }
  })()
  // The other node takes the payment only when the test says so (above).
  fake.node.remoteNodes.set(outside.payeePubkey, () => {})
  const reply = await client.call('PayInvoice', { invoice: outside.paymentRequest, amount: 0 })
  await cutOff
  assert.is(ended, 1, 'one session ended')
  assert.equal([reply.status, reply.reason], ['ERROR', storeFaultReason], 'the caller is told the outcome is unknown')

  // The daemon still runs, and the payment settles without a restart.
  await until(async () => (await client!.call('GetPaymentState', { invoice: outside.paymentRequest })).paid_at_unix > 0, 'the tracker to settle the payment', 20_000)
  assert.is(daemon.process.exitCode, null, 'the daemon exited')
  assert.is((await client.ok('GetUserInfo')).balance, funding - sats - feeSats(sats), 'paid once, with its fee')
  const again = await client.call('PayInvoice', { invoice: outside.paymentRequest, amount: 0 })
  assert.equal([again.status, again.reason], ['ERROR', 'this invoice was already paid'])
  assert.is(fake.node.traffic.calls.get('SendPaymentV2'), 1, 'LND asked once')
  const { stdout } = await promisify(execFile)(process.execPath, [cliPath, 'audit', '--store-url', url, '--json'])
  assert.ok(JSON.parse(stdout).ok, `audit on PostgreSQL: ${stdout}`)
})

s.run()
