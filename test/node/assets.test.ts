// The operator's assets and liabilities over HTTP, on the embedded node: the second version's pages and cursors
// (what a dashboard walks), each operation matched to the wallet that booked it, the first version bounded and
// answered from the same pages, banned wallets left out of the users' total, and bad paging refused. What the
// wallets did not book (untracked operations) needs a node others can pay: the regtest test shows it.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { startDaemon, type TestDaemon } from '../support/daemon.js'
import { addAppUser, createAppWithUser, jwtSecretConfig, type TestAppUser } from '../support/accounts.js'
import { call, newInvoice, ok, payFromOutside } from '../support/money.js'
import { outsideInvoice } from '../support/outside-invoice.js'

const jwtSecret = 'assets-liabilities-secret-0123456789abcd'
const test = suite('assets and liabilities')
let daemon: TestDaemon
let admin: string
let alice: TestAppUser
let bob: { userToken: string; userId: string; identifier: string }
let pubkey: string
const received = [1_000, 2_000, 3_000]
const v2 = (body: unknown) => ok(daemon, '/api/admin/assets/liabilities/v2', admin, body)

test.before(async () => {
  daemon = await startDaemon({ config: `${jwtSecretConfig(jwtSecret)}\n[node]\nsimulate_payments = true\n` })
  admin = `Bearer ${daemon.adminToken}`
  alice = await createAppWithUser(daemon, { jwtSecret, identifier: 'alice' })
  bob = await addAppUser(daemon, { appToken: alice.appToken, appId: alice.appId, jwtSecret, identifier: 'bob' })
  // Three of alice's invoices paid over "Lightning", then one of bob's left open (the newest).
  for (const sats of received) await payFromOutside(daemon, await newInvoice(daemon, alice.userToken, sats))
  await newInvoice(daemon, bob.userToken, 500)
  // alice pays an invoice of another node: the node's payment, booked to her.
  const foreign = outsideInvoice({ network: 'regtest', nowMs: Date.now(), amountMsat: 700_000 }).paymentRequest
  await ok(daemon, '/api/user/invoice/pay', alice.userToken, { invoice: foreign, amount: 0 })
  pubkey = (await v2({ lnd_providers: [], liquidity_providers: [] })).lnds[0].pubkey
  assert.match(pubkey, /^0[23][0-9a-f]{64}$/)
})
test.after(async () => {
  await daemon?.stop()
})

test('V2 pages the invoices newest window first; settled ones are tracked to their wallet; the cursor reaches the end', async () => {
  const info = await v2({ lnd_providers: [{ pubkey: '', limit_invoices: 2 }], liquidity_providers: [] })
  assert.is(info.lnds.length, 1)
  assert.is(info.liquidity_providers.length, 0)
  const lnd = info.lnds[0]
  // A filter for another pubkey is not this node's: the defaults apply (20 a page, all four invoices in one).
  assert.is(lnd.tracked.invoices.operations.length, 3)
  assert.is(lnd.tracked.invoices.has_more, false)

  const first = (await v2({ lnd_providers: [{ pubkey: lnd.pubkey, limit_invoices: 2 }], liquidity_providers: [] })).lnds[0].tracked.invoices
  // The newest two: alice's 3,000 and bob's open invoice, which is not an operation but fills the window.
  assert.equal(first.operations.map((op: any) => op.amount), [3_000])
  assert.is(first.has_more, true)
  assert.type(first.next_index_offset, 'number')
  assert.is(first.start_height, undefined, 'start_height belongs to the chain pages')
  const op = first.operations[0]
  assert.equal({ type: op.tracked.type, user_id: op.tracked.user_id, amount: op.tracked.amount }, { type: 'USER', user_id: alice.userId, amount: 3_000 })
  assert.ok(Math.abs(op.ts - Date.now() / 1000) < 600 && op.tracked.ts === op.ts, JSON.stringify(op))

  const second = (await v2({
    lnd_providers: [{ pubkey: lnd.pubkey, limit_invoices: 2, invoice_index_offset: first.next_index_offset }],
    liquidity_providers: [],
  })).lnds[0].tracked.invoices
  assert.equal(second.operations.map((op: any) => op.amount), [1_000, 2_000], 'oldest first within the window')
  for (const op of second.operations) assert.is(op.tracked.user_id, alice.userId)
  const third = (await v2({
    lnd_providers: [{ pubkey: lnd.pubkey, limit_invoices: 2, invoice_index_offset: second.next_index_offset }],
    liquidity_providers: [],
  })).lnds[0].tracked.invoices
  assert.equal(third, { operations: [], has_more: false })
})

test("V2: alice's payment to another node is tracked to her; the chain pages share one window and start height", async () => {
  const tracked = (await v2({ lnd_providers: [], liquidity_providers: [] })).lnds[0].tracked
  assert.is(tracked.payments.operations.length, 1)
  const payment = tracked.payments.operations[0]
  assert.is(payment.amount, 700)
  assert.equal({ type: payment.tracked.type, user_id: payment.tracked.user_id, amount: payment.tracked.amount }, { type: 'USER', user_id: alice.userId, amount: 700 })
  assert.is(tracked.payments.has_more, false)
  // The embedded node's wallet was funded once, long ago: one incoming output, nothing sent.
  assert.equal(tracked.incoming_tx.operations.map((op: any) => op.amount), [100_000_000])
  assert.equal(tracked.outgoing_tx.operations, [])
  assert.ok(tracked.incoming_tx.start_height > 800_000, 'the tip of the simulated chain (a block per ten minutes since 2009)')
  assert.is(tracked.incoming_tx.start_height, tracked.outgoing_tx.start_height)
  // A start height below the funding's block lists nothing.
  const before = (await v2({ lnd_providers: [{ pubkey, tx_start_height: 0 }], liquidity_providers: [] })).lnds[0].tracked
  assert.equal(before.incoming_tx, { operations: [], has_more: false, start_height: 0 })
})

test('users_balance is what the wallets not banned hold; V1 answers the same lists as plain arrays, bounded', async () => {
  const before = await v2({ lnd_providers: [], liquidity_providers: [] })
  await ok(daemon, '/api/app/mock/user/blance/set', alice.appToken, { user_identifier: 'bob', amount: 4_321 })
  const withBob = await v2({ lnd_providers: [], liquidity_providers: [] })
  assert.is(withBob.users_balance, before.users_balance + 4_321)
  await ok(daemon, '/api/admin/user/ban', admin, { user_id: bob.userId })
  assert.is((await v2({ lnd_providers: [], liquidity_providers: [] })).users_balance, before.users_balance, 'a banned wallet is left out')

  const v1 = await ok(daemon, '/api/admin/assets/liabilities', admin, { limit_invoices: 1 })
  assert.is(v1.users_balance, before.users_balance)
  const lnd = v1.lnds[0].tracked
  assert.ok(Array.isArray(lnd.payments) && Array.isArray(lnd.invoices) && Array.isArray(lnd.incoming_tx) && Array.isArray(lnd.outgoing_tx))
  // A window of one: the newest invoice, bob's open one, which is not an operation.
  assert.equal(lnd.invoices, [])
  assert.is(lnd.payments[0].tracked.user_id, alice.userId)
  const all = (await ok(daemon, '/api/admin/assets/liabilities', admin, {})).lnds[0].tracked
  assert.equal(all.invoices.map((op: any) => op.amount), [1_000, 2_000, 3_000])
})

test('bad paging is refused with the field named; the request arrays are required', async () => {
  for (const field of ['limit_invoices', 'invoice_index_offset', 'payment_index_offset', 'tx_index_offset', 'tx_start_height']) {
    const answer = await call(daemon, '/api/admin/assets/liabilities/v2', admin, { lnd_providers: [{ pubkey, [field]: -1 }], liquidity_providers: [] })
    assert.is(answer.status, 'ERROR', field)
    assert.match(answer.reason, new RegExp(`${field} must not be negative`))
  }
  const missing = await call(daemon, '/api/admin/assets/liabilities/v2', admin, { lnd_providers: [] })
  assert.is(missing.status, 'ERROR')
  // A user cannot read it.
  const asUser = await daemon.request('POST', '/api/admin/assets/liabilities/v2', { body: { lnd_providers: [], liquidity_providers: [] }, headers: { authorization: `Bearer ${alice.userToken}` } })
  assert.not.equal(asUser.json?.status, 'OK')
})

test.run()
