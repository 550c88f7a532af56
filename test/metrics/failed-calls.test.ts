// GetFailedCalls through the real daemon, over HTTP and the relay: calls made to fail for known reasons (a payment
// larger than the balance, an invoice that is no invoice, a missing credential) come back with the code and the
// reason each caller was answered, newest first; `since`, `until` and `limit` pick among them; only the admin may
// read them; and past a thousand failures the oldest reasons are gone while the count answered stays a thousand.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { startDaemon, type TestDaemon } from '../support/daemon.js'
import { outsideInvoice } from '../support/outside-invoice.js'
import { addAppUser, jwtSecretConfig } from '../support/accounts.js'
import { appProfile, PubClient } from '../support/pub-client.js'
import fs from 'node:fs'
import path from 'node:path'

const test = suite('the latest failed calls and why (GetFailedCalls)')
let daemon: TestDaemon
let admin: Record<string, string>
let asApp: Record<string, string>
let appId: string
let appToken: string
const jwtSecret = 'failed-calls-test-secret-0123456789abcdef'
const metricsToken = 'failed-calls-metrics-token-0123456789'

interface FailedCall {
  at_unix: number
  operation: string
  app: string
  transport: string
  code: string
  message: string
}

async function pub(urlPath: string, headers: Record<string, string>, body: unknown = {}) {
  const res = await daemon.request('POST', urlPath, { body, headers })
  assert.is(res.status, 200, `${urlPath}: ${res.text}`)
  return res.json
}

async function ok(urlPath: string, headers: Record<string, string>, body: unknown = {}) {
  const answer = await pub(urlPath, headers, body)
  assert.is(answer.status, 'OK', `${urlPath}: ${JSON.stringify(answer)}`)
  return answer
}

/** A call that must fail; its reason as the caller got it. */
async function refused(urlPath: string, headers: Record<string, string>, body: unknown = {}): Promise<string> {
  const answer = await pub(urlPath, headers, body)
  assert.is(answer.status, 'ERROR', `${urlPath} should fail: ${JSON.stringify(answer)}`)
  return answer.reason
}

const failedCalls = async (body: Record<string, unknown> = {}): Promise<{ failures: FailedCall[]; capacity: number }> =>
  ok('/api/reports/failures', admin, body)

test.before(async () => {
  daemon = await startDaemon({ config: `${jwtSecretConfig(jwtSecret)}metrics_token = "${metricsToken}"\n` })
  admin = { authorization: daemon.adminToken }
  const added = await ok('/api/admin/app/add', admin, { name: 'failing-shop', allow_user_creation: true })
  appId = added.app.id
  appToken = added.auth_token
  asApp = { authorization: `Bearer ${added.auth_token}` }
  await ok('/api/app/user/add', asApp, { identifier: 'alice', fail_if_exists: true, balance: 0 })
  await ok('/api/app/mock/user/blance/set', asApp, { user_identifier: 'alice', amount: 1000 })
})
test.after(async () => {
  await daemon?.stop()
})

test('failed calls come back with their code and the reason the caller got, newest first', async () => {
  assert.equal((await failedCalls()).failures, [], 'nothing failed yet')

  // Alice holds 1,000 sats: a payment of 5,000 cannot be made.
  const invoice = outsideInvoice({ network: 'regtest', nowMs: Date.now(), amountMsat: 5_000_000 }).paymentRequest
  const tooMuch = await refused('/api/app/invoice/pay', asApp, { user_identifier: 'alice', invoice, amount: 0 })
  const notAnInvoice = await refused('/api/app/invoice/pay', asApp, { user_identifier: 'alice', invoice: 'lnbcrt1notaninvoice', amount: 0 })
  const noCredential = await refused('/api/app/get', {})

  const { failures, capacity } = await failedCalls()
  assert.is(capacity, 1000)
  assert.equal(failures.map(({ operation, app, transport, message }) => ({ operation, app, transport, message })), [
    { operation: 'GetApp', app: '_root', transport: 'http', message: noCredential },
    { operation: 'PayAppUserInvoice', app: appId, transport: 'http', message: notAnInvoice },
    { operation: 'PayAppUserInvoice', app: appId, transport: 'http', message: tooMuch },
  ])
  assert.is(failures[0]!.code, 'unauthenticated')
  assert.match(tooMuch, /balance/i, 'the payment failed for want of balance')
  assert.not.equal(notAnInvoice, tooMuch)
  for (const failure of failures) {
    assert.ok(failure.code.length > 0 && failure.code !== 'internal', `${failure.operation}: ${failure.code}`)
    assert.ok(Math.abs(failure.at_unix - Date.now() / 1000) < 600, `${failure.at_unix} is a unix second of today`)
  }
  const ascending = failures.map(f => f.at_unix).reverse()
  assert.equal(ascending, [...ascending].sort((a, b) => a - b), 'newest first')
})

test('since (inclusive), until (exclusive) and limit pick among them', async () => {
  const all = (await failedCalls()).failures
  const newest = all[0]!
  const oldest = all[all.length - 1]!
  assert.is(all.length, 3)
  assert.equal((await failedCalls({ since: oldest.at_unix, until: newest.at_unix + 1 })).failures, all)
  assert.equal((await failedCalls({ since: newest.at_unix + 1 })).failures, [])
  assert.equal((await failedCalls({ until: oldest.at_unix })).failures, [])
  assert.equal((await failedCalls({ until: newest.at_unix + 1 })).failures, all)
  assert.equal((await failedCalls({ since: newest.at_unix })).failures, all.filter(f => f.at_unix >= newest.at_unix))
  assert.equal((await failedCalls({ limit: 2 })).failures, all.slice(0, 2))
  assert.equal((await failedCalls({ limit: 1, until: newest.at_unix + 1 })).failures, [newest])

  // A limit past the cap or an unknown field is refused, and is itself the newest failure then.
  const tooMany = await refused('/api/reports/failures', admin, { limit: 1001 })
  assert.match(tooMany, /limit/)
  assert.match(await refused('/api/reports/failures', admin, { sinc: 5 }), /sinc: unknown field; did you mean since\?/)
  const [unknownField, limitRefused] = (await failedCalls({ limit: 2 })).failures
  assert.equal([unknownField!.code, limitRefused!.code], ['invalid_input', 'invalid_input'])
  assert.equal([limitRefused!.operation, limitRefused!.message], ['GetFailedCalls', tooMany])
})

test('only the admin reads them: an app token, a user token and the metrics token are refused', async () => {
  const bob = await addAppUser(daemon, { appToken, appId, jwtSecret, identifier: 'bob' })
  const asUser = { authorization: `Bearer ${bob.userToken}` }
  assert.is((await pub('/api/user/info', asUser)).status, 'OK', 'the user token is one')
  assert.match(await refused('/api/reports/failures', asApp), /^admin token invalid/)
  assert.match(await refused('/api/reports/failures', asUser), /^admin token invalid/)
  assert.match(await refused('/api/reports/failures', {}), /^admin header not found/)
  // The metrics token opens the counts (GetErrorStats), not the reasons.
  assert.is((await pub('/api/reports/errors', { authorization: metricsToken })).status, 'OK', 'the metrics token is one')
  assert.match(await refused('/api/reports/failures', { authorization: metricsToken }), /^admin token invalid/)
  // The admin token as a bearer is the admin's too.
  assert.equal((await ok('/api/reports/failures', { authorization: `Bearer ${daemon.adminToken}` }, { limit: 1 })).failures[0].code, 'unauthenticated')
})

test('over the relay: the enrolled admin key reads them, another key is refused, and relay failures say so', async () => {
  const profile = appProfile(daemon.dataDir)
  const adminKey = await PubClient.connect({ relays: profile.relays, appPubkey: profile.pubkey })
  const stranger = await PubClient.connect({ relays: profile.relays, appPubkey: profile.pubkey })
  try {
    const refusal = await stranger.call('GetFailedCalls', {})
    assert.is(refusal.status, 'ERROR')
    const token = fs.readFileSync(path.join(daemon.dataDir, 'admin.connect'), 'utf8').trim().split(':')[1]!
    await adminKey.ok('EnrollAdminToken', { admin_token: token })
    const answer = await adminKey.ok('GetFailedCalls', { limit: 1 })
    assert.equal(
      answer.failures.map((f: FailedCall) => [f.operation, f.transport, f.message]),
      [['GetFailedCalls', 'nostr', refusal.reason]],
      'the stranger\'s refusal, over the relay, with the reason it was sent',
    )
  } finally {
    adminKey.close()
    stranger.close()
  }
})

test('the daemon keeps the latest thousand: older reasons make way, the answer never grows past it', async () => {
  const before = (await failedCalls({ limit: 1000 })).failures
  assert.ok(before.some(f => f.operation === 'PayAppUserInvoice'), 'the payments\' failures are still kept')
  // A thousand more failures, a few at a time: each asks for more than the cap.
  for (let sent = 0; sent < 1000; sent += 10) {
    await Promise.all(Array.from({ length: 10 }, () => refused('/api/reports/failures', admin, { limit: 5000 })))
  }
  const after = (await failedCalls({ limit: 1000 })).failures
  assert.is(after.length, 1000)
  assert.ok(after.every(f => f.operation === 'GetFailedCalls' && f.code === 'invalid_input'), 'only the newest thousand are left')
})

test.run()
