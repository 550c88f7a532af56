// A payment still in flight at the (fake) LND when the daemon dies resolves correctly after the
// restart, both ways: settled when LND says succeeded, refunded when LND says failed — never both, never lost.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { createHash, randomBytes } from 'node:crypto'
import { decode } from 'light-bolt11-decoder'
import { startDaemon, type TestDaemon } from '../support/daemon.js'
import { startFakeLnd, type FakeLnd } from '../support/fake-lnd/fake-lnd.js'
import { outsideInvoice } from '../support/outside-invoice.js'
import { createAppWithUser, jwtSecretConfig, type TestAppUser } from '../support/accounts.js'
import { assertAuditClean, balanceOf, ok } from '../support/money.js'
import { until } from '../support/until.js'

const jwtSecret = 'lnd-in-flight-restart-secret-0123456789ab'
const s = suite('a payment in flight at LND across a daemon restart')
let fake: FakeLnd
let daemon: TestDaemon
let user: TestAppUser

const balance = () => balanceOf(daemon, user.appToken, user.identifier)

s.before(async () => {
  fake = await startFakeLnd({ network: 'regtest' })
  const c = fake.connection
  daemon = await startDaemon({
    config:
      jwtSecretConfig(jwtSecret) +
      `[node]\nbackend = "lnd"\nnetwork = "regtest"\nlnd_socket = "${c.socket}"\nlnd_cert_path = "${c.certPath}"\nlnd_macaroon_path = "${c.macaroonPath}"\n`,
  })
  user = await createAppWithUser(daemon, { jwtSecret, identifier: 'lnd-payer' })
  // Funded over "Lightning": the fake settles the user's invoice as if another node paid it.
  const { invoice } = await ok(daemon, '/api/user/invoice/new', `Bearer ${user.userToken}`, { amountSats: 5000, memo: 'funding' })
  const hash = (decode(invoice).sections.find(x => x.name === 'payment_hash') as { value: string }).value
  fake.settleInvoice(hash)
  await until(async () => (await balance()) === 5000, 'the settlement to be credited')
})
s.after(async () => {
  await daemon.stop()
  await fake.close()
})

for (const outcome of ['succeeded', 'failed'] as const) {
  s(`LND says ${outcome} while the daemon is down`, async () => {
    const before = await balance()
    const preimage = randomBytes(32).toString('hex')
    const paymentHash = createHash('sha256').update(Buffer.from(preimage, 'hex')).digest('hex')
    const foreign = outsideInvoice({ network: 'regtest', nowMs: Date.now(), amountMsat: 1_000_000, paymentHash })
    fake.faults.holdPayments = true
    const paying = daemon
      .request('POST', '/api/user/invoice/pay', { body: { invoice: foreign.paymentRequest, amount: 0 }, headers: { authorization: `Bearer ${user.userToken}` } })
      .catch(() => undefined) // the daemon dies while this waits
    await until(() => fake.node.payments.get(paymentHash)?.status === 'IN_FLIGHT', 'the payment to reach LND')
    assert.is(await balance(), before - 1010, 'debited up front: 1000 sats + the 10-sat service fee')

    await daemon.kill()
    await paying
    fake.faults.holdPayments = false
    if (outcome === 'succeeded') fake.resolvePayment(paymentHash, { preimage })
    else fake.resolvePayment(paymentHash, { failed: 'FAILURE_REASON_NO_ROUTE' })

    daemon = await startDaemon({ dataDir: daemon.dataDir })
    const expected = outcome === 'succeeded' ? before - 1010 : before
    await until(async () => {
      const state = await ok(daemon, '/api/user/payment/state', `Bearer ${user.userToken}`, { invoice: foreign.paymentRequest })
      return outcome === 'succeeded' ? state.paid_at_unix > 0 : state.paid_at_unix === -1
    }, `the payment to be resolved as ${outcome}`)
    assert.is(await balance(), expected)
    await assertAuditClean(daemon.dataDir)
  })
}

s.run()
