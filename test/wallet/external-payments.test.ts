// Paying invoices of other nodes over HTTP. With simulated routes the payment succeeds after a short flight and the
// app keeps the service fee minus the routing fee; with no route it fails, the payer gets everything back and the
// node's reason is the answer.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { startDaemon, type TestDaemon } from '../support/daemon.js'
import { createAppWithUser, jwtSecretConfig, type TestAppUser } from '../support/accounts.js'
import { outsideInvoice } from '../support/outside-invoice.js'
import { appBalance, assertAuditClean, balanceOf, call, ok } from '../support/money.js'

const jwtSecret = 'wallet-external-test-secret-0123456789a'
const foreignInvoice = (sats: number) =>
  outsideInvoice({ network: 'regtest', nowMs: Date.now(), amountMsat: sats * 1000 }).paymentRequest

const routed = suite('external payments with a route (simulated)')
let daemon: TestDaemon
let app: TestAppUser

routed.before(async () => {
  daemon = await startDaemon({ config: `${jwtSecretConfig(jwtSecret)}\n[node]\nsimulate_payments = true\n` })
  app = await createAppWithUser(daemon, { jwtSecret, identifier: 'traveller' })
  await ok(daemon, '/api/app/mock/user/blance/set', app.appToken, { user_identifier: 'traveller', amount: 50_000 })
})
routed.after(async () => {
  await assertAuditClean(daemon.dataDir)
  await daemon?.stop()
})

routed('a paid foreign invoice costs amount + service fee; the app keeps the fee minus the route', async () => {
  const appBefore = await appBalance(daemon, app.appToken)
  const invoice = foreignInvoice(10_000)
  const paid = await ok(daemon, '/api/user/invoice/pay', app.userToken, { invoice, amount: 0 })
  assert.is(paid.amount_paid, 10_000)
  assert.is(paid.service_fee, 60)
  assert.is(paid.network_fee, 0) // as upstream
  assert.is(paid.operation.network_fee, 11) // the simulated route: 1 sat + 0.1%
  assert.is(paid.operation.internal, false)
  assert.match(paid.preimage, /^[0-9a-f]{64}$/)
  assert.is(paid.latest_balance, 50_000 - 10_060)
  assert.is(await balanceOf(daemon, app.appToken, 'traveller'), 50_000 - 10_060)
  assert.is(await appBalance(daemon, app.appToken), appBefore + 49)

  const state = await ok(daemon, '/api/user/payment/state', app.userToken, { invoice })
  assert.ok(state.paid_at_unix > 0)
  assert.is(state.internal, false)
  const again = await call(daemon, '/api/user/invoice/pay', app.userToken, { invoice, amount: 0 })
  assert.is(again.reason, 'this invoice was already paid')
})

routed.run()

const unrouted = suite('external payments without a route')
let offline: TestDaemon
let stranded: TestAppUser

unrouted.before(async () => {
  offline = await startDaemon({ config: jwtSecretConfig(jwtSecret) })
  stranded = await createAppWithUser(offline, { jwtSecret, identifier: 'stranded' })
  await ok(offline, '/api/app/mock/user/blance/set', stranded.appToken, { user_identifier: 'stranded', amount: 20_000 })
})
unrouted.after(async () => {
  await assertAuditClean(offline.dataDir)
  await offline?.stop()
})

unrouted('a failed payment answers the node reason, refunds everything, and may be retried (as LND allows)', async () => {
  const appBefore = await appBalance(offline, stranded.appToken)
  const invoice = foreignInvoice(5000)
  const failed = await call(offline, '/api/user/invoice/pay', stranded.userToken, { invoice, amount: 0 })
  assert.is(failed.status, 'ERROR')
  assert.is(failed.reason, 'the embedded node is not connected to the Lightning network')
  assert.is(await balanceOf(offline, stranded.appToken, 'stranded'), 20_000)
  assert.is(await appBalance(offline, stranded.appToken), appBefore)

  const state = await ok(offline, '/api/user/payment/state', stranded.userToken, { invoice })
  assert.is(state.paid_at_unix, -1)
  // The retry reaches the node again (a failed attempt blocks nothing), fails again, refunds again.
  const retry = await call(offline, '/api/user/invoice/pay', stranded.userToken, { invoice, amount: 0 })
  assert.is(retry.reason, 'the embedded node is not connected to the Lightning network')
  assert.is(await balanceOf(offline, stranded.appToken, 'stranded'), 20_000)
})

unrouted.run()
