// An app hands its own users a wallet page, over HTTP against the real daemon: AppCreateWalletLink names
// `[http] public_url` as the operator's link does and opens that wallet; an app can neither make nor revoke a link
// for another app's user; and the NWC connections a link made on the page (the page's "connect an app" calls
// CreateNwcConnection with the link's secret) end with that link — revoked by the app or the operator, or replaced
// by a newer link — answered UNAUTHORIZED by a real NIP-47 client over the embedded relay and gone from the wallet's
// list, while connections made with a user token stay.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { startDaemon, type TestDaemon } from '../support/daemon.js'
import { addAppUser, createAppWithUser, jwtSecretConfig, type TestAppUser } from '../support/accounts.js'
import { NwcTestClient } from '../support/nwc-client.js'
import { call, ok } from '../support/money.js'
import { embeddedRelayUrl } from '../support/lnd-daemon.js'

const jwtSecret = 'app-wallet-links-secret-0123456789abcd'
const refusal = 'This wallet link does not open a wallet: it was revoked or replaced by a newer one, or it is incomplete. Ask whoever gave it to you for a new link.'
const test = suite('wallet links made by an app, and the NWC connections they made')
let daemon: TestDaemon
let shop: TestAppUser
let other: TestAppUser
const clients: NwcTestClient[] = []

const bearer = (secret: string) => `Bearer ${secret}`
const createLink = (app: TestAppUser, user_identifier: string) => call(daemon, '/api/app/user/wallet-link', app.appToken, { user_identifier })
const revokeLink = (app: TestAppUser, user_identifier: string) => call(daemon, '/api/app/user/wallet-link/revoke', app.appToken, { user_identifier })
/** What the page's "connect an app" does: CreateNwcConnection with the link's secret; and a client on it. */
async function connectWith(credential: string, name: string) {
  const created = await ok(daemon, '/api/user/nwc/create', credential, { name })
  const client = await NwcTestClient.connect(created.connection_uri, embeddedRelayUrl(daemon))
  clients.push(client)
  return { id: created.connection.connection_id as string, client }
}
const listed = async (userToken: string) =>
  ((await ok(daemon, '/api/user/nwc/list', userToken)).connections as { connection_id: string }[]).map(c => c.connection_id).sort()

test.before(async () => {
  daemon = await startDaemon({ config: `${jwtSecretConfig(jwtSecret)}[http]\npublic_url = "https://wallet.example.com"\n` })
  shop = await createAppWithUser(daemon, { jwtSecret, identifier: 'shop-customer' })
  other = await createAppWithUser(daemon, { jwtSecret, identifier: 'other-customer' })
  await ok(daemon, '/api/app/mock/user/blance/set', shop.appToken, { user_identifier: 'shop-customer', amount: 2_000 })
})
test.after(async () => {
  for (const client of clients) client.close()
  await daemon?.stop()
})

test("an app's link for its own user names [http] public_url and opens that wallet", async () => {
  const link = await createLink(shop, 'shop-customer')
  assert.is(link.status, 'OK', JSON.stringify(link))
  daemon.secrets.add('the wallet link', link.secret)
  assert.match(link.secret, /^wl_[0-9a-f]{16}_[0-9a-f]{64}$/)
  assert.is(link.path, `/wallet/#${link.secret}`)
  assert.is(link.url, `https://wallet.example.com/wallet/#${link.secret}`)
  assert.is(link.user_id, shop.userId)
  const info = await ok(daemon, '/api/user/info', bearer(link.secret))
  assert.is(info.user_identifier, 'shop-customer')
  assert.is(info.balance, 2_000)
  assert.equal(await revokeLink(shop, 'shop-customer'), { status: 'OK', revoked: true })
  assert.equal(await call(daemon, '/api/user/info', bearer(link.secret)), { status: 'ERROR', reason: refusal })
  assert.equal(await revokeLink(shop, 'shop-customer'), { status: 'OK', revoked: false })
})

test("an app cannot make or revoke a link for another app's user: not found, and that user's link stands", async () => {
  const theirs = await createLink(other, 'other-customer')
  assert.is(theirs.status, 'OK')
  daemon.secrets.add('the wallet link', theirs.secret)
  assert.equal(await createLink(shop, 'other-customer'), { status: 'ERROR', reason: 'user not found' })
  assert.equal(await revokeLink(shop, 'other-customer'), { status: 'ERROR', reason: 'user not found' })
  assert.equal(await createLink(shop, 'nobody-at-all'), { status: 'ERROR', reason: 'user not found' })
  assert.is((await ok(daemon, '/api/user/info', bearer(theirs.secret))).user_identifier, 'other-customer', 'still opens its wallet')
  // Nor with another credential than an app token: a user token, the link itself.
  assert.is((await call(daemon, '/api/app/user/wallet-link', shop.userToken, { user_identifier: 'shop-customer' })).status, 'ERROR')
  assert.is((await call(daemon, '/api/app/user/wallet-link', bearer(theirs.secret), { user_identifier: 'other-customer' })).status, 'ERROR')
  // Fields the operation does not name are refused, not ignored.
  assert.is((await call(daemon, '/api/app/user/wallet-link', shop.appToken, { user_identifier: 'shop-customer', app_id: other.appId })).status, 'ERROR')
})

test("revoking a link ends the NWC connections it made (UNAUTHORIZED, gone from the list); a user token's stay", async () => {
  const link = await createLink(shop, 'shop-customer')
  daemon.secrets.add('the wallet link', link.secret)
  const page = await connectWith(bearer(link.secret), 'made on the page')
  const byToken = await connectWith(shop.userToken, 'made with a user token')
  assert.is((await page.client.call('get_balance')).balance, 2_000_000)
  assert.equal(await listed(shop.userToken), [page.id, byToken.id].sort())
  assert.equal(await revokeLink(shop, 'shop-customer'), { status: 'OK', revoked: true })
  // Answered at once after the revocation was acknowledged: no wait.
  const refused = await page.client.request('get_balance')
  assert.is(refused.error?.code, 'UNAUTHORIZED', JSON.stringify(refused))
  assert.is((await byToken.client.call('get_balance')).balance, 2_000_000)
  assert.equal(await listed(shop.userToken), [byToken.id], 'the ended connection left the list')
})

test("a newer link (the app's or the operator's) ends the old link's connections; the operator's revoke too", async () => {
  const first = await createLink(shop, 'shop-customer')
  daemon.secrets.add('the wallet link', first.secret)
  const before = await connectWith(bearer(first.secret), 'first link')
  const second = await call(daemon, '/api/operator/users/wallet-link', daemon.adminToken, { identifier: 'shop-customer' })
  assert.match(second.secret, /^wl_/)
  daemon.secrets.add('the wallet link', second.secret)
  assert.is((await before.client.request('get_balance')).error?.code, 'UNAUTHORIZED', 'replaced by the operator')
  const after = await connectWith(bearer(second.secret), 'second link')
  assert.is((await after.client.call('get_balance')).balance, 2_000_000)
  const third = await createLink(shop, 'shop-customer')
  daemon.secrets.add('the wallet link', third.secret)
  assert.is((await after.client.request('get_balance')).error?.code, 'UNAUTHORIZED', 'replaced by the app')
  const last = await connectWith(bearer(third.secret), 'third link')
  assert.equal(await call(daemon, '/api/operator/users/wallet-link/revoke', daemon.adminToken, { identifier: 'shop-customer' }), { revoked: true })
  assert.is((await last.client.request('get_balance')).error?.code, 'UNAUTHORIZED', 'revoked by the operator')
  assert.ok(!(await listed(shop.userToken)).some(id => [before.id, after.id, last.id].includes(id)))
})

test("another wallet's connections made with its own link are not touched by this wallet's link ending", async () => {
  const theirs = await addAppUser(daemon, { appToken: shop.appToken, appId: shop.appId, jwtSecret, identifier: 'second-customer' })
  const theirLink = await createLink(shop, 'second-customer')
  daemon.secrets.add('the wallet link', theirLink.secret)
  const theirConnection = await connectWith(bearer(theirLink.secret), 'theirs')
  const mine = await createLink(shop, 'shop-customer')
  daemon.secrets.add('the wallet link', mine.secret)
  await connectWith(bearer(mine.secret), 'mine')
  assert.equal(await revokeLink(shop, 'shop-customer'), { status: 'OK', revoked: true })
  assert.is((await theirConnection.client.call('get_balance')).balance, 0)
  assert.equal(await listed(theirs.userToken), [theirConnection.id])
})

test.run()
