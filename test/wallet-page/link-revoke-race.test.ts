// A wallet link revoked while a pay_invoice on a connection it made is under way, against the real daemon on the
// fake LND: the NIP-47 request is let in (the connection is live), the fake LND holds the daemon's DecodePayReq of the
// invoice (the payment is past every check but the debit), the app revokes the link and is answered, and only then
// is the invoice decoded. The payment must not go through: the request is answered UNAUTHORIZED, nothing is debited
// and nothing reaches LND.
import fs from 'node:fs'
import path from 'node:path'
import { createHash, randomBytes } from 'node:crypto'
import { decode } from 'light-bolt11-decoder'
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { startDaemon, type TestDaemon } from '../support/daemon.js'
import { startFakeLnd, type FakeLnd } from '../support/fake-lnd/fake-lnd.js'
import { outsideInvoice } from '../support/outside-invoice.js'
import { createAppWithUser, jwtSecretConfig, type TestAppUser } from '../support/accounts.js'
import { NwcTestClient } from '../support/nwc-client.js'
import { assertAuditClean, balanceOf, call, ok } from '../support/money.js'
import { until } from '../support/until.js'

const jwtSecret = 'link-revoke-race-secret-0123456789abcd'
const test = suite('a wallet link revoked while a payment of its connection is under way')
let fake: FakeLnd
let daemon: TestDaemon
let user: TestAppUser
const clients: NwcTestClient[] = []

const balance = () => balanceOf(daemon, user.appToken, user.identifier)
const relayUrl = (): string => JSON.parse(fs.readFileSync(path.join(daemon.dataDir, 'daemon.json'), 'utf8')).relays[0]

test.before(async () => {
  fake = await startFakeLnd({ network: 'regtest' })
  daemon = await startDaemon({
    config:
      jwtSecretConfig(jwtSecret) +
      `[node]\nbackend = "lnd"\nnetwork = "regtest"\nlnd_socket = "${fake.connection.socket}"\n` +
      `lnd_cert_path = "${fake.connection.certPath}"\nlnd_macaroon_path = "${fake.connection.macaroonPath}"\n`,
  })
  user = await createAppWithUser(daemon, { jwtSecret, identifier: 'racing-customer' })
  const { invoice } = await ok(daemon, '/api/user/invoice/new', user.userToken, { amountSats: 5000, memo: 'funding' })
  fake.settleInvoice((decode(invoice).sections.find(x => x.name === 'payment_hash') as { value: string }).value)
  await until(async () => (await balance()) === 5000, 'the funding to be credited')
})
test.after(async () => {
  fake.node.faults.beforeAnswer = undefined
  for (const client of clients) client.close()
  await daemon?.stop()
  await fake?.close()
})

test('the revocation acknowledged while the payment waited before its debit: refused, nothing paid', async () => {
  const link = await call(daemon, '/api/app/user/wallet-link', user.appToken, { user_identifier: user.identifier })
  assert.is(link.status, 'OK', JSON.stringify(link))
  daemon.secrets.add('the wallet link', link.secret)
  const created = await ok(daemon, '/api/user/nwc/create', `Bearer ${link.secret}`, { name: 'racing app' })
  const client = await NwcTestClient.connect(created.connection_uri, relayUrl())
  clients.push(client)

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
