// No secret in the logs. test/support/daemon.ts scans every test daemon's output when it stops (so the whole suite
// is covered) for the secrets that daemon holds or handed out; this file proves the scan finds what it should, and
// runs one daemon at trace level through the paths that handle secrets — tokens, wallet keys, NWC secrets, app
// keys, preimages, forged credentials and refused callbacks — so that its stop() would fail on any leak.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { SignJWT } from 'jose'
import { startDaemon, storeUrlOf, type TestDaemon } from '../support/daemon.js'
import { SecretLedger } from '../support/log-secrets.js'
import { addAppUser, createAppWithUser, jwtSecretConfig } from '../support/accounts.js'
import { appProfile, PubClient } from '../support/pub-client.js'
import { NwcTestClient } from '../support/nwc-client.js'
import { call, newInvoice, ok, payFromOutside } from '../support/money.js'

const scan = suite('the log scan')

scan('a known secret anywhere in the output is a leak, named by where it came from, never shown', () => {
  const ledger = new SecretLedger()
  const value = 'a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6'
  ledger.add('the admin token', value)
  ledger.add('too short to tell', 'abc')
  const leaks = ledger.leaksIn(`{"level":30,"msg":"hello"}\n{"level":30,"token":"${value}"}\n{"msg":"abc"}`)
  assert.is(leaks.length, 1)
  assert.match(leaks[0]!, /^the admin token appears in the log/)
  assert.not.ok(leaks[0]!.includes(value))
  assert.equal(ledger.leaksIn('{"msg":"nothing here"}'), [])
})

scan('secret shapes are leaks even when no test knew the value', () => {
  const ledger = new SecretLedger()
  const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJhcHBJZCI6ImFiY2RlZiJ9.c2lnbmF0dXJlLWJ5dGVzLWhlcmUtMTIzNDU2Nzg5MA'
  assert.match(ledger.leaksIn(`{"authorization":"Bearer ${jwt}"}`)[0]!, /^a JWT/)
  assert.match(ledger.leaksIn(`key nsec1${'q'.repeat(58)}`)[0]!, /^an nsec private key/)
  assert.match(ledger.leaksIn(`{"macaroon":"0201036c6e6402f801030a10${'ab'.repeat(20)}"}`)[0]!, /^an LND macaroon/)
})

scan('secrets are picked out of answers, headers and config', () => {
  const ledger = new SecretLedger()
  ledger.addFromJson({ status: 'OK', auth_token: 't'.repeat(40), app: { id: 'not-a-secret-0123456789' }, list: [{ invoice_key: 'k'.repeat(32) }], connection_uri: `nostr+walletconnect://${'p'.repeat(64)}?relay=ws%3A%2F%2F127.0.0.1&secret=${'5'.repeat(64)}` }, 'POST /x')
  ledger.addFromHeaders({ authorization: `Bearer ${'b'.repeat(30)}`, 'content-type': 'application/json-0123456789' }, 'POST /x')
  ledger.addFromConfig('[auth]\njwt_secret = "' + 'j'.repeat(40) + '"\nmetrics_token = "' + 'm'.repeat(20) + '"\n[http]\nhost = "127.0.0.1-not-a-secret"\n')
  for (const value of ['t'.repeat(40), 'k'.repeat(32), '5'.repeat(64), 'b'.repeat(30), 'j'.repeat(40), 'm'.repeat(20)]) {
    assert.is(ledger.leaksIn(value).length, 1, value.slice(0, 3))
  }
  for (const value of ['not-a-secret-0123456789', 'application/json-0123456789', '127.0.0.1-not-a-secret']) assert.equal(ledger.leaksIn(value), [], value)
})

const noisy = suite('a daemon at trace level through every path that handles secrets')
const jwtSecret = 'log-secrets-test-secret-0123456789abcdef'
let daemon: TestDaemon

noisy.before(async () => {
  daemon = await startDaemon({ config: jwtSecretConfig(jwtSecret) + 'metrics_token = "metrics-token-for-the-log-scan-0123"\n', env: { RELAYPAY_LOG_LEVEL: 'trace' } })
})

noisy('tokens, keys, NWC, payments, zaps of nothing, forged credentials and refused callbacks leave no secret in the log', async () => {
  const alice = await createAppWithUser(daemon, { jwtSecret, identifier: 'alice' })
  const bob = await addAppUser(daemon, { appToken: alice.appToken, appId: alice.appId, jwtSecret, identifier: 'bob' })
  await ok(daemon, '/api/app/mock/user/blance/set', alice.appToken, { user_identifier: 'alice', amount: 20_000 })
  await ok(daemon, '/api/user/wallet/keys', `Bearer ${alice.userToken}`)
  await ok(daemon, '/api/user/wallet/keys/rotate', `Bearer ${alice.userToken}`).catch(() => undefined)
  // Payments in and out: preimages in the node and the database.
  await payFromOutside(daemon, await newInvoice(daemon, alice.userToken, 500))
  await ok(daemon, '/api/user/invoice/pay', `Bearer ${alice.userToken}`, { invoice: await newInvoice(daemon, bob.userToken, 100), amount: 0 })
  // A callback carrying a bearer token, refused by the guard when it is called (loopback is not allowed here; a
  // name is resolved only then, while a loopback literal would be refused when given).
  const made = await ok(daemon, '/api/app/user/add/invoice', alice.appToken, {
    receiver_identifier: 'alice', payer_identifier: 'x', http_callback_url: 'http://localhost:1/cb', invoice_req: { amountSats: 3, memo: 'm' },
    token: 'integrator-bearer-token-0123456789abcdef',
  })
  await payFromOutside(daemon, made.invoice)
  // Forged and wrong credentials of every kind.
  const forged = await new SignJWT({ appId: alice.appId }).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode('wrong-secret-0123456789abcdef-0123456789'))
  await call(daemon, '/api/app/get', forged)
  await call(daemon, '/api/admin/app/add', `${daemon.adminToken}x`, { name: 'x' })
  await daemon.request('GET', '/api/v1/wallet', { headers: { 'x-api-key': 'f'.repeat(32) } })
  // NWC: a connection, a good request, one from a stranger, one that does not decrypt.
  const created = await ok(daemon, '/api/user/nwc/create', `Bearer ${alice.userToken}`, { name: 'scan' })
  const nwc = await NwcTestClient.connect(created.connection_uri)
  try {
    await nwc.call('get_balance')
    await nwc.send(nwc.buildRequest('get_balance', {}, 'nip44_v2', new Uint8Array(32).fill(7)), 3000).catch(() => undefined)
  } finally {
    nwc.close()
  }
  // The relay: a user call, an admin call from a stranger, a request that does not decrypt.
  const profile = appProfile(daemon.dataDir)
  const client = await PubClient.connect({ relays: profile.relays, appPubkey: profile.pubkey })
  try {
    await client.ok('GetUserInfo')
    await client.call('NodeGetInfo')
    await client.call('EnrollAdminToken', { admin_token: 'e'.repeat(64) })
  } finally {
    client.close()
  }
  // stop() does this too (and reads the books in PostgreSQL, where the suite's PostgreSQL run keeps them); here to
  // see what it finds.
  daemon.secrets.addFromDataDir(daemon.dataDir)
  const booksUrl = storeUrlOf(daemon.dataDir)
  if (booksUrl) await daemon.secrets.addFromPostgres(booksUrl)
  const sources = daemon.secrets.sources().join('\n')
  for (const expected of [/^the admin token$/m, /jwt_secret/, /node\.key/, /nostr_private_key/, /preimage/, /service_secret/, /invoice_key|admin_key/, /auth_token/, /callback_token/, /admin\.enroll/]) {
    assert.match(sources, expected, `the scan knows no secret matching ${expected}`)
  }
  assert.ok(daemon.logs().length > 2000, 'the daemon logged at trace level')
})

noisy('its stop() scans the whole log and finds nothing', async () => {
  assert.is(await daemon.stop(), 0)
})

scan.run()
noisy.run()
