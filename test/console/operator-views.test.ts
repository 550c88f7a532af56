// The operator operations the console reads (the catalogue's 'operator' section) over plain HTTP with the admin token:
// the app list, the wallet search, invoices and payments across wallets with their filters and fees, a user token
// to act for a wallet, and the ledger audit on demand. Callers other than the operator are refused.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { startDaemon, type TestDaemon } from '../support/daemon.js'

const views = suite('operator views')
let daemon: TestDaemon
let appToken: string
const admin = () => ({ authorization: `Bearer ${daemon.adminToken}` })
const app = () => ({ authorization: `Bearer ${appToken}` })

views.before(async () => {
  daemon = await startDaemon()
  const added = await daemon.request('POST', '/api/admin/app/add', { body: { name: 'views-shop', allow_user_creation: true }, headers: admin() })
  appToken = added.json.auth_token
  for (const identifier of ['carol', 'dave']) {
    const user = await daemon.request('POST', '/api/app/user/add', { body: { identifier, fail_if_exists: true, balance: 0 }, headers: app() })
    assert.is(user.json.status, 'OK', user.text)
  }
  const funded = await daemon.request('POST', '/api/app/mock/user/blance/set', { body: { user_identifier: 'carol', amount: 3000 }, headers: app() })
  assert.is(funded.json.status, 'OK', funded.text)
  const invoice = await daemon.request('POST', '/api/app/user/add/invoice', {
    body: { receiver_identifier: 'dave', payer_identifier: 'carol', http_callback_url: '', invoice_req: { amountSats: 700, memo: 'lunch' } },
    headers: app(),
  })
  const paid = await daemon.request('POST', '/api/app/invoice/pay', { body: { user_identifier: 'carol', invoice: invoice.json.invoice, amount: 0 }, headers: app() })
  assert.is(paid.json.status, 'OK', paid.text)
  // An invoice nobody pays.
  await daemon.request('POST', '/api/app/user/add/invoice', {
    body: { receiver_identifier: 'carol', payer_identifier: '', http_callback_url: '', invoice_req: { amountSats: 42, memo: 'unpaid' } },
    headers: app(),
  })
})
views.after(async () => {
  await daemon?.stop()
})

views('apps with their user count and owner balance', async () => {
  const res = await daemon.request('GET', '/api/operator/apps', { headers: admin() })
  assert.is(res.status, 200)
  const shop = res.json.apps.find((a: { name: string }) => a.name === 'views-shop')
  assert.is(shop.users, 2)
  assert.is(shop.allow_user_creation, true)
  assert.match(shop.npub, /^[0-9a-f]{64}$/)
})

views('the wallet search finds by identifier and user id, with balance and ban state', async () => {
  const res = await daemon.request('GET', '/api/operator/users?query=dav', { headers: admin() })
  assert.is(res.status, 200)
  assert.is(res.json.users.length, 1)
  const dave = res.json.users[0]
  assert.equal([dave.identifier, dave.app_name, dave.balance_sats, dave.locked], ['dave', 'views-shop', 700, false])
  const byId = await daemon.request('GET', `/api/operator/users?query=${dave.user_id}`, { headers: admin() })
  assert.is(byId.json.users[0].identifier, 'dave')
  const none = await daemon.request('GET', '/api/operator/users?query=%25', { headers: admin() })
  assert.is(none.json.users.length, 0, 'a % is searched literally')
  const limited = await daemon.request('GET', '/api/operator/users?limit=1', { headers: admin() })
  assert.is(limited.json.users.length, 1)
})

views('invoices and payments across wallets, filtered by user, status and time, with fees', async () => {
  const all = await daemon.request('GET', '/api/operator/payments?query=carol', { headers: admin() })
  assert.is(all.status, 200)
  const statuses = all.json.payments.map((p: { direction: string; status: string }) => `${p.direction} ${p.status}`).sort()
  assert.equal(statuses, ['incoming unpaid', 'outgoing succeeded'])
  const sent = all.json.payments.find((p: { direction: string }) => p.direction === 'outgoing')
  assert.is(sent.amount_sats, 700)
  assert.is(sent.internal, true)
  assert.ok(sent.service_fee_sats >= 0 && sent.routing_fee_sats === 0)
  const received = await daemon.request('GET', '/api/operator/payments?query=dave&status=paid', { headers: admin() })
  assert.is(received.json.payments.length, 1)
  assert.equal([received.json.payments[0].memo, received.json.payments[0].amount_sats], ['lunch', 700])
  const byHash = await daemon.request('GET', `/api/operator/payments?query=${sent.payment_hash.slice(0, 12)}`, { headers: admin() })
  assert.equal(byHash.json.payments.map((p: { direction: string }) => p.direction).sort(), ['incoming', 'outgoing'])
  const failed = await daemon.request('GET', '/api/operator/payments?status=failed', { headers: admin() })
  assert.is(failed.json.payments.length, 0)
  const future = Math.floor(Date.now() / 1000) + 3600
  const later = await daemon.request('GET', `/api/operator/payments?since=${future}`, { headers: admin() })
  assert.is(later.json.payments.length, 0)
  const bad = await daemon.request('GET', '/api/operator/payments?status=lost', { headers: admin() })
  assert.is(bad.status, 400)
})

views('a user token for an app user works on the user routes; an unknown identifier is 404', async () => {
  const res = await daemon.request('POST', '/api/operator/users/token', { body: { identifier: 'dave' }, headers: admin() })
  assert.is(res.status, 200)
  const info = await daemon.request('POST', '/api/user/info', { headers: { authorization: `Bearer ${res.json.token}` } })
  assert.equal([info.json.status, info.json.balance], ['OK', 700])
  const unknown = await daemon.request('POST', '/api/operator/users/token', { body: { identifier: 'nobody' }, headers: admin() })
  assert.is(unknown.status, 404)
})

views('the audit on demand: clean, with its time and counts', async () => {
  const before = await daemon.request('GET', '/api/operator/audit', { headers: admin() })
  assert.is(before.json.ran, true, 'the audit at start is remembered')
  const run = await daemon.request('POST', '/api/operator/audit', { headers: admin() })
  assert.is(run.status, 200)
  assert.equal([run.json.ran, run.json.ok, run.json.problems], [true, true, []])
  assert.ok(run.json.transactions >= 2)
  assert.is(run.json.wallets_total_sats, 3000)
  assert.ok(Math.abs(run.json.at - Date.now() / 1000) < 60)
})

views('only the operator may call them', async () => {
  for (const [method, path] of [['GET', '/api/operator/apps'], ['GET', '/api/operator/users'], ['GET', '/api/operator/payments'], ['POST', '/api/operator/audit']]) {
    const res = await daemon.request(method!, path!, { headers: app() })
    assert.is(res.status, 401, `${method} ${path}`)
    const bare = await daemon.request(method!, path!)
    assert.is(bare.status, 401, `${method} ${path} without credentials`)
  }
})

views('rotating an app token: the old token is refused, the new one and AuthApp\'s work, also after a restart', async () => {
  const rotate = (body: unknown, headers = admin()) => daemon.request('POST', '/api/operator/apps/token', { body, headers })
  const old = appToken
  const appId = (await daemon.request('POST', '/api/app/get', { headers: app() })).json.id
  const rotated = await rotate({ app_id: appId })
  assert.is(rotated.status, 200, rotated.text)
  assert.is(rotated.json.name, 'views-shop')
  appToken = rotated.json.auth_token
  const refused = await daemon.request('POST', '/api/app/get', { headers: { authorization: `Bearer ${old}` } })
  assert.match(refused.text, /this app token was replaced by a newer one/)
  assert.is((await daemon.request('POST', '/api/app/get', { headers: app() })).json.name, 'views-shop')
  // AuthApp hands out a token of the generation in force, not one of the old.
  const authed = await daemon.request('POST', '/api/admin/app/auth', { body: { name: 'views-shop' }, headers: admin() })
  assert.is((await daemon.request('POST', '/api/app/get', { headers: { authorization: `Bearer ${authed.json.auth_token}` } })).json.name, 'views-shop')
  assert.is((await rotate({ app_id: 'no-such-app' })).status, 404)
  assert.is((await rotate({ app_id: appId }, app())).status, 401, 'an app cannot rotate its own token: the operator does')
  // Kept in the database: a restart does not bring the old token back.
  await daemon.stop()
  daemon = await startDaemon({ dataDir: daemon.dataDir })
  assert.match((await daemon.request('POST', '/api/app/get', { headers: { authorization: `Bearer ${old}` } })).text, /replaced by a newer one/)
  assert.is((await daemon.request('POST', '/api/app/get', { headers: app() })).json.name, 'views-shop')
})

views.run()
