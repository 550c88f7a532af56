// What the catalogue-wide HTTP matrix (test/auth/catalogue-auth.test.ts) does not reach: the alias paths (upstream
// spellings) refuse a missing credential like their operation does, and forged or bent credentials are refused —
// unsigned (alg none) and wrongly signed JWTs, other algorithms, tokens naming another app, the admin token with
// something added or taken away, and a wallet key in the query string where an admin key is needed.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { SignJWT, UnsecuredJWT } from 'jose'
import { catalogue } from '../../schema/catalogue.js'
import { startDaemon, type TestDaemon } from '../support/daemon.js'
import { addAppUser, createAppWithUser, jwtSecretConfig, type TestAppUser } from '../support/accounts.js'
import { call } from '../support/money.js'

const jwtSecret = 'credentials-test-secret-0123456789abcdef'
const creds = suite('forged and bent credentials')
let daemon: TestDaemon
let alice: TestAppUser
let bobApp: TestAppUser

creds.before(async () => {
  daemon = await startDaemon({ config: jwtSecretConfig(jwtSecret) })
  alice = await createAppWithUser(daemon, { jwtSecret, identifier: 'alice' })
  bobApp = await createAppWithUser(daemon, { jwtSecret, identifier: 'bob' })
})
creds.after(async () => {
  await daemon?.stop()
})

const sign = (payload: Record<string, unknown>, secret = jwtSecret, alg = 'HS256') =>
  new SignJWT(payload).setProtectedHeader({ alg }).sign(new TextEncoder().encode(secret))

creds('every alias path refuses a missing credential, as its operation does', async () => {
  let checked = 0
  for (const entry of catalogue.filter(e => e.http && !e.stream && e.auth !== 'guest' && e.auth !== 'guestOrWallet')) {
    for (const alias of entry.aliases ?? []) {
      if (!alias.path) continue
      const res = await daemon.request(entry.http!.method, alias.path.replace(/:(\w+)|\{(\w+)\}/g, 'x'), entry.http!.method === 'GET' ? {} : { body: {} })
      const reason = String(res.json?.reason ?? res.json?.detail)
      assert.match(reason, /not found|empty .* token provided|Not authenticated|No Api Key|Missing operator|Nostr only/, `${entry.name} at ${alias.path}: ${reason}`)
      checked++
    }
  }
  assert.ok(checked > 0, `${checked} alias paths`)
})

creds('JWTs: unsigned, wrongly signed, other algorithms and tampered payloads are refused', async () => {
  const appId = alice.appId
  const forged = [
    new UnsecuredJWT({ appId }).encode(),
    await sign({ appId }, 'not-the-secret-0123456789abcdef0123456789'),
    await sign({ appId }, jwtSecret, 'HS512'),
    await sign({ appId }, jwtSecret, 'HS384'),
    // A real token with its payload swapped for another app's, the signature kept.
    ((await sign({ appId: bobApp.appId })).split('.').map((part, i) => (i === 1 ? Buffer.from(JSON.stringify({ appId })).toString('base64url') : part)).join('.')),
  ]
  for (const token of forged) {
    for (const header of [token, `Bearer ${token}`]) {
      const reply = await call(daemon, '/api/app/get', header)
      assert.is(reply.status, 'ERROR', header)
      assert.match(reply.reason, /invalid signature|jwt malformed/, header)
    }
  }
  // The genuine article still works, so the refusals are about the forgery.
  assert.is((await call(daemon, '/api/app/get', alice.appToken)).status, 'OK')
})

creds('a user token names one user of one app: other apps, other users and app tokens do not pass', async () => {
  const cases = [
    await sign({ user_id: alice.userId, app_id: bobApp.appId, app_user_id: 'alice' }),
    await sign({ user_id: alice.userId, app_id: alice.appId, app_user_id: 'bob' }),
    await sign({ user_id: bobApp.userId, app_id: alice.appId, app_user_id: 'alice' }),
    await sign({ user_id: alice.userId, app_id: alice.appId }),
    alice.appToken,
  ]
  for (const token of cases) {
    const reply = await call(daemon, '/api/user/info', `Bearer ${token}`)
    assert.is(reply.status, 'ERROR', token)
    assert.match(reply.reason, /not a valid app user token/)
  }
  const carol = await addAppUser(daemon, { appToken: alice.appToken, appId: alice.appId, jwtSecret, identifier: 'carol' })
  assert.is((await call(daemon, '/api/user/info', `Bearer ${carol.userToken}`)).user_identifier, 'carol')
})

creds('the admin token with anything added, removed or changed is refused', async () => {
  const token = daemon.adminToken
  for (const bent of [token + 'x', token.slice(0, -1), token.toUpperCase() === token ? token.toLowerCase() : token.toUpperCase(), ` ${token}x`, `Basic ${token}`, token.slice(0, 16)]) {
    const reply = await call(daemon, '/api/admin/app/add', bent, { name: 'never', allow_user_creation: false })
    assert.is(reply.status, 'ERROR', JSON.stringify(bent))
    const operator = await daemon.request('GET', '/payroll/api/v1/contracts', { headers: { authorization: `Bearer ${bent}` } })
    assert.ok([401, 403].includes(operator.status), `${JSON.stringify(bent)}: ${operator.status}`)
  }
})

creds('a wallet invoice key in the query string does not open an admin-key route', async () => {
  const keys = (await call(daemon, '/api/user/wallet/keys', `Bearer ${alice.userToken}`)) as { invoice_key: string; admin_key: string }
  const entry = catalogue.find(e => e.auth === 'walletAdmin' && e.http && !e.http.path.includes('{') && !e.http.path.includes(':'))!
  const viaQuery = await daemon.request(entry.http!.method, `${entry.http!.path}?api-key=${keys.invoice_key}`, entry.http!.method === 'GET' ? {} : { body: {} })
  assert.is(viaQuery.status, 403, `${entry.name}: ${viaQuery.text}`)
  assert.is(viaQuery.json.detail, 'Invalid adminkey.')
})

creds.run()
