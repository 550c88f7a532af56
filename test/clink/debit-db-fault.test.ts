// A CLINK debit whose payment succeeds while the database cannot be read, on a real PostgreSQL: the requester is
// answered once, with the preimage, once the books can be read again — not "Temporary Failure" at the fault and then
// "ok" after the next restart, which is what a payee that retries on the first answer could be paid twice for. The
// fault is a lock the test holds on the debit payments' table: every statement of the daemon on it meets its
// lock_timeout, as on a database too slow to answer.
import net from 'node:net'
import { WebSocket } from 'ws'
import pg from 'pg'
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { createHash, randomBytes } from 'node:crypto'
import { decode } from 'light-bolt11-decoder'
import { startDaemon, tempDataDir, type TestDaemon } from '../support/daemon.js'
import { startFakeLnd, type FakeLnd } from '../support/fake-lnd/fake-lnd.js'
import { outsideInvoice } from '../support/outside-invoice.js'
import { createAppWithUser, jwtSecretConfig, type TestAppUser } from '../support/accounts.js'
import { ClinkDebitClient } from '../support/clink-debit-client.js'
import { balanceOf, ok } from '../support/money.js'
import { until } from '../support/until.js'
import { postgresSkipReason, testPostgres } from '../support/postgres.js'

;(globalThis as { WebSocket?: unknown }).WebSocket = WebSocket
const { ClinkSDK } = await import('@shocknet/clink-sdk')

const jwtSecret = 'clink-debit-db-fault-secret-0123456789ab'
const postgres = await testPostgres()

const freePort = () =>
  new Promise<number>(resolve => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
  })

if (!postgres) {
  const skipped = suite('a CLINK debit paid while the database cannot be read')
  skipped('skipped: no PostgreSQL server', () => console.log(`  skipped: no PostgreSQL server (${postgresSkipReason})`))
  skipped.run()
} else {
  const test = suite('a CLINK debit paid while the database cannot be read')
  let fake: FakeLnd
  let daemon: TestDaemon
  let user: TestAppUser
  let app: ClinkDebitClient | undefined
  let relayPort: number
  const dataDir = `${tempDataDir()}/data`
  const start = () =>
    startDaemon({
      dataDir,
      env: { RELAYPAY_NOSTR_EMBEDDED_RELAY_PORT: String(relayPort), RELAYPAY_STORE_URL: postgres.url },
      config:
        jwtSecretConfig(jwtSecret) +
        `[node]\nbackend = "lnd"\nnetwork = "regtest"\nlnd_socket = "${fake.connection.socket}"\n` +
        `lnd_cert_path = "${fake.connection.certPath}"\nlnd_macaroon_path = "${fake.connection.macaroonPath}"\n`,
    })

  test.before(async () => {
    fake = await startFakeLnd({ network: 'regtest' })
    relayPort = await freePort()
    daemon = await start()
  })
  test.after(async () => {
    app?.close()
    await daemon?.stop()
    await fake?.close()
    await postgres.close()
  })

  test('paid during the fault: one answer, the preimage, also after a restart', async () => {
    user = await createAppWithUser(daemon, { jwtSecret, identifier: 'db-fault-debtor' })
    const balance = () => balanceOf(daemon, user.appToken, user.identifier)
    const { invoice } = await ok(daemon, '/api/user/invoice/new', user.userToken, { amountSats: 5000, memo: 'funding' })
    fake.settleInvoice((decode(invoice).sections.find(x => x.name === 'payment_hash') as { value: string }).value)
    await until(async () => (await balance()) === 5000, 'the funding to be credited')
    const ndebit = ClinkSDK.decodeBech32((await ok(daemon, '/api/user/info', user.userToken)).ndebit).data as { pubkey: string; relay: string; pointer: string }
    app = await ClinkDebitClient.connect(ndebit.relay, ndebit.pubkey, undefined, 120)
    await ok(daemon, '/api/user/debit/finish', user.userToken, {
      request_id: 'none',
      npub: app.pubkey,
      response: { type: 'authorize', authorize: { rules: [] } },
    })
    fake.faults.holdPayments = true

    const preimage = randomBytes(32).toString('hex')
    const paymentHash = createHash('sha256').update(Buffer.from(preimage, 'hex')).digest('hex')
    const bolt11 = outsideInvoice({ network: 'regtest', nowMs: Date.now(), amountMsat: 300_000, paymentHash }).paymentRequest
    const request = app.request({ pointer: ndebit.pointer, bolt11 })
    await app.publish(request)
    await until(() => fake.node.payments.get(paymentHash)?.status === 'IN_FLIGHT', 'the payment to reach LND')

    // The fault: the debit payments' table locked by another session while LND says the payment succeeded.
    const locker = new pg.Client({ connectionString: postgres.url })
    await locker.connect()
    try {
      await locker.query('BEGIN')
      await locker.query('LOCK TABLE clink_debit_payments IN ACCESS EXCLUSIVE MODE')
      fake.resolvePayment(paymentHash, { preimage })
      // The daemon meets the fault: it says it will answer later, or (as it once did) answers at once.
      await until(() => daemon.logs().includes('its requester is answered once it can be') || app!.answers.has(request.id), 'the daemon to meet the fault', 60_000)
      assert.equal(app.answers.get(request.id), undefined, 'no answer while the outcome cannot be read')
      await locker.query('COMMIT')
    } finally {
      await locker.end()
    }
    assert.equal((await app.answer(request.id, 30_000)).payload, { res: 'ok', preimage })
    assert.is(await balance(), 5000 - 310)

    // A restart, where a stopped run's payments are answered if they were not: this one was.
    assert.is(app.answers.get(request.id)!.length, 1, 'one answer before the restart')
    assert.is(await daemon.stop(), 0)
    app.close()
    daemon = await start()
    // The same key, reading back two minutes. The relay (the daemon's own) keeps a reply that nobody heard live
    // across its restart, and not one that was heard: so what it gives back now is only what the restart sent.
    app = await ClinkDebitClient.connect(ndebit.relay, ndebit.pubkey, app.secretKey, 120)
    assert.is((await app.send({ pointer: ndebit.pointer })).payload.res, 'ok', 'a later request, answered after anything the restart sent')
    assert.is(app.answers.get(request.id), undefined, 'no second answer after the restart')
    assert.is(await balance(), 5000 - 310)
  })

  test.run()
}
