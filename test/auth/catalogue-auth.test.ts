// Walks the whole catalogue over HTTP and proves that every operation refuses every wrong kind of credential and
// a missing one — saying which kind it needs and which was sent — and lets the right kind through authentication.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { SignJWT } from 'jose'
import { catalogue } from '../../schema/catalogue.js'
import type { AuthKind } from '../../schema/operation.js'
import { startDaemon, type TestDaemon } from '../support/daemon.js'

const jwtSecret = 'catalogue-auth-test-secret-0123456789abcdef'
const metricsToken = 'metrics-token-0123456789abcdef'

type CredentialKind = 'none' | 'admin' | 'adminBearer' | 'metrics' | 'app' | 'user' | 'invoiceKey' | 'adminKey'
const credentialKinds: CredentialKind[] = ['none', 'admin', 'adminBearer', 'metrics', 'app', 'user', 'invoiceKey', 'adminKey']

/** Which presented credentials each caller kind accepts over HTTP. */
const accepts: Record<AuthKind, CredentialKind[]> = {
  guest: credentialKinds,
  admin: ['admin', 'adminBearer'],
  metrics: ['metrics'],
  app: ['app'],
  user: ['user'],
  guestPub: [],
  walletInvoice: ['invoiceKey', 'adminKey'],
  walletAdmin: ['adminKey'],
  operator: ['admin', 'adminBearer'],
  member: ['admin', 'adminBearer', 'user', 'invoiceKey', 'adminKey'],
  guestOrWallet: credentialKinds,
  nwcConnection: [], // NIP-47 methods have no HTTP route (Nostr kind 23194 only)
  clinkRequester: [], // CLINK requests have no HTTP route (Nostr kinds 21001–21003 only)
}

/** Every way authentication says no, in both dialects. */
const authRefusals = new RegExp(
  '^(' +
    [
      'admin header not found', 'admin token invalid', 'metrics header not found', 'metrics token invalid',
      'empty app token provided', 'the provided token is not an app token', 'invalid signature', 'jwt malformed',
      'empty user token provided', 'the provided token is not a valid app user token token', 'Nostr only route',
      'No Api Key provided\\.', 'Wallet not found\\.', 'Invalid adminkey\\.', 'Missing operator credentials\\.',
      'Only the operator may use this route\\.', 'Not authenticated', 'Invalid credentials',
    ].join('|') +
    ')(?: \\(this operation needs (.+)(?:; (.+) was sent|, (?:as|in) .+)\\))?$',
)

/** How a refusal names each kind of credential sent. */
const sentText: Record<Exclude<CredentialKind, 'none'>, string> = {
  admin: 'the admin token',
  adminBearer: 'the admin token',
  metrics: 'the metrics token',
  app: 'an app token',
  user: 'a user token',
  invoiceKey: "a wallet's invoice key",
  adminKey: "a wallet's admin key",
}

const walk = suite('every operation refuses the wrong credentials')
let daemon: TestDaemon
const headers = {} as Record<CredentialKind, Record<string, string>>

walk.before(async () => {
  daemon = await startDaemon({ config: `[auth]\njwt_secret = "${jwtSecret}"\nmetrics_token = "${metricsToken}"\n` })
  const admin = { authorization: daemon.adminToken }
  const added = await daemon.request('POST', '/api/admin/app/add', { body: { name: 'auth-walk', allow_user_creation: false }, headers: admin })
  assert.is(added.json.status, 'OK', JSON.stringify(added.json))
  const appToken: string = added.json.auth_token
  const appId: string = added.json.app.id
  const user = await daemon.request('POST', '/api/app/user/add', {
    body: { identifier: 'walker', fail_if_exists: true, balance: 0 },
    headers: { authorization: appToken },
  })
  assert.is(user.json.status, 'OK', JSON.stringify(user.json))
  // The test plays an integrator that shares the JWT secret and issues a user token itself.
  const userToken = await new SignJWT({ user_id: user.json.info.userId, app_id: appId, app_user_id: 'walker' })
    .setProtectedHeader({ alg: 'HS256' })
    .sign(new TextEncoder().encode(jwtSecret))
  const keys = await daemon.request('POST', '/api/user/wallet/keys', { headers: { authorization: `Bearer ${userToken}` } })
  assert.is(keys.json.status, 'OK', JSON.stringify(keys.json))
  for (const extension of ['restaurant', 'payroll']) {
    const enabled = await daemon.request('PUT', `/api/v1/extension/${extension}/enable`, { headers: { 'x-api-key': keys.json.admin_key } })
    assert.is(enabled.status, 200, JSON.stringify(enabled.json))
  }
  Object.assign(headers, {
    none: {},
    admin: { authorization: daemon.adminToken },
    adminBearer: { authorization: `Bearer ${daemon.adminToken}` },
    metrics: { authorization: metricsToken },
    app: { authorization: appToken },
    user: { authorization: `Bearer ${userToken}` },
    invoiceKey: { 'x-api-key': keys.json.invoice_key },
    adminKey: { 'x-api-key': keys.json.admin_key },
  })
})
walk.after(async () => {
  await daemon.stop()
})

async function reasonFor(entry: (typeof catalogue)[number], credential: CredentialKind) {
  const http = entry.http!
  const path = http.path.replace(/:(\w+)|\{(\w+)\}/g, 'x')
  const res = await daemon.request(http.method, path, {
    ...(http.method === 'GET' ? {} : { body: {} }),
    headers: headers[credential],
  })
  if (entry.name === 'RotateWalletKeys' && res.json?.status === 'OK') {
    headers.invoiceKey = { 'x-api-key': res.json.invoice_key }
    headers.adminKey = { 'x-api-key': res.json.admin_key }
  }
  return { status: res.status, reason: String(entry.dialect === 'pub' ? res.json?.reason : res.json?.detail) }
}

walk('a missing or wrong credential is refused by authentication, before validation and the handler', async () => {
  let checked = 0
  for (const entry of catalogue.filter(e => e.http && !e.stream && e.auth !== 'guest')) {
    for (const credential of credentialKinds.filter(c => !accepts[entry.auth].includes(c))) {
      const { status, reason } = await reasonFor(entry, credential)
      const refusal = authRefusals.exec(reason)
      assert.ok(refusal, `${entry.name} with ${credential}: ${status} ${reason}`)
      // A credential of another kind is named, with the kind the operation needs (Nostr-only routes need none).
      const namesItself = reason === 'Invalid adminkey.' // the wallet host's text for an invoice key: kept exact
      if (credential !== 'none' && entry.auth !== 'guestPub' && !namesItself) {
        assert.is(refusal![3], sentText[credential], `${entry.name} with ${credential}: ${reason}`)
        assert.ok(refusal![2], `${entry.name} with ${credential}: ${reason}`)
      } else if (credential === 'none') {
        // Nothing sent: at most where the credential goes, never a kind "sent".
        assert.is(refusal![3], undefined, `${entry.name} with ${credential}: ${reason}`)
      } else assert.is(refusal![2], undefined, `${entry.name} with ${credential}: ${reason}`)
      if (entry.dialect === 'detail') assert.ok([401, 403, 404].includes(status), `${entry.name} with ${credential}: ${status}`)
      checked++
    }
  }
  assert.ok(checked > 500, `only ${checked} refusals checked`)
})

walk('the right credential passes authentication', async () => {
  for (const entry of catalogue.filter(e => e.http && !e.stream && e.auth !== 'guest' && e.auth !== 'guestPub')) {
    for (const credential of accepts[entry.auth]) {
      const { status, reason } = await reasonFor(entry, credential)
      assert.not.match(reason, authRefusals, `${entry.name} with ${credential}: ${status} ${reason}`)
    }
  }
})

walk('with a metrics token set, the admin token no longer opens metrics operations', async () => {
  const entry = catalogue.find(e => e.name === 'GetErrorStats')!
  assert.is((await reasonFor(entry, 'admin')).reason, 'metrics token invalid (this operation needs the metrics token; the admin token was sent)')
})

walk('the messages read as an integrator needs them', async () => {
  const reason = async (path: string, header: Record<string, string>) =>
    (await daemon.request('POST', path, { body: {}, headers: header })).json.reason
  assert.is(await reason('/api/user/info', headers.admin), 'jwt malformed (this operation needs a user token; the admin token was sent)')
  assert.is(
    await reason('/api/user/info', headers.app),
    'the provided token is not a valid app user token token (this operation needs a user token; an app token was sent)',
  )
  assert.is(await reason('/api/app/get', headers.user), 'the provided token is not an app token (this operation needs an app token; a user token was sent)')
  assert.is(
    await reason('/api/admin/app/add', { authorization: headers.invoiceKey['x-api-key']! }),
    'admin token invalid (this operation needs the admin token; a wallet key in Authorization (send it in X-Api-Key) was sent)',
  )
  // A token of no kind the daemon knows, or none at all: the reason says where the credential goes.
  assert.is(
    await reason('/api/user/info', { authorization: 'Bearer not-a-token-of-any-kind' }),
    'jwt malformed (this operation needs a user token, as Authorization: Bearer <user token> (from AddAppUser, AuthorizeUser or GetAppUser))',
  )
  assert.is(await reason('/api/app/get', {}), 'empty app token provided (this operation needs an app token, as Authorization: Bearer <app token> (from AddApp or AuthApp))')
})

walk.run()
