// When the books do not add up at start, the daemon says so and no money leaves a wallet; receiving goes on. The
// damage here is a balance edited behind the ledger's back, as a bad manual repair would leave it. The restart
// also turns test mode off, so the mock operations answer upstream's error.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { withBooks } from '../support/books.js'
import { startDaemon, type TestDaemon } from '../support/daemon.js'
import { addAppUser, createAppWithUser, jwtSecretConfig } from '../support/accounts.js'
import { audit, call, newInvoice, ok } from '../support/money.js'

const jwtSecret = 'wallet-audit-lock-test-secret-012345678'
const test = suite('a failed start-up audit locks outgoing payments')
let daemon: TestDaemon | undefined

test.after(async () => {
  await daemon?.stop()
})

test('a balance that disagrees with the journal locks payments and transfers, not receiving', async () => {
  daemon = await startDaemon({ config: jwtSecretConfig(jwtSecret) })
  const dataDir = daemon.dataDir
  const app = await createAppWithUser(daemon, { jwtSecret, identifier: 'victim' })
  const shop = await addAppUser(daemon, { appToken: app.appToken, appId: app.appId, jwtSecret, identifier: 'shop' })
  await ok(daemon, '/api/app/mock/user/blance/set', app.appToken, { user_identifier: 'victim', amount: 10_000 })
  await ok(daemon, '/api/user/invoice/pay', app.userToken, { invoice: await newInvoice(daemon, shop.userToken, 100), amount: 0 })
  assert.is(await daemon.stop(), 0)

  await withBooks(dataDir, async books => {
    const edited = await books.run('UPDATE users SET balance_msat = balance_msat + 5000000 WHERE id = ?', [app.userId])
    assert.is(edited.changes, 1, `the balance in ${books.where}`)
  })
  const report = await audit(dataDir)
  assert.is(report.ok, false)
  assert.is(report.balanceMismatches.length, 1)

  daemon = await startDaemon({ config: `${jwtSecretConfig(jwtSecret)}\n[node]\nmock = false\n`, dataDir })
  assert.match(daemon.logs(), /ledger audit FAILED/)
  const pay = await call(daemon, '/api/user/invoice/pay', app.userToken, { invoice: await newInvoice(daemon, shop.userToken, 100), amount: 0 })
  assert.is(pay.status, 'ERROR')
  assert.match(pay.reason, /^outgoing payments are locked: the ledger audit at start failed/)
  const transfer = await call(daemon, '/api/app/user/internal/pay', app.appToken, { from_user_identifier: 'victim', to_user_identifier: 'shop', amount: 1 })
  assert.match(transfer.reason, /^outgoing payments are locked/)
  const stillReceives = await call(daemon, '/api/user/invoice/new', app.userToken, { amountSats: 10, memo: '' })
  assert.is(stillReceives.status, 'OK')

  const mocked = await call(daemon, '/api/app/mock/user/blance/set', app.appToken, { user_identifier: 'never-created', amount: 5 })
  assert.is(mocked.reason, 'mock disabled, cannot set invoice as paid: test mode is off; turn it on with [node] mock = true (env RELAYPAY_NODE_MOCK=true), for tests and demos only')
  // Refused before it runs: not even the user it names is created.
  assert.is((await call(daemon, '/api/app/user/get', app.appToken, { user_identifier: 'never-created' })).reason, 'user not found')
  const appMock = await call(daemon, '/api/app/mock/blance/set', app.appToken, { amount: 5 })
  assert.is(appMock.reason, 'mock disabled, cannot set invoice as paid: test mode is off; turn it on with [node] mock = true (env RELAYPAY_NODE_MOCK=true), for tests and demos only')
})

test.run()
