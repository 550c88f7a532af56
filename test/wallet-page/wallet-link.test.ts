// Wallet links over HTTP against the real daemon: the operator creates one, and its secret then works where a user
// token does; a wrong, replaced or revoked secret is refused in one sentence that does not say whether a wallet
// exists; an address that sends too many wrong secrets is refused every secret, the right one too, until its budget
// refills; a link may call only what the page does; and the page itself is a stranger's route with the guest budget and the strict headers.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { startDaemon, type TestDaemon } from '../support/daemon.js'

const refusal = 'This wallet link does not open a wallet: it was revoked or replaced by a newer one, or it is incomplete. Ask whoever gave it to you for a new link.'
const test = suite('wallet links')
let daemon: TestDaemon
let appToken: string

const admin = () => ({ authorization: `Bearer ${daemon.adminToken}` })
const bearer = (secret: string) => ({ authorization: `Bearer ${secret}` })

async function ok(pathname: string, body: unknown, headers: Record<string, string>) {
  const res = await daemon.request('POST', pathname, { body, headers })
  assert.ok(res.status === 200 && res.json?.status !== 'ERROR', `${pathname}: ${res.status} ${res.text}`)
  return res.json
}
const createLink = (identifier: string) => ok('/api/operator/users/wallet-link', { identifier }, admin())
const userInfo = (secret: string) => daemon.request('POST', '/api/user/info', { headers: bearer(secret) })

test.before(async () => {
  // Small budgets (4 wrong secrets at once, 4 guest requests at once, then 1 a minute each) so the test reaches
  // their ends in a few requests.
  daemon = await startDaemon({
    config: '[auth]\nwallet_link_failures_burst = 4\nwallet_link_failures_per_minute = 1\n[http]\npublic_url = "https://pay.example.com"\nguest_burst = 4\nguest_requests_per_minute = 1\n',
  })
  appToken = (await ok('/api/admin/app/add', { name: 'links-shop', allow_user_creation: false }, admin())).auth_token
  for (const identifier of ['carol', 'dave']) {
    await ok('/api/app/user/add', { identifier, fail_if_exists: true, balance: 0 }, { authorization: `Bearer ${appToken}` })
  }
  await ok('/api/app/mock/user/blance/set', { user_identifier: 'carol', amount: 4_321 }, { authorization: `Bearer ${appToken}` })
})
test.after(async () => {
  await daemon?.stop()
})

test("a link's secret opens its own wallet, and only that one", async () => {
  const link = await createLink('carol')
  assert.match(link.secret, /^wl_[0-9a-f]{16}_[0-9a-f]{64}$/)
  assert.is(link.path, `/wallet/#${link.secret}`)
  assert.is(link.url, `https://pay.example.com/wallet/#${link.secret}`, 'the link names [http] public_url, not the loopback address')
  const info = await userInfo(link.secret)
  assert.is(info.json.status, 'OK', info.text)
  assert.is(info.json.user_identifier, 'carol')
  assert.is(info.json.balance, 4_321)
  const dave = await userInfo((await createLink('dave')).secret)
  assert.is(dave.json.user_identifier, 'dave')
  assert.is(dave.json.balance, 0)
})

test('a link cannot be traded for a credential that would outlive it (wallet keys, a user token)', async () => {
  const secret = (await createLink('dave')).secret
  for (const [pathname, op] of [['/api/user/wallet/keys', 'GetWalletKeys'], ['/api/user/http_creds', 'GetHttpCreds']]) {
    const refused = await daemon.request('POST', pathname!, { headers: bearer(secret) })
    assert.equal(refused.json, { status: 'ERROR', reason: `a wallet link may not call ${op}: use a user token` })
  }
  // What the page does, it may: here, list the wallet's NWC connections.
  assert.is((await daemon.request('POST', '/api/user/nwc/list', { headers: bearer(secret) })).json.status, 'OK')
})

test('a wrong secret, a replaced one and a revoked one get the same refusal; an unknown wallet is not created', async () => {
  const first = (await createLink('carol')).secret
  const second = (await createLink('carol')).secret
  const wrongVerifier = `${second.slice(0, 20)}${'0'.repeat(64)}`
  const unknownId = `wl_${'0'.repeat(16)}_${second.slice(-64)}`
  for (const secret of [first, wrongVerifier]) {
    const refused = await userInfo(secret)
    assert.equal(refused.json, { status: 'ERROR', reason: refusal }, secret === first ? 'replaced' : 'wrong verifier')
  }
  assert.is((await userInfo(second)).json.user_identifier, 'carol', 'the newest link still works')
  assert.equal((await ok('/api/operator/users/wallet-link/revoke', { identifier: 'carol' }, admin())).revoked, true)
  assert.equal((await userInfo(second)).json, { status: 'ERROR', reason: refusal }, 'revoked')
  assert.equal((await ok('/api/operator/users/wallet-link/revoke', { identifier: 'carol' }, admin())).revoked, false)
  // A fourth wrong one, naming no row: the same words. Now this address has spent its burst of four.
  assert.equal((await userInfo(unknownId)).json, { status: 'ERROR', reason: refusal }, 'unknown id')
  const missing = await daemon.request('POST', '/api/operator/users/wallet-link', { body: { identifier: 'nobody' }, headers: admin() })
  assert.is(missing.status, 404)
})

test('over the budget of wrong secrets every secret from the address is refused, the right one too', async () => {
  // The test before spent the burst (4 wrong secrets from this address).
  const right = (await createLink('dave')).secret
  const refused = await userInfo(right)
  assert.is(refused.json.status, 'ERROR')
  assert.match(refused.json.reason, /^too many requests: wrong wallet links from this address; try again in \d+ s$/)
  assert.ok(Number(refused.headers.get('retry-after')) >= 1, 'Retry-After')
  // A user token is not a wallet link: it is not counted nor refused by that budget.
  const token = (await ok('/api/operator/users/token', { identifier: 'dave' }, admin())).token
  assert.is((await userInfo(token)).json.user_identifier, 'dave')
})

test('the page: strict headers, no caching, and the guest budget', async () => {
  for (const pathname of ['/wallet', '/wallet/']) {
    const page = await daemon.request('GET', pathname)
    assert.is(page.status, 200, pathname)
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/)
    const csp = page.headers.get('content-security-policy') ?? ''
    assert.match(csp, /default-src 'none'/)
    assert.match(csp, /script-src 'sha256-[A-Za-z0-9+/]+={0,2}'(;|$)/)
    assert.match(csp, /frame-ancestors 'none'/)
    assert.match(csp, /connect-src 'self'/)
    assert.is(page.headers.get('x-frame-options'), 'DENY')
    assert.is(page.headers.get('x-content-type-options'), 'nosniff')
    assert.is(page.headers.get('referrer-policy'), 'no-referrer')
    assert.is(page.headers.get('cache-control'), 'no-store')
    assert.match(page.text, /<script>/)
  }
  // Two of the four guest requests are spent: two more are served, then the address waits.
  const statuses = []
  for (let i = 0; i < 3; i++) statuses.push((await daemon.request('GET', '/wallet/')).status)
  assert.equal(statuses, [200, 200, 429])
})
test.run()
