// A user's own view (GetUserInfo, UserHealth, UpdateCallbackUrl), the paid-invoice callback an integrator's
// server receives, and the LNbits-compatible payments routes of the host API.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { decodeNoffer } from '../../src/nostr-codecs/index.js'
import { startDaemon, type TestDaemon } from '../support/daemon.js'
import { createAppWithUser, jwtSecretConfig, type TestAppUser } from '../support/accounts.js'
import { assertAuditClean, call, ok, newInvoice, payFromOutside } from '../support/money.js'

const jwtSecret = 'user-info-and-host-secret-0123456789abcdef'
const s = suite('user info, callbacks and the host payments API')
let daemon: TestDaemon
let alice: TestAppUser
let bob: TestAppUser
const received: { url: string; authorization?: string }[] = []
let integrator: http.Server
let integratorUrl = ''

s.before(async () => {
  integrator = http.createServer((req, res) => {
    received.push({ url: req.url!, authorization: req.headers.authorization })
    res.writeHead(200).end()
  })
  await new Promise<void>(resolve => integrator.listen(0, '127.0.0.1', resolve))
  integratorUrl = `http://127.0.0.1:${(integrator.address() as AddressInfo).port}`
  daemon = await startDaemon({ config: jwtSecretConfig(jwtSecret) + '[callbacks]\nallow_loopback = true\n' })
  alice = await createAppWithUser(daemon, { jwtSecret, identifier: 'alice' })
  bob = await createAppWithUser(daemon, { jwtSecret, identifier: 'bob' })
})
s.after(async () => {
  await daemon.stop()
  await new Promise<void>(resolve => integrator.close(() => resolve()))
})

const user = (u: TestAppUser) => `Bearer ${u.userToken}`
const waitFor = async (check: () => boolean, what: string) => {
  for (let i = 0; i < 100 && !check(); i++) await new Promise(resolve => setTimeout(resolve, 50))
  assert.ok(check(), what)
}

s('GetUserInfo answers balance, fee parameters and CLINK pointers that decode to the app key', async () => {
  const info = await ok(daemon, '/api/user/info', user(alice))
  assert.is(info.userId, alice.userId)
  assert.is(info.user_identifier, 'alice')
  assert.is(info.balance, 0)
  assert.is(info.service_fee_bps, 60)
  assert.is(info.network_max_fee_fixed, 10)
  const app = await ok(daemon, '/api/app/get', alice.appToken)
  const offer = decodeNoffer(info.noffer)
  assert.is(offer.pubkey, app.npub)
  assert.is(offer.offer, 'alice')
  assert.match(info.topic_id, /^[0-9a-f]{64}$/)
})

s('UserHealth reports no downtime on a ready node', async () => {
  assert.equal(await ok(daemon, '/api/user/health', user(alice)), { status: 'OK', downtime_reason: '' })
})

s('UpdateCallbackUrl refuses private networks and stores a valid URL template', async () => {
  const refused = await call(daemon, '/api/user/cb/update', user(alice), { url: 'http://169.254.169.254/latest' })
  assert.equal(refused, { status: 'ERROR', reason: 'callback URL points into a private network' })
  const saved = await ok(daemon, '/api/user/cb/update', user(alice), { url: `${integratorUrl}/alice{?amount}` })
  assert.is(saved.url, `${integratorUrl}/alice{?amount}`)
  assert.is((await ok(daemon, '/api/user/info', user(alice))).callback_url, `${integratorUrl}/alice{?amount}`)
})

s("a paid invoice calls the wallet's saved callback with the amount and ok=true", async () => {
  received.length = 0
  await payFromOutside(daemon, await newInvoice(daemon, alice.userToken, 1234))
  await waitFor(() => received.length === 1, 'the integrator got the callback')
  assert.is(received[0]!.url, '/alice?amount=1234&ok=true')
})

s('a changed callback URL is used from the next paid invoice on (the wallet rows the daemon keeps are re-read)', async () => {
  await ok(daemon, '/api/user/cb/update', user(alice), { url: `${integratorUrl}/alice-moved{?amount}` })
  received.length = 0
  await payFromOutside(daemon, await newInvoice(daemon, alice.userToken, 55))
  await waitFor(() => received.length === 1, 'the integrator got the callback')
  assert.is(received[0]!.url, '/alice-moved?amount=55&ok=true')
  await ok(daemon, '/api/user/cb/update', user(alice), { url: `${integratorUrl}/alice{?amount}` })
})

s('an AddAppUserInvoice callback URL and bearer token win over the saved one', async () => {
  received.length = 0
  const made = await ok(daemon, '/api/app/user/add/invoice', alice.appToken, {
    receiver_identifier: 'alice',
    payer_identifier: 'someone',
    http_callback_url: `${integratorUrl}/order/{invoice}`,
    invoice_req: { amountSats: 77, memo: 'order' },
    token: 'integrator-secret',
  })
  await payFromOutside(daemon, made.invoice)
  await waitFor(() => received.length === 1, 'the integrator got the callback')
  assert.is(received[0]!.url, `/order/${made.invoice}?ok=true`)
  assert.is(received[0]!.authorization, 'Bearer integrator-secret')
})

s('AddAppInvoice and AddAppUserInvoice refuse a callback URL the guard refuses when it is given', async () => {
  for (const [url, reason] of [
    ['http://169.254.169.254/latest/meta-data', 'callback URL points into a private network'],
    ['http://10.0.0.7/paid{?amount}', 'callback URL points into a private network'],
    ['http://[fd00::1]/paid', 'callback URL points into a private network'],
    ['file:///etc/passwd', 'callback URL must use http or https'],
    ['http://user:pw@shop.example/paid', 'callback URL must not carry credentials'],
    [`https://shop.example/${'a'.repeat(2048)}`, 'http_callback_url: at most 2048 characters'],
  ] as const) {
    const toUser = await call(daemon, '/api/app/user/add/invoice', alice.appToken, {
      receiver_identifier: 'alice',
      payer_identifier: '',
      http_callback_url: url,
      invoice_req: { amountSats: 10, memo: 'refused' },
    })
    assert.equal(toUser, { status: 'ERROR', reason }, url)
    const toApp = await call(daemon, '/api/app/add/invoice', alice.appToken, {
      payer_identifier: '',
      http_callback_url: url,
      invoice_req: { amountSats: 10, memo: 'refused' },
    })
    assert.equal(toApp, { status: 'ERROR', reason }, url)
  }
})

s('AddAppInvoice accepts a callback URL the guard allows and calls it when the invoice is paid', async () => {
  received.length = 0
  const made = await ok(daemon, '/api/app/add/invoice', alice.appToken, {
    payer_identifier: '',
    http_callback_url: `${integratorUrl}/app-order{?amount}`,
    invoice_req: { amountSats: 88, memo: 'app order' },
  })
  await payFromOutside(daemon, made.invoice)
  await waitFor(() => received.length === 1, 'the integrator got the callback')
  assert.is(received[0]!.url, '/app-order?amount=88&ok=true')
})

s('host API: an invoice key creates invoices; paying needs the admin key; GET shows the outcome', async () => {
  const aliceKeys = await ok(daemon, '/api/user/wallet/keys', user(alice))
  const bobKeys = await ok(daemon, '/api/user/wallet/keys', user(bob))
  const created = await daemon.request('POST', '/api/v1/payments', {
    body: { out: false, amount: 500, memo: 'host invoice', extra: { tag: 'test' } },
    headers: { 'x-api-key': bobKeys.invoice_key },
  })
  assert.is(created.status, 201, created.text)
  assert.match(created.json.payment_hash, /^[0-9a-f]{64}$/)
  const unpaid = await daemon.request('GET', `/api/v1/payments/${created.json.payment_hash}`, { headers: { 'x-api-key': bobKeys.invoice_key } })
  assert.equal([unpaid.json.paid, unpaid.json.status, unpaid.json.details.amount, unpaid.json.details.tag], [false, 'pending', 500_000, 'test'])

  // Alice is funded from outside, then pays Bob's invoice through the host API.
  await payFromOutside(daemon, await newInvoice(daemon, alice.userToken, 2000))
  const withInvoiceKey = await daemon.request('POST', '/api/v1/payments', {
    body: { out: true, bolt11: created.json.payment_request },
    headers: { 'x-api-key': aliceKeys.invoice_key },
  })
  assert.equal([withInvoiceKey.status, withInvoiceKey.json], [403, { detail: 'Invoice (or Admin) key required.' }])
  const paid = await daemon.request('POST', '/api/v1/payments', {
    body: { out: true, bolt11: created.json.payment_request },
    headers: { 'x-api-key': aliceKeys.admin_key },
  })
  assert.is(paid.status, 201, paid.text)
  assert.is(paid.json.status, 'success')
  const asBob = await daemon.request('GET', `/api/v1/payments/${created.json.payment_hash}`, { headers: { 'x-api-key': bobKeys.invoice_key } })
  assert.is(asBob.json.paid, true)
  const asAlice = await daemon.request('GET', `/api/v1/payments/${created.json.payment_hash}`, { headers: { 'x-api-key': aliceKeys.invoice_key } })
  assert.equal([asAlice.json.paid, asAlice.json.details.amount, asAlice.json.details.fee], [true, -500_000, -10_000])
  const wallet = await daemon.request('GET', '/api/v1/wallet', { headers: { 'x-api-key': bobKeys.invoice_key } })
  assert.is(wallet.json.balance, 500_000)
  const unknown = await daemon.request('GET', `/api/v1/payments/${'0'.repeat(64)}`, { headers: { 'x-api-key': bobKeys.invoice_key } })
  assert.equal([unknown.status, unknown.json], [404, { detail: 'Payment does not exist.' }])
  await assertAuditClean(daemon.dataDir)
})

s('host API: whole sats only, and fiat units need a rate provider', async () => {
  const keys = await ok(daemon, '/api/user/wallet/keys', user(bob))
  const fractional = await daemon.request('POST', '/api/v1/payments', { body: { out: false, amount: '1.5' }, headers: { 'x-api-key': keys.invoice_key } })
  assert.is(fractional.status, 400)
  assert.match(fractional.json.detail, /whole number/)
  const fiat = await daemon.request('POST', '/api/v1/payments', { body: { out: false, amount: '2', unit: 'EUR' }, headers: { 'x-api-key': keys.invoice_key } })
  assert.is(fiat.status, 400)
  assert.match(fiat.json.detail, /EUR/)
})

s.run()
