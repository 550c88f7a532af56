// CLINK manage end to end (kind 21003, as the CLINK manage spec and upstream have it): a key without a grant
// is parked and the user is asked over the relay (GetLiveManageRequests); the user's AuthorizeManage replays the
// request; a granted key manages only the offers it created; bans, resets, field validation, and a parked request
// that survives a restart. The user is a Nostr user (PubClient); managers use @shocknet/clink-sdk and a client
// written from the spec on nostr-tools.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { WebSocket } from 'ws'
import { generateSecretKey, getPublicKey } from 'nostr-tools/pure'
import { startDaemon, type TestDaemon } from '../support/daemon.js'
import { appProfile, PubClient, type Reply as PubReply } from '../support/pub-client.js'
import { decodeNmanage, decodeNoffer } from '../../src/nostr-codecs/index.js'
import { ClinkClient } from './clink-client.js'

;(globalThis as { WebSocket?: unknown }).WebSocket = WebSocket
const { ClinkSDK, newCreateRequest, newDeleteRequest, newGetRequest, newListRequest, newUpdateRequest } = await import('@shocknet/clink-sdk')

const test = suite('CLINK manage')
/** Generous: eight helpers' test suites share two cores; a slow answer is not a wrong one. */
const answerTimeoutMs = 30_000
const sdkTimeoutSeconds = answerTimeoutMs / 1000
let daemon: TestDaemon
let owner: PubClient
const ownerKey = generateSecretKey()
let pointer: string
let appPubkey: string
let relayUrl: string
const sdks: InstanceType<typeof ClinkSDK>[] = []
const clients: ClinkClient[] = []

async function connectOwner() {
  const { relays, pubkey } = appProfile(daemon.dataDir)
  owner = await PubClient.connect({ relays, appPubkey: pubkey, secretKey: ownerKey, timeoutMs: answerTimeoutMs })
  const info = await owner.ok('GetUserInfo')
  const nmanage = decodeNmanage(info.nmanage)
  pointer = nmanage.pointer!
  appPubkey = nmanage.pubkey
  relayUrl = nmanage.relay
}

test.before(async () => {
  daemon = await startDaemon({ config: '[callbacks]\nallow_loopback = false\n' })
  // uvu skips `after` when `before` fails: stop the daemon here, or its pipes keep this process alive.
  await connectOwner().catch(async err => {
    await daemon.stop()
    throw err
  })
  const log = console.log
  console.log = (...args: unknown[]) => (String(args[0]).startsWith('[ClinkSDK]') ? undefined : log(...args))
})
test.after(async () => {
  for (const sdk of sdks) sdk.pool.destroy()
  for (const client of clients) client.close()
  owner?.close()
  await daemon?.stop()
})

const manager = (secretKey = generateSecretKey()) => {
  const sdk = new ClinkSDK({ privateKey: secretKey, relays: [relayUrl], toPubKey: appPubkey })
  sdks.push(sdk)
  return { sdk, secretKey, pubkey: getPublicKey(secretKey) }
}
const handBuilt = async (secretKey: Uint8Array) => {
  const client = await ClinkClient.connect(relayUrl, appPubkey, secretKey, answerTimeoutMs)
  clients.push(client)
  return client
}
/** The next GetLiveManageRequests push to the owner naming `npub`. */
const askedAbout = (npub: string): Promise<PubReply> => owner.waitFor('GetLiveManageRequests', answerTimeoutMs, push => push.npub === npub)
const authorize = (npub: string, extra: object = {}) => owner.ok('AuthorizeManage', { authorize_npub: npub, ban: false, ...extra })

test('a manage request is parked, the owner is asked, approves, and the request is replayed', async () => {
  const m = manager()
  const asked = askedAbout(m.pubkey)
  const created = m.sdk.Nmanage(newCreateRequest('Workshop seat', { price_sats: 5000, payer_data: ['email'] }, pointer), sdkTimeoutSeconds)
  const push = await asked
  assert.is(push.npub, m.pubkey)
  assert.match(push.request_id, /^[0-9a-f]{64}$/)

  // While it waits, a second request from the same key is rate limited.
  const again = await (await handBuilt(m.secretKey)).ask(21003, newListRequest(pointer))
  assert.equal(again.payload, { res: 'GFY', code: 4, error: 'Rate Limited', retry_after: 600 })

  const grant = await authorize(m.pubkey, { request_id: push.request_id })
  assert.is(grant.authorized, true)
  assert.is(grant.npub, m.pubkey)
  assert.match(grant.manage_id, /^\d+$/)
  const answer = await created
  assert.is(answer.res, 'ok', JSON.stringify(answer))
  const details = (answer as { details: any }).details
  assert.is(details.label, 'Workshop seat')
  assert.is(details.price_sats, 5000)
  assert.equal(details.payer_data, ['email'])
  assert.equal(decodeNoffer(details.noffer), { pubkey: appPubkey, relay: relayUrl, offer: details.id, priceType: 'fixed', priceSats: 5000 })
  // The owner sees the new offer and the grant.
  const offers = await owner.ok('GetUserOffers')
  assert.ok(offers.offers.some((o: { offer_id: string }) => o.offer_id === details.id))
  const grants = await owner.ok('GetManageAuthorizations')
  assert.equal(grants.manages, [{ manage_id: grant.manage_id, authorized: true, npub: m.pubkey }])

  // Granted now: list, update, get and delete answer at once.
  const listed = await m.sdk.Nmanage(newListRequest(pointer), sdkTimeoutSeconds)
  assert.equal((listed as { details: any[] }).details.map(o => o.id), [details.id])
  const updated = await m.sdk.Nmanage(newUpdateRequest({ ...details, label: 'Workshop seat (front row)', price_sats: 7000 }), sdkTimeoutSeconds)
  assert.is((updated as { details: any }).details.label, 'Workshop seat (front row)')
  assert.is(decodeNoffer((updated as { details: any }).details.noffer).priceSats, 7000)
  assert.is(((await m.sdk.Nmanage(newGetRequest(details.id), sdkTimeoutSeconds)) as { details: any }).details.price_sats, 7000)
  assert.equal(await m.sdk.Nmanage(newDeleteRequest(details.id), sdkTimeoutSeconds), { res: 'ok', resource: 'offer' })
  const gone = await m.sdk.Nmanage(newGetRequest(details.id), sdkTimeoutSeconds)
  assert.is(gone.res, 'GFY')
  assert.is((gone as { code: number }).code, 1)
})

test('bad fields answer GFY 5 naming the field; private callback addresses are refused', async () => {
  const m = manager()
  await authorize(m.pubkey)
  const client = await handBuilt(m.secretKey)
  const create = (fields: object) => client.ask(21003, { resource: 'offer', action: 'create', pointer, offer: { fields: { label: 'ok', price_sats: 0, callback_url: '', payer_data: [], ...fields } } })
  assert.equal((await create({ label: '' })).payload, { res: 'GFY', code: 5, error: 'Invalid Field/Value', field: 'label' })
  assert.equal((await create({ price_sats: -5 })).payload, { res: 'GFY', code: 5, error: 'Invalid Field/Value', field: 'price_sats', range: { min: 0, max: 4294967295 } })
  assert.equal((await create({ price_sats: '100' })).payload.field, 'price_sats')
  assert.equal((await create({ callback_url: 'http://127.0.0.1:9/paid' })).payload.field, 'callback_url')
  assert.equal((await create({ callback_url: 'http://169.254.169.254/' })).payload.field, 'callback_url')
  assert.equal((await create({ payer_data: 'email' })).payload.field, 'payer_data')
  assert.equal((await client.ask(21003, { resource: 'wallet', action: 'list', pointer })).payload.code, 6)
  assert.equal((await client.ask(21003, { resource: 'offer', action: 'steal', pointer })).payload.code, 6)
  // The spec's create shape (fields directly on `offer`) works too.
  const made = await client.ask(21003, { resource: 'offer', action: 'create', pointer, offer: { label: 'Spec shape', price_sats: 21, callback_url: 'https://example.com/paid', payer_data: [] } })
  assert.is(made.payload.res, 'ok', JSON.stringify(made.payload))
  assert.is(made.payload.details.callback_url, 'https://example.com/paid')
})

test("a key manages only the offers it created: not the owner's, not another manager's", async () => {
  const own = await owner.ok('AddUserOffer', { label: 'Mine', price_sats: 100, callback_url: '', payer_data: [], token: '', rejectUnauthorized: true })
  const a = manager()
  const b = manager()
  await authorize(a.pubkey)
  await authorize(b.pubkey)
  const byA = await a.sdk.Nmanage(newCreateRequest("A's offer", { price_sats: 10 }, pointer), sdkTimeoutSeconds)
  const aOffer = (byA as { details: any }).details
  for (const request of [newGetRequest(own.offer_id), newDeleteRequest(own.offer_id), newUpdateRequest({ ...aOffer, id: own.offer_id })]) {
    const refused = await a.sdk.Nmanage(request, sdkTimeoutSeconds)
    assert.equal([refused.res, (refused as { code: number }).code], ['GFY', 1], JSON.stringify(refused))
  }
  for (const request of [newGetRequest(aOffer.id), newDeleteRequest(aOffer.id), newUpdateRequest({ ...aOffer, label: 'taken over' })]) {
    const refused = await b.sdk.Nmanage(request, sdkTimeoutSeconds)
    assert.equal([refused.res, (refused as { code: number }).code], ['GFY', 1], JSON.stringify(refused))
  }
  assert.equal(((await b.sdk.Nmanage(newListRequest(pointer), sdkTimeoutSeconds)) as { details: any[] }).details, [])
  assert.equal(((await a.sdk.Nmanage(newListRequest(pointer), sdkTimeoutSeconds)) as { details: any[] }).details.map(o => o.id), [aOffer.id])
  const mine = await owner.ok('GetUserOffer', { offer_id: own.offer_id })
  assert.is(mine.label, 'Mine')
})

test('a ban refuses the parked request and the ones after; ResetManage makes the key ask again', async () => {
  const m = manager()
  const client = await handBuilt(m.secretKey)
  const asked = askedAbout(m.pubkey)
  const parked = await client.send(21003, newListRequest(pointer))
  const push = await asked
  const banned = await owner.ok('AuthorizeManage', { authorize_npub: m.pubkey, request_id: push.request_id, ban: true })
  assert.is(banned.authorized, false)
  assert.equal((await parked.next()).payload, { res: 'GFY', code: 1, error: 'Request Denied' })
  parked.close()
  assert.equal((await client.ask(21003, newListRequest(pointer))).payload, { res: 'GFY', code: 1, error: 'Request Denied: App is banned' })

  await owner.ok('ResetManage', { npub: m.pubkey })
  assert.not.ok((await owner.ok('GetManageAuthorizations')).manages.some((g: { npub: string }) => g.npub === m.pubkey))
  const askedAgain = askedAbout(m.pubkey)
  const waiting = await client.send(21003, newListRequest(pointer))
  assert.is((await askedAgain).request_id, waiting.request.id)
  waiting.close()
})

test('a parked request survives a restart and is replayed when the owner approves after it', async () => {
  const m = manager()
  const client = await handBuilt(m.secretKey)
  const asked = askedAbout(m.pubkey)
  const parked = await client.send(21003, newCreateRequest('After restart', { price_sats: 99 }, pointer))
  const push = await asked
  parked.close()
  for (const c of clients.splice(0)) c.close()
  owner.close()
  await daemon.stop()

  daemon = await startDaemon({ dataDir: daemon.dataDir })
  await connectOwner()
  const again = await handBuilt(m.secretKey)
  const answer = again.follow(parked.request)
  await authorize(m.pubkey, { request_id: push.request_id })
  const reply = await answer.next()
  answer.close()
  assert.is(reply.payload.res, 'ok', JSON.stringify(reply.payload))
  assert.is(reply.payload.details.label, 'After restart')
  assert.ok((await owner.ok('GetUserOffers')).offers.some((o: { label: string }) => o.label === 'After restart'))
})

test.run()
