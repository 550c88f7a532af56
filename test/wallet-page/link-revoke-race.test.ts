// A wallet link revoked while a pay_invoice on a connection it made is under way, against the real daemon on the
// fake LND: the NIP-47 request is let in (the connection is live), the fake LND holds the daemon's DecodePayReq of the
// invoice (the payment is past every check but the debit), the app revokes the link and is answered, and only then
// is the invoice decoded. The payment must not go through: the request is answered UNAUTHORIZED, nothing is debited
// and nothing reaches LND.
import { createHash, randomBytes } from 'node:crypto'
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { startDaemon, type TestDaemon } from '../support/daemon.js'
import { startFakeLnd, type FakeLnd } from '../support/fake-lnd/fake-lnd.js'
import { outsideInvoice } from '../support/outside-invoice.js'
import { createAppWithUser, jwtSecretConfig, type TestAppUser } from '../support/accounts.js'
import { NwcTestClient } from '../support/nwc-client.js'
import { assertAuditClean, balanceOf, call, ok } from '../support/money.js'
import { embeddedRelayUrl, fakeLndConfig, fundOverFakeLnd } from '../support/lnd-daemon.js'

const jwtSecret = 'link-revoke-race-secret-0123456789abcd'
const test = suite('a wallet link revoked while a payment of its connection is under way')
let fake: FakeLnd
let daemon: TestDaemon
let user: TestAppUser
/** The NIP-47 client on the connection the link made. */
let client: NwcTestClient | undefined

const balance = () => balanceOf(daemon, user.appToken, user.identifier)

test.before(async () => {
  fake = await startFakeLnd({ network: 'regtest' })
  daemon = await startDaemon({ config: jwtSecretConfig(jwtSecret) + fakeLndConfig(fake) })
  user = await createAppWithUser(daemon, { jwtSecret, identifier: 'racing-customer' })
  await fundOverFakeLnd(daemon, fake, user, 5000)
})
test.after(async () => {
  fake.node.faults.beforeAnswer = undefined
  client?.close()
  await daemon?.stop()
  await fake?.close()
})

test('the revocation acknowledged while the payment waited before its debit: refused, nothing paid', async () => {
  const link = await call(daemon, '/api/app/user/wallet-link', user.appToken, { user_identifier: user.identifier })
  assert.is(link.status, 'OK', JSON.stringify(link))
  daemon.secrets.add('the wallet link', link.secret)
  const created = await ok(daemon, '/api/user/nwc/create', `Bearer ${link.secret}`, { name: 'racing app' })
  client = await NwcTestClient.connect(created.connection_uri, embeddedRelayUrl(daemon))

  const preimage = randomBytes(32)
  const paymentHash = createHash('sha256').update(preimage).digest('hex')
  const invoice = outsideInvoice({ network: 'regtest', nowMs: Date.now(), amountMsat: 700_000, paymentHash }).paymentRequest
  let reached!: () => void
  const decoding = new Promise<void>(resolve => (reached = resolve))
  let release!: () => void
  const released = new Promise<void>(resolve => (release = resolve))
  fake.node.faults.beforeAnswer = method => {
    if (method !== 'DecodePayReq') return undefined
    reached()
    return released
  }
  const answer = client.request('pay_invoice', { invoice })
  await decoding
  assert.equal(await call(daemon, '/api/app/user/wallet-link/revoke', user.appToken, { user_identifier: user.identifier }), { status: 'OK', revoked: true })
  fake.node.faults.beforeAnswer = undefined
  release()

  const response = await answer
  assert.is(response.error?.code, 'UNAUTHORIZED', JSON.stringify(response))
  assert.is(await balance(), 5000, 'nothing debited')
  assert.is(fake.node.payments.get(paymentHash), undefined, 'nothing sent to LND')
  assert.is((await client.request('get_balance')).error?.code, 'UNAUTHORIZED')
  await assertAuditClean(daemon.dataDir)
})

test.run()
