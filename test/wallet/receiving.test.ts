// Receiving over HTTP: invoices of users, apps, app users and products are credited to the right wallet exactly
// once when the node settles them, and bad requests issue nothing.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import bolt11 from 'bolt11'
import { startDaemon, type TestDaemon } from '../support/daemon.js'
import { addAppUser, createAppWithUser, jwtSecretConfig, type TestAppUser } from '../support/accounts.js'
import { bolt11Networks } from '../support/outside-invoice.js'
import { appBalance, assertAuditClean, balanceOf, call, newInvoice, ok, payFromOutside } from '../support/money.js'

const jwtSecret = 'wallet-receiving-test-secret-0123456789'
const test = suite('receiving')
let daemon: TestDaemon
let alice: TestAppUser

test.before(async () => {
  daemon = await startDaemon({ config: jwtSecretConfig(jwtSecret) })
  alice = await createAppWithUser(daemon, { jwtSecret, identifier: 'alice' })
})
test.after(async () => {
  await daemon?.stop()
})
test.after.each(async () => {
  await assertAuditClean(daemon.dataDir)
})

test('a paid invoice credits its user once; the node refuses to settle it twice', async () => {
  const before = await balanceOf(daemon, alice.appToken, 'alice')
  const invoice = await newInvoice(daemon, alice.userToken, 5000)
  await payFromOutside(daemon, invoice)
  assert.is(await balanceOf(daemon, alice.appToken, 'alice'), before + 5000)
  const again = await call(daemon, '/api/node/mock/invoice/paid', '', { invoice, amount: 0 })
  assert.is(again.status, 'ERROR')
  assert.is(await balanceOf(daemon, alice.appToken, 'alice'), before + 5000)
})

test('an invoice asked for longer than an hour expires after an hour (upstream caps it)', async () => {
  const invoice = await newInvoice(daemon, alice.userToken, 10, { expiry: 7200 })
  const decoded = bolt11.decode(invoice, bolt11Networks.regtest)
  assert.is(decoded.timeExpireDate! - decoded.timestamp!, 3600)
  const short = bolt11.decode(await newInvoice(daemon, alice.userToken, 10, { expiry: 60 }), bolt11Networks.regtest)
  assert.is(short.timeExpireDate! - short.timestamp!, 60)
})

test('AddAppInvoice credits the app and creates its payer', async () => {
  const before = await appBalance(daemon, alice.appToken)
  const { invoice } = await ok(daemon, '/api/app/add/invoice', alice.appToken, {
    payer_identifier: 'first-time-payer',
    http_callback_url: 'https://integrator.invalid/paid',
    invoice_req: { amountSats: 1234, memo: 'app sale' },
  })
  await payFromOutside(daemon, invoice)
  assert.is(await appBalance(daemon, alice.appToken), before + 1234)
  assert.is(await balanceOf(daemon, alice.appToken, 'first-time-payer'), 0)
})

test('AddAppUserInvoice credits the receiver, not the payer, and needs an existing receiver', async () => {
  const bob = await addAppUser(daemon, { appToken: alice.appToken, appId: alice.appId, jwtSecret, identifier: 'bob-receiver' })
  const { invoice } = await ok(daemon, '/api/app/user/add/invoice', alice.appToken, {
    receiver_identifier: bob.identifier,
    payer_identifier: 'carol-payer',
    http_callback_url: '',
    invoice_req: { amountSats: 777, memo: 'for bob' },
    payer_data: { data: { name: 'carol' } },
    token: 'callback-bearer',
    rejectUnauthorized: false,
  })
  await payFromOutside(daemon, invoice)
  assert.is(await balanceOf(daemon, alice.appToken, bob.identifier), 777)
  assert.is(await balanceOf(daemon, alice.appToken, 'carol-payer'), 0)

  const missing = await call(daemon, '/api/app/user/add/invoice', alice.appToken, {
    receiver_identifier: 'nobody-here',
    payer_identifier: 'carol-payer',
    http_callback_url: '',
    invoice_req: { amountSats: 1, memo: '' },
  })
  assert.is(missing.status, 'ERROR')
  assert.is(missing.reason, 'user not found')
})

test('a product invoice credits the product owner at the product price', async () => {
  const seller = await createAppWithUser(daemon, { jwtSecret, identifier: 'seller' })
  const product = await ok(daemon, '/api/user/product/add', seller.userToken, { name: 'tea', price_sats: 700 })
  assert.match(product.noffer, /^noffer1/)
  const bought = await daemon.request('GET', `/api/user/product/get/invoice?id=${product.id}`, {
    headers: { authorization: alice.userToken },
  })
  assert.is(bought.json.status, 'OK', bought.text)
  assert.is(bolt11.decode(bought.json.invoice, bolt11Networks.regtest).satoshis, 700)
  const buyerBefore = await balanceOf(daemon, alice.appToken, 'alice')
  await payFromOutside(daemon, bought.json.invoice)
  assert.is(await balanceOf(daemon, seller.appToken, 'seller'), 700)
  assert.is(await balanceOf(daemon, alice.appToken, 'alice'), buyerBefore)
})

for (const c of [
  { because: 'a zero amount', body: { amountSats: 0, memo: '' }, reason: /amountSats must be greater than 0/ },
  { because: 'a negative amount', body: { amountSats: -5, memo: '' }, reason: /amountSats must be greater than 0/ },
  { because: 'a fractional amount', body: { amountSats: 1.5, memo: '' }, reason: /^invalid request body/ },
  { because: 'a negative expiry', body: { amountSats: 5, memo: '', expiry: -1 }, reason: /expiry/ },
]) {
  test(`NewInvoice refuses ${c.because}`, async () => {
    const reply = await call(daemon, '/api/user/invoice/new', alice.userToken, c.body)
    assert.is(reply.status, 'ERROR')
    assert.match(reply.reason, c.reason)
  })
}

test('a banned user gets no new invoices', async () => {
  const mallory = await createAppWithUser(daemon, { jwtSecret, identifier: 'mallory-receiver' })
  await ok(daemon, '/api/admin/user/ban', daemon.adminToken, { user_id: mallory.userId })
  const reply = await call(daemon, '/api/user/invoice/new', mallory.userToken, { amountSats: 5, memo: '' })
  assert.is(reply.status, 'ERROR')
  assert.is(reply.reason, 'user is locked')
})

test.run()
