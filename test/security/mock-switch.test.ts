// Test mode mints money, so it is off unless asked for. A daemon started with no mock setting
// refuses SetMockInvoiceAsPaid and both mock balance operations with an error naming the switch, whatever their
// fields, and says it is off in NodeGetInfo; turned on, the start log warns in one line and NodeGetInfo says so.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { startDaemon, type TestDaemon } from '../support/daemon.js'
import { createAppWithUser, jwtSecretConfig } from '../support/accounts.js'
import { call, newInvoice, ok } from '../support/money.js'

const jwtSecret = 'mock-switch-test-secret-0123456789abcdef'
const switchNamed = /^mock disabled, cannot set invoice as paid: .*\[node\] mock = true \(env RELAYPAY_NODE_MOCK=true\)/
const loudLine = /MOCK MODE IS ON/

const test = suite('the mock switch')
const daemons: TestDaemon[] = []
test.after(async () => {
  for (const daemon of daemons) await daemon.stop()
})

const nodeInfo = (daemon: TestDaemon) =>
  ok(daemon, '/api/admin/node/getinfo', `Bearer ${daemon.adminToken}`, { nodeId: 0 })

test('the default daemon (no mock setting) refuses every mock operation, naming the switch', async () => {
  // mock: false keeps the harness from turning it on: this is the daemon as an operator gets it.
  const daemon = await startDaemon({ config: jwtSecretConfig(jwtSecret), mock: false })
  daemons.push(daemon)
  const app = await createAppWithUser(daemon, { jwtSecret, identifier: 'someone' })
  const invoice = await newInvoice(daemon, app.userToken, 1000)

  // A stranger, with no credentials at all, tries to credit the invoice.
  const paid = await call(daemon, '/api/node/mock/invoice/paid', '', { invoice, amount: 0 })
  assert.is(paid.status, 'ERROR')
  assert.match(paid.reason, switchNamed)
  const alias = await call(daemon, '/api/lnd/mock/invoice/paid', '', { invoice, amount: 0 })
  assert.match(alias.reason, switchNamed)
  const userBalance = await call(daemon, '/api/app/mock/user/blance/set', app.appToken, { user_identifier: 'someone', amount: 5000 })
  assert.match(userBalance.reason, switchNamed)
  const appBalance = await call(daemon, '/api/app/mock/blance/set', app.appToken, { amount: 5000 })
  assert.match(appBalance.reason, switchNamed)
  // Whatever the fields: the caller is told test mode is off, not what is wrong with them.
  for (const [path, token, body] of [
    ['/api/node/mock/invoice/paid', '', {}],
    ['/api/node/mock/invoice/paid', '', { invoice: 42, amount: 'lots' }],
    ['/api/app/mock/user/blance/set', app.appToken, { amount: -1 }],
    ['/api/app/mock/blance/set', app.appToken, {}],
  ] as const) {
    const refused = await call(daemon, path, token, body)
    assert.match(refused.reason, switchNamed, `${path} ${JSON.stringify(body)}: ${refused.reason}`)
  }

  assert.is((await ok(daemon, '/api/app/user/get', app.appToken, { user_identifier: 'someone' })).info.balance, 0)
  assert.is((await ok(daemon, '/api/app/get', app.appToken)).balance, 0)
  assert.is((await nodeInfo(daemon)).mock, false)
  assert.not.match(daemon.logs(), loudLine)
})

test('turned on: one loud warning at start, NodeGetInfo shows it, and the mock operations credit', async () => {
  const daemon = await startDaemon({ config: jwtSecretConfig(jwtSecret), mock: false, env: { RELAYPAY_NODE_MOCK: 'true' } })
  daemons.push(daemon)
  const warnings = daemon.logs().split('\n').filter(line => loudLine.test(line))
  assert.is(warnings.length, 1)
  assert.is(JSON.parse(warnings[0]!).level, 40) // pino's warn
  assert.is((await nodeInfo(daemon)).mock, true)

  const app = await createAppWithUser(daemon, { jwtSecret, identifier: 'someone' })
  await ok(daemon, '/api/node/mock/invoice/paid', '', { invoice: await newInvoice(daemon, app.userToken, 1000), amount: 0 })
  assert.is((await ok(daemon, '/api/app/user/get', app.appToken, { user_identifier: 'someone' })).info.balance, 1000)
})

test.run()
