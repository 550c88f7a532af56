// GetUserOperations as a wallet app pages through it: six lists, cursors passed back, upstream's key spellings.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { startDaemon, type TestDaemon } from '../support/daemon.js'
import { createAppWithUser, addAppUser, jwtSecretConfig, type TestAppUser } from '../support/accounts.js'
import { ok, newInvoice, payFromOutside } from '../support/money.js'

const jwtSecret = 'operations-history-secret-0123456789abcdef'
const s = suite('GetUserOperations')
let daemon: TestDaemon
let alice: TestAppUser
let bob: { userToken: string; userId: string; identifier: string }
const zero = { ts: 0, id: 0 }
const fromStart = (max_size: number) => ({
  latestIncomingInvoice: zero, latestOutgoingInvoice: zero, latestIncomingTx: zero, latestOutgoingTx: zero,
  latestIncomingUserToUserPayment: zero, latestOutgoingUserToUserPayment: zero, max_size,
})
const history = (token: string, body: unknown) => ok(daemon, '/api/user/operations', `Bearer ${token}`, body)

s.before(async () => {
  daemon = await startDaemon({ config: jwtSecretConfig(jwtSecret) })
  alice = await createAppWithUser(daemon, { jwtSecret, identifier: 'h-alice' })
  bob = await addAppUser(daemon, { appToken: alice.appToken, appId: alice.appId, jwtSecret, identifier: 'h-bob' })
  for (const sats of [3000, 2000]) await payFromOutside(daemon, await newInvoice(daemon, alice.userToken, sats))
  await ok(daemon, '/api/user/invoice/pay', `Bearer ${alice.userToken}`, { invoice: await newInvoice(daemon, bob.userToken, 1000), amount: 0 })
  await ok(daemon, '/api/app/user/internal/pay', alice.appToken, { from_user_identifier: 'h-alice', to_user_identifier: 'h-bob', amount: 500 })
})
s.after(async () => {
  await daemon.stop()
})

s('every list answers under its upstream key, with operation ids and amounts', async () => {
  const all = await history(alice.userToken, fromStart(0))
  assert.equal(
    Object.keys(all).filter(k => k !== 'status').sort(),
    ['latestIncomingInvoiceOperations', 'latestIncomingTxOperations', 'latestIncomingUserToUserPayemnts',
      'latestOutgoingInvoiceOperations', 'latestOutgoingTxOperations', 'latestOutgoingUserToUserPayemnts', 'user_id'],
  )
  assert.is(all.user_id, alice.userId, "upstream's next version names whose operations these are")
  const incoming = all.latestIncomingInvoiceOperations.operations
  assert.equal(incoming.map((op: { amount: number }) => op.amount), [3000, 2000])
  assert.ok(incoming.every((op: { type: string; inbound: boolean; operationId: string }) =>
    op.type === 'INCOMING_INVOICE' && op.inbound && /^INCOMING_INVOICE-\d+$/.test(op.operationId)))
  const outgoing = all.latestOutgoingInvoiceOperations.operations
  assert.equal(outgoing.map((op: { amount: number; service_fee: number }) => [op.amount, op.service_fee]), [[1000, 10]])
  assert.equal(all.latestOutgoingUserToUserPayemnts.operations.map((op: { amount: number }) => op.amount), [500])
  assert.equal(all.latestIncomingTxOperations, { fromIndex: zero, toIndex: zero, operations: [] })
  const bobs = await history(bob.userToken, fromStart(0))
  assert.equal(bobs.latestIncomingInvoiceOperations.operations.map((op: { amount: number }) => op.amount), [1000])
  assert.equal(bobs.latestIncomingUserToUserPayemnts.operations.map((op: { amount: number; identifier: string }) => [op.amount, op.identifier]), [[500, alice.userId]])
})

s('max_size pages and toIndex is the next cursor', async () => {
  const first = await history(alice.userToken, fromStart(1))
  assert.is(first.latestIncomingInvoiceOperations.operations.length, 1)
  assert.is(first.latestIncomingInvoiceOperations.operations[0].amount, 3000)
  const next = await history(alice.userToken, { ...fromStart(1), latestIncomingInvoice: first.latestIncomingInvoiceOperations.toIndex })
  assert.equal(next.latestIncomingInvoiceOperations.operations.map((op: { amount: number }) => op.amount), [2000])
  const after = await history(alice.userToken, { ...fromStart(1), latestIncomingInvoice: next.latestIncomingInvoiceOperations.toIndex })
  assert.equal(after.latestIncomingInvoiceOperations, { fromIndex: zero, toIndex: zero, operations: [] })
})

s('a missing cursor is refused, as upstream (all six are required)', async () => {
  const reply = await daemon.request('POST', '/api/user/operations', {
    body: { max_size: 0 },
    headers: { authorization: `Bearer ${alice.userToken}` },
  })
  assert.is(reply.json.status, 'ERROR')
  assert.match(reply.json.reason, /^invalid request body: latestIncomingInvoice/)
})

s.run()
