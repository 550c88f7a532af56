// Paying over HTTP between wallets of one daemon: the fee rule, the answer upstream clients read, GetPaymentState,
// and every refusal leaves every balance as it was.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { startDaemon, type TestDaemon } from '../support/daemon.js'
import { addAppUser, createAppWithUser, jwtSecretConfig, type TestAppUser } from '../support/accounts.js'
import { outsideInvoice } from '../support/outside-invoice.js'
import { appBalance, assertAuditClean, balanceOf, call, newInvoice, ok, payFromOutside } from '../support/money.js'

const jwtSecret = 'wallet-paying-test-secret-0123456789ab'
const test = suite('paying between wallets')
let daemon: TestDaemon
let payer: TestAppUser
let payee: { userToken: string; userId: string; identifier: string }

test.before(async () => {
  daemon = await startDaemon({ config: jwtSecretConfig(jwtSecret) })
  payer = await createAppWithUser(daemon, { jwtSecret, identifier: 'payer' })
  payee = await addAppUser(daemon, { appToken: payer.appToken, appId: payer.appId, jwtSecret, identifier: 'payee' })
  await payFromOutside(daemon, await newInvoice(daemon, payer.userToken, 100_000))
})
test.after(async () => {
  await daemon?.stop()
})
test.after.each(async () => {
  await assertAuditClean(daemon.dataDir)
})

const balances = async () => ({
  payer: await balanceOf(daemon, payer.appToken, 'payer'),
  payee: await balanceOf(daemon, payer.appToken, 'payee'),
  app: await appBalance(daemon, payer.appToken),
})

test('a 1000-sat payment costs the payer 1010, gives the payee 1000 and the app 10 (upstream example)', async () => {
  const before = await balances()
  const invoice = await newInvoice(daemon, payee.userToken, 1000)
  const paid = await ok(daemon, '/api/user/invoice/pay', payer.userToken, { invoice, amount: 0 })
  assert.is(paid.amount_paid, 1000)
  assert.is(paid.service_fee, 10)
  assert.is(paid.network_fee, 0)
  assert.is(paid.preimage, '')
  assert.is(paid.latest_balance, before.payer - 1010)
  assert.match(paid.operation_id, /^OUTGOING_INVOICE-\d+$/)
  assert.is(paid.operation.operationId, paid.operation_id)
  assert.is(paid.operation.type, 'OUTGOING_INVOICE')
  assert.is(paid.operation.internal, true)
  assert.equal(await balances(), { payer: before.payer - 1010, payee: before.payee + 1000, app: before.app + 10 })

  const state = await ok(daemon, '/api/user/payment/state', payer.userToken, { invoice })
  assert.ok(state.paid_at_unix > 0)
  assert.is(state.amount, 1000)
  assert.is(state.service_fee, 10)
  assert.is(state.internal, true)
  assert.is(state.operation_id, paid.operation_id)
})

test('the service fee is 0.6% rounded up above the 10-sat floor', async () => {
  const before = await balances()
  const paid = await ok(daemon, '/api/user/invoice/pay', payer.userToken, { invoice: await newInvoice(daemon, payee.userToken, 2001), amount: 0 })
  assert.is(paid.service_fee, 13) // ceil(2001 × 60 / 10000) = ceil(12.006)
  assert.equal(await balances(), { payer: before.payer - 2014, payee: before.payee + 2001, app: before.app + 13 })
})

test('the app pays an app user invoice from its user with PayAppUserInvoice', async () => {
  const before = await balances()
  const invoice = await newInvoice(daemon, payee.userToken, 500)
  const paid = await ok(daemon, '/api/app/invoice/pay', payer.appToken, { user_identifier: 'payer', invoice, amount: 0 })
  assert.is(paid.latest_balance, before.payer - 510)
  assert.equal(await balances(), { payer: before.payer - 510, payee: before.payee + 500, app: before.app + 10 })
})

test('matching expected_fees are accepted', async () => {
  const invoice = await newInvoice(daemon, payee.userToken, 100)
  await ok(daemon, '/api/user/invoice/pay', payer.userToken, {
    invoice, amount: 0, expected_fees: { serviceFeeFloor: 10, serviceFeeBps: 60 },
  })
})

// Every refusal below must leave all three balances untouched.
const refusals: { because: string; request: () => Promise<object>; reason: RegExp | string }[] = [
  {
    because: 'an amount for an invoice that has one (upstream text)',
    request: async () => ({ invoice: await newInvoice(daemon, payee.userToken, 100), amount: 100 }),
    reason: 'invoice has value, do not provide amount the the request',
  },
  {
    because: 'a negative amount',
    request: async () => ({ invoice: await newInvoice(daemon, payee.userToken, 100), amount: -1 }),
    reason: 'amount must not be negative',
  },
  {
    because: 'a fractional amount',
    request: async () => ({ invoice: await newInvoice(daemon, payee.userToken, 100), amount: 0.5 }),
    reason: /^invalid request body/,
  },
  {
    because: 'expected fees that differ from the service fees',
    request: async () => ({
      invoice: await newInvoice(daemon, payee.userToken, 100), amount: 0, expected_fees: { serviceFeeFloor: 10, serviceFeeBps: 50 },
    }),
    reason: 'fees do not match the expected fees',
  },
  {
    because: 'an invoice without an amount',
    request: async () => ({ invoice: outsideInvoice({ network: 'regtest', nowMs: Date.now() }).paymentRequest, amount: 0 }),
    reason: 'invoice has no amount',
  },
  {
    because: 'an expired invoice',
    request: async () => ({
      invoice: outsideInvoice({ network: 'regtest', nowMs: Date.now() - 2 * 3600_000, amountMsat: 10_000, expirySeconds: 3600 }).paymentRequest,
      amount: 0,
    }),
    reason: 'this invoice has expired',
  },
  {
    because: 'more than the balance',
    request: async () => ({ invoice: await newInvoice(daemon, payee.userToken, 10_000_000), amount: 0 }),
    reason: /^not enough balance to decrement: the wallet holds [\d,]+ sats?, this needs 10,0[\d,]+ sats$/,
  },
  {
    because: 'an invoice that is not an invoice',
    request: async () => ({ invoice: 'lnbcrt1notaninvoice', amount: 0 }),
    reason: /./,
  },
]
for (const c of refusals) {
  test(`PayInvoice refuses ${c.because} and moves no money`, async () => {
    const before = await balances()
    const reply = await call(daemon, '/api/user/invoice/pay', payer.userToken, await c.request())
    assert.is(reply.status, 'ERROR')
    if (typeof c.reason === 'string') assert.is(reply.reason, c.reason)
    else assert.match(reply.reason, c.reason)
    assert.equal(await balances(), before)
  })
}

test('an invoice paid once is refused the second time, from any wallet', async () => {
  const invoice = await newInvoice(daemon, payee.userToken, 100)
  await ok(daemon, '/api/user/invoice/pay', payer.userToken, { invoice, amount: 0 })
  const before = await balances()
  const again = await call(daemon, '/api/user/invoice/pay', payer.userToken, { invoice, amount: 0 })
  assert.is(again.reason, 'this invoice was already paid')
  const byOther = await call(daemon, '/api/user/invoice/pay', payee.userToken, { invoice, amount: 0 })
  assert.is(byOther.reason, 'this invoice was already paid')
  assert.equal(await balances(), before)
})

test('an invoice paid over Lightning cannot be paid again internally', async () => {
  const invoice = await newInvoice(daemon, payee.userToken, 100)
  await payFromOutside(daemon, invoice)
  const before = await balances()
  const reply = await call(daemon, '/api/user/invoice/pay', payer.userToken, { invoice, amount: 0 })
  assert.is(reply.reason, 'this invoice was already paid')
  assert.equal(await balances(), before)
})

test('GetPaymentState refuses an invoice the caller never paid', async () => {
  const invoice = await newInvoice(daemon, payee.userToken, 100)
  await ok(daemon, '/api/user/invoice/pay', payer.userToken, { invoice, amount: 0 })
  const reply = await call(daemon, '/api/user/payment/state', payee.userToken, { invoice })
  assert.is(reply.status, 'ERROR')
})

test('a banned user cannot pay', async () => {
  const banned = await createAppWithUser(daemon, { jwtSecret, identifier: 'banned-payer' })
  await payFromOutside(daemon, await newInvoice(daemon, banned.userToken, 3000))
  const ban = await ok(daemon, '/api/admin/user/ban', daemon.adminToken, { user_id: banned.userId })
  assert.is(ban.balance_sats, 3000)
  const before = await balances()
  const reply = await call(daemon, '/api/user/invoice/pay', banned.userToken, { invoice: await newInvoice(daemon, payee.userToken, 10), amount: 0 })
  assert.is(reply.status, 'ERROR')
  assert.is(reply.reason, 'user is locked')
  assert.equal(await balances(), before)
})

test.run()
