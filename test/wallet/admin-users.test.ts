// The admin's views of users from Lightning.Pub's next version (its dashboard branch), over HTTP as its clients call
// them: GetUsersAdminInfo (a page of users with balance, ban state, app identity and owned app; `take` 1..50) and
// GetUserOperationsFromAdmin (any user's operations by internal user id, a banned one's too, 1..50 per list); and the
// `user_id` the next version adds to GetUserOperations, which a user cannot use to read someone else's.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { startDaemon, type TestDaemon } from '../support/daemon.js'
import { createAppWithUser, addAppUser, jwtSecretConfig, type TestAppUser } from '../support/accounts.js'
import { call, newInvoice, ok } from '../support/money.js'

const jwtSecret = 'admin-users-secret-0123456789abcdefghijkl'
const test = suite('admin views of users')
let daemon: TestDaemon
let alice: TestAppUser
let bob: { userToken: string; userId: string; identifier: string }
let admin: string
const zero = { ts: 0, id: 0 }
const cursors = {
  latestIncomingInvoice: zero, latestOutgoingInvoice: zero, latestIncomingTx: zero, latestOutgoingTx: zero,
  latestIncomingUserToUserPayment: zero, latestOutgoingUserToUserPayment: zero,
}

test.before(async () => {
  daemon = await startDaemon({ config: jwtSecretConfig(jwtSecret) })
  admin = `Bearer ${daemon.adminToken}`
  alice = await createAppWithUser(daemon, { jwtSecret, identifier: 'alice' })
  bob = await addAppUser(daemon, { appToken: alice.appToken, appId: alice.appId, jwtSecret, identifier: 'bob' })
  await ok(daemon, '/api/app/mock/user/blance/set', alice.appToken, { user_identifier: 'alice', amount: 10_000 })
  for (const sats of [100, 200, 300]) {
    const invoice = await newInvoice(daemon, bob.userToken, sats)
    await ok(daemon, '/api/user/invoice/pay', alice.userToken, { invoice, amount: 0 })
  }
})
test.after(async () => {
  await daemon.stop()
})

test('GetUsersAdminInfo: every user counted, a page of them with balance, app identity and the app owned', async () => {
  const all = await ok(daemon, '/api/admin/users/info', admin, { take: 50 })
  assert.ok(all.total >= 3, `total ${all.total}`)
  assert.is(all.users.length, Math.min(all.total, 50))
  const a = all.users.find((u: { user_id: string }) => u.user_id === alice.userId)
  assert.equal(a.app_users, [{ app_user_id: 'alice', npub: '', has_callback_url: false, has_topic_id: true }])
  assert.is(a.locked, false)
  assert.ok(a.balance > 0 && a.balance < 10_000 - 600, `alice paid 600 sats and fees: ${a.balance}`)
  assert.not.ok('owner_of_app_id' in a)
  const owner = all.users.find((u: { owner_of_app_id?: string }) => u.owner_of_app_id === alice.appId)
  assert.ok(owner, "the app's owner wallet names the app it owns")
  // take is clamped to 1..50; skip pages on.
  const one = await ok(daemon, '/api/admin/users/info', admin, { take: 0 })
  assert.is(one.users.length, 1)
  const next = await ok(daemon, '/api/admin/users/info', admin, { skip: 1, take: 1 })
  assert.is.not(next.users[0].user_id, one.users[0].user_id)
  // Only the admin.
  const refused = await call(daemon, '/api/admin/users/info', alice.userToken, {})
  assert.is(refused.status, 'ERROR')
})

test("GetUserOperationsFromAdmin: any user's operations by user id, 1..50 per list; a banned user's too", async () => {
  const missing = await call(daemon, '/api/admin/user/operations', admin, { ...cursors, max_size: 10 })
  assert.equal(missing, { status: 'ERROR', reason: 'user_id is required' })
  const unknown = await call(daemon, '/api/admin/user/operations', admin, { ...cursors, max_size: 10, user_id: 'f'.repeat(64) })
  assert.equal(unknown, { status: 'ERROR', reason: 'user not found' })
  const ops = await ok(daemon, '/api/admin/user/operations', admin, { ...cursors, max_size: 10, user_id: alice.userId })
  assert.is(ops.user_id, alice.userId)
  assert.equal(ops.latestOutgoingInvoiceOperations.operations.map((o: { amount: number }) => o.amount), [100, 200, 300])
  const clamped = await ok(daemon, '/api/admin/user/operations', admin, { ...cursors, max_size: 0, user_id: alice.userId })
  assert.is(clamped.latestOutgoingInvoiceOperations.operations.length, 1)
  await ok(daemon, '/api/admin/user/ban', admin, { user_id: bob.userId })
  const banned = await ok(daemon, '/api/admin/user/operations', admin, { ...cursors, max_size: 50, user_id: bob.userId })
  assert.is(banned.latestIncomingInvoiceOperations.operations.length, 3)
})

test("GetUserOperations: the answer names the caller; a user_id in the request is ignored, not someone else's history", async () => {
  const own = await ok(daemon, '/api/user/operations', alice.userToken, { ...cursors, max_size: 10, user_id: bob.userId })
  assert.is(own.user_id, alice.userId)
  assert.is(own.latestOutgoingInvoiceOperations.operations.length, 3)
  assert.is(own.latestIncomingInvoiceOperations.operations.length, 0, "bob's incoming invoices are not alice's")
})

test.run()
