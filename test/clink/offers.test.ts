// CLINK offers end to end (kind 21001, as the CLINK offers spec and upstream have it): a user manages offers
// over HTTP, payers ask for invoices over the relay with two independent clients — @shocknet/clink-sdk unmodified,
// and a client written from the spec on nostr-tools — and get a receipt once the invoice is paid.
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { WebSocket } from 'ws'
import { sha256 } from '@noble/hashes/sha2.js'
import { bytesToHex } from '@noble/hashes/utils.js'
import { finalizeEvent, generateSecretKey, verifyEvent, type Event } from 'nostr-tools/pure'
import { decode as lightDecode } from 'light-bolt11-decoder'
import { startDaemon, type TestDaemon } from '../support/daemon.js'
import { addAppUser, createAppWithUser, jwtSecretConfig, type TestAppUser } from '../support/accounts.js'
import { assertAuditClean, balanceOf, call, newInvoice, ok, payFromOutside } from '../support/money.js'
import { decodeNdebit, decodeNmanage, decodeNoffer } from '../../src/nostr-codecs/index.js'
import { ClinkClient, tagOf } from './clink-client.js'

// The SDK's nostr-tools pool captures globalThis.WebSocket when it is evaluated (Node 20 has none): set it first.
;(globalThis as { WebSocket?: unknown }).WebSocket = WebSocket
const { ClinkSDK, decodeBech32 } = await import('@shocknet/clink-sdk')

const jwtSecret = 'clink-offers-test-secret-0123456789abcdef'
const test = suite('CLINK offers')
let daemon: TestDaemon
let seller: TestAppUser
let buyer: { userToken: string; userId: string; identifier: string }
let appPubkey: string
let relayUrl: string
let client: ClinkClient
let callbackServer: http.Server
let callbackBase: string
const callbacks: { url: string; authorization?: string }[] = []
const sdks: InstanceType<typeof ClinkSDK>[] = []

test.before(async () => {
  daemon = await startDaemon({
    config: `${jwtSecretConfig(jwtSecret)}[callbacks]\nallow_loopback = true\n[lnurl]\nallow_loopback = true\n`,
  })
  // uvu skips `after` when `before` fails: stop the daemon here, or its pipes keep this process alive.
  await setUp().catch(async err => {
    await daemon.stop()
    throw err
  })
  // The SDK logs every step to the console; keep test output readable.
  const log = console.log
  console.log = (...args: unknown[]) => (String(args[0]).startsWith('[ClinkSDK]') ? undefined : log(...args))
})

async function setUp() {
  seller = await createAppWithUser(daemon, { jwtSecret, identifier: 'seller' })
  buyer = await addAppUser(daemon, { appToken: seller.appToken, appId: seller.appId, jwtSecret, identifier: 'buyer' })
  await payFromOutside(daemon, await newInvoice(daemon, buyer.userToken, 50_000))
  const info = await ok(daemon, '/api/user/info', seller.userToken)
  const pointer = decodeNoffer(info.noffer)
  appPubkey = pointer.pubkey
  relayUrl = pointer.relay
  client = await ClinkClient.connect(relayUrl, appPubkey)
  callbackServer = http.createServer((req, res) => {
    callbacks.push({ url: req.url!, ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}) })
    res.end('ok')
  })
  await new Promise<void>(resolve => callbackServer.listen(0, '127.0.0.1', resolve))
  callbackBase = `http://127.0.0.1:${(callbackServer.address() as AddressInfo).port}`
}
test.after(async () => {
  for (const sdk of sdks) sdk.pool.destroy()
  client?.close()
  callbackServer?.close()
  await daemon?.stop()
})
test.after.each(async () => {
  await assertAuditClean(daemon.dataDir)
})

const user = (path: string, body: object = {}, token = seller.userToken) => call(daemon, path, token, body)
const offers = async (token = seller.userToken) =>
  (await daemon.request('GET', '/api/user/offers/get', { headers: { authorization: token } })).json
const addOffer = async (fields: object) =>
  (await ok(daemon, '/api/user/offer/add', seller.userToken, { label: 'item', price_sats: 0, callback_url: '', payer_data: [], token: '', rejectUnauthorized: true, ...fields })).offer_id as string
const sections = (bolt11: string) =>
  Object.fromEntries(lightDecode(bolt11).sections.filter(s => 'value' in s).map(s => [s.name, (s as { value: unknown }).value])) as Record<string, any>
const sdk = () => {
  const made = new ClinkSDK({ privateKey: generateSecretKey(), relays: [relayUrl], toPubKey: appPubkey })
  sdks.push(made)
  return made
}
const waitFor = async (what: () => boolean, label: string, timeoutMs = 30_000) => {
  const started = Date.now()
  while (!what()) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${label}`)
    await new Promise(resolve => setTimeout(resolve, 25))
  }
}

test('GetUserOffers creates the default offer; its noffer is the one GetUserInfo shows, with ndebit and nmanage', async () => {
  const listed = await offers()
  assert.is(listed.status, 'OK', JSON.stringify(listed))
  assert.is(listed.offers.length, 1)
  const [offer] = listed.offers
  assert.is(offer.offer_id, 'seller')
  assert.is(offer.default_offer, true)
  assert.is(offer.price_sats, 0)
  assert.equal(decodeNoffer(offer.noffer), { pubkey: appPubkey, relay: relayUrl, offer: 'seller', priceType: 'spontaneous' })
  assert.ok(offer.createdAtUnix > 1e12, 'upstream sends milliseconds')
  const info = await ok(daemon, '/api/user/info', seller.userToken)
  assert.is(info.noffer, offer.noffer)
  assert.equal(decodeNdebit(info.ndebit), { pubkey: appPubkey, relay: relayUrl, pointer: 'seller' })
  assert.equal(decodeNmanage(info.nmanage), { pubkey: appPubkey, relay: relayUrl, pointer: 'seller' })
  // Asking again creates nothing more.
  assert.is((await offers()).offers.length, 1)
})

test('offers are added, read, updated and deleted; bad fields and private callback addresses are refused', async () => {
  const id = await addOffer({ label: 'Mug', price_sats: 1500, payer_data: ['email'], callback_url: `${callbackBase}/mug`, token: 'sekret' })
  assert.match(id, /^[0-9a-f]{68}$/)
  const got = await ok(daemon, '/api/user/offer/get', seller.userToken, { offer_id: id })
  assert.is(got.label, 'Mug')
  assert.equal(got.payer_data, ['email'])
  assert.is(got.default_offer, false)
  assert.is(got.token, 'sekret')
  assert.equal(decodeBech32(got.noffer).data, { pubkey: appPubkey, relay: relayUrl, offer: id, priceType: 0, price: 1500 })

  await ok(daemon, '/api/user/offer/update', seller.userToken, {
    offer_id: id, label: 'Big mug', price_sats: 2500, callback_url: '', payer_data: [], token: '', rejectUnauthorized: true,
  })
  const updated = await ok(daemon, '/api/user/offer/get', seller.userToken, { offer_id: id })
  assert.is(updated.label, 'Big mug')
  assert.is(decodeNoffer(updated.noffer).priceSats, 2500)
  assert.ok(updated.updatedAtUnix >= updated.createdAtUnix)

  const valid = { label: 'x', price_sats: 0, callback_url: '', payer_data: [], token: '', rejectUnauthorized: true }
  for (const [fields, reason] of [
    [{ label: '' }, /label/],
    [{ price_sats: -1 }, /price_sats/],
    [{ callback_url: 'http://10.1.2.3/paid' }, /private network/],
    [{ callback_url: 'ftp://example.com/' }, /http/],
  ] as [object, RegExp][]) {
    const refused = await user('/api/user/offer/add', Object.assign({}, valid, fields))
    assert.is(refused.status, 'ERROR')
    assert.match(refused.reason, reason)
  }
  const fixedDefault = await user('/api/user/offer/update', { offer_id: 'seller', label: 'x', price_sats: 5, callback_url: '', payer_data: [], token: '', rejectUnauthorized: true })
  assert.is(fixedDefault.status, 'ERROR', 'the default offer stays "any amount"')
  // Another user cannot read it.
  assert.is((await user('/api/user/offer/get', { offer_id: id }, buyer.userToken)).status, 'ERROR')

  await ok(daemon, '/api/user/offer/delete', seller.userToken, { offer_id: id })
  assert.is((await user('/api/user/offer/get', { offer_id: id })).status, 'ERROR')
  assert.not.ok((await offers()).offers.some((o: { offer_id: string }) => o.offer_id === id))
})

test('a fixed-price offer paid through the SDK: the invoice, the receipt, the callback with payer data, the offer invoices', async () => {
  const id = await addOffer({ label: 'Coffee', price_sats: 2100, payer_data: ['email'], callback_url: `${callbackBase}/paid{?email}`, token: 'cb-token' })
  const receipts: unknown[] = []
  const answer = await sdk().Noffer(
    { offer: id, amount_sats: 5, description: 'two coffees', payer_data: { email: 'ann@example.com', phone: '123' } },
    receipt => receipts.push(receipt),
    30,
  )
  assert.ok('bolt11' in answer, JSON.stringify(answer))
  const bolt11 = (answer as { bolt11: string }).bolt11
  const invoice = sections(bolt11)
  assert.is(invoice.amount, '2100000', 'a fixed price ignores the amount asked')
  assert.is(invoice.description, 'two coffees', 'the description is the memo')

  const before = await balanceOf(daemon, seller.appToken, 'seller')
  await payFromOutside(daemon, bolt11)
  await waitFor(() => receipts.length > 0, 'the receipt')
  assert.equal(receipts, [{ res: 'ok' }])
  assert.is(await balanceOf(daemon, seller.appToken, 'seller'), before + 2100)
  await waitFor(() => callbacks.some(c => c.url.startsWith('/paid')), 'the paid callback')
  const callback = callbacks.find(c => c.url.startsWith('/paid'))!
  assert.match(callback.url, /^\/paid\?email=ann%40example\.com&ok=true$/)
  assert.is(callback.authorization, 'Bearer cb-token')

  // A second unpaid invoice for the same offer; the list shows the paid one unless asked for all.
  const unpaid = await sdk().Noffer({ offer: id, payer_data: { email: 'bob@example.com' } }, undefined, 30)
  assert.ok('bolt11' in unpaid)
  const paidOnly = await ok(daemon, '/api/user/offer/get/invoices', seller.userToken, { offer_id: id, include_unpaid: false })
  assert.equal(paidOnly.invoices.map((i: any) => [i.invoice, i.amount, i.data]), [[bolt11, 2100, { email: 'ann@example.com' }]])
  assert.ok(paidOnly.invoices[0].paid_at_unix > 1e9 && paidOnly.invoices[0].paid_at_unix < 1e11, 'seconds')
  const all = await ok(daemon, '/api/user/offer/get/invoices', seller.userToken, { offer_id: id, include_unpaid: true })
  assert.is(all.invoices.length, 2)
  assert.equal(all.invoices[1].data, { email: 'bob@example.com' })
  assert.is(all.invoices[1].paid_at_unix, 0)
  assert.is((await user('/api/user/offer/get/invoices', { offer_id: id, include_unpaid: true }, buyer.userToken)).status, 'ERROR')
})

test('a spontaneous offer outside its range answers code 5 with the range; inside it gets an invoice', async () => {
  for (const amount of [9, 10_000_001, 12.5, undefined]) {
    const { event, payload } = await client.ask(21001, { offer: 'seller', ...(amount === undefined ? {} : { amount_sats: amount }) })
    assert.equal(payload, { code: 5, error: 'Invalid Amount', range: { min: 10, max: 10_000_000 } }, `amount ${amount}`)
    assert.ok(verifyEvent(event))
    assert.is(tagOf(event, 'clink_version'), '1')
    assert.is(tagOf(event, 'p'), client.pubkey)
  }
  const { payload } = await client.ask(21001, { offer: 'seller', amount_sats: 10, expires_in_seconds: 120, description: 'x'.repeat(101) })
  const invoice = sections(payload.bolt11)
  assert.is(invoice.amount, '10000')
  assert.is(invoice.expiry, 120)
  assert.is(invoice.description, 'Default CLINK Offer', 'a description over 100 characters is not the memo')
})

test('the spec error codes: unknown offer 1, missing payer data 1 with the keys, deleted 3, unsupported version 4', async () => {
  const id = await addOffer({ label: 'Ticket', price_sats: 300, payer_data: ['name', 'seat'] })
  const expect = async (body: object, answer: object, tags?: string[][]) => assert.equal((await client.ask(21001, body, tags ? { tags } : {})).payload, answer)
  await expect({ offer: 'no-such-offer', amount_sats: 100 }, { code: 1, error: 'Invalid Offer' })
  await expect({ offer: 'q:abc' }, { code: 1, error: 'Invalid Offer' })
  await expect({ offer: id, payer_data: { name: 'Ann' } }, { code: 1, error: 'Invalid Offer', payer_data: ['name', 'seat'] })
  await expect({ offer: id, payer_data: { name: 'Ann', seat: 12 } }, { code: 1, error: 'Invalid Offer', payer_data: ['name', 'seat'] })
  await expect({ offer: id }, { code: 4, error: 'Unsupported Feature' }, [['p', appPubkey], ['clink_version', '2']])
  assert.ok((await client.ask(21001, { offer: id, payer_data: { name: 'Ann', seat: '12A' } })).payload.bolt11)
  await ok(daemon, '/api/user/offer/delete', seller.userToken, { offer_id: id })
  await expect({ offer: id, payer_data: { name: 'Ann', seat: '12A' } }, { code: 3, error: 'Expired Offer' })
  // Another app's key does not serve this app's users.
  const other = await createAppWithUser(daemon, { jwtSecret, identifier: 'elsewhere' })
  const otherKey = decodeNoffer((await ok(daemon, '/api/user/info', other.userToken)).noffer).pubkey
  const elsewhere = await ClinkClient.connect(relayUrl, otherKey)
  assert.equal((await elsewhere.ask(21001, { offer: 'seller', amount_sats: 100 })).payload, { code: 1, error: 'Invalid Offer' })
  assert.ok((await elsewhere.ask(21001, { offer: 'elsewhere', amount_sats: 100 })).payload.bolt11)
  elsewhere.close()
})

test('paid from another wallet of the service, the requester still gets exactly one receipt', async () => {
  const exchange = await client.send(21001, { offer: 'seller', amount_sats: 777 })
  const first = await exchange.next()
  assert.ok(first.payload.bolt11)
  assert.is(tagOf(first.event, 'e'), exchange.request.id)
  await ok(daemon, '/api/user/invoice/pay', buyer.userToken, { invoice: first.payload.bolt11, amount: 0 })
  const receipt = await exchange.next()
  assert.equal(receipt.payload, { res: 'ok' })
  assert.is(receipt.event.kind, 21001)
  assert.is(tagOf(receipt.event, 'e'), exchange.request.id)
  assert.is(tagOf(receipt.event, 'p'), client.pubkey)
  assert.is(tagOf(receipt.event, 'clink_version'), '1')
  await new Promise(resolve => setTimeout(resolve, 300))
  assert.is(exchange.replies.length, 2, 'one answer, one receipt')
  exchange.close()
})

test('a zap offer: the invoice commits to the zap request and a kind-9735 receipt follows the payment', async () => {
  const zapper = generateSecretKey()
  const zap = finalizeEvent(
    { kind: 9734, content: 'great post', created_at: Math.floor(Date.now() / 1000), tags: [['p', 'b'.repeat(64)], ['e', 'e'.repeat(64)], ['relays', relayUrl], ['amount', '21000']] },
    zapper,
  )
  const json = JSON.stringify(zap)
  const exchange = await client.send(21001, { offer: 'seller', amount_sats: 21, zap: json })
  const { payload } = await exchange.next()
  assert.ok(payload.bolt11, JSON.stringify(payload))
  assert.is(sections(payload.bolt11).description_hash, bytesToHex(sha256(new TextEncoder().encode(json))))
  const zapReceipt = new Promise<Event>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no zap receipt')), 30_000)
    const sub = client.connection.subscribe([{ kinds: [9735], '#p': ['b'.repeat(64)] }], {
      onevent(event) {
        if (event.tags.some(t => t[0] === 'bolt11' && t[1] === payload.bolt11)) {
          clearTimeout(timer)
          sub.close()
          resolve(event)
        }
      },
    })
  })
  await payFromOutside(daemon, payload.bolt11)
  const receipt = await zapReceipt
  assert.is(receipt.pubkey, appPubkey)
  assert.is(receipt.tags.find(t => t[0] === 'description')?.[1], json)
  assert.equal((await exchange.next()).payload, { res: 'ok' })
  exchange.close()
  // A zap whose amount disagrees with the request is refused.
  assert.equal((await client.ask(21001, { offer: 'seller', amount_sats: 22, zap: json })).payload, { code: 1, error: 'Invalid Offer' })
  // So is one that names no relay its receipt could go to, with the reason, before any invoice exists.
  const unreachable = finalizeEvent(
    { kind: 9734, content: '', created_at: Math.floor(Date.now() / 1000), tags: [['p', 'b'.repeat(64)], ['relays', 'ws://10.1.2.3:7000'], ['amount', '21000']] },
    zapper,
  )
  assert.equal((await client.ask(21001, { offer: 'seller', amount_sats: 21, zap: JSON.stringify(unreachable) })).payload, {
    code: 1,
    error: 'Invalid Offer: zap request names no relay its receipt can be published to: relay URL points into a private network',
  })
})

test('a product offer (p:<id>) gets an invoice at the product price', async () => {
  const product = await ok(daemon, '/api/user/product/add', seller.userToken, { name: 'Sticker', price_sats: 42 })
  const pointer = decodeNoffer(product.noffer)
  assert.is(pointer.offer, `p:${product.id}`)
  const { payload } = await client.ask(21001, { offer: pointer.offer })
  assert.is(sections(payload.bolt11).amount, '42000')
  assert.is(sections(payload.bolt11).description, 'Sticker')
  assert.equal((await client.ask(21001, { offer: 'p:00000000-0000-4000-8000-000000000000' })).payload, { code: 1, error: 'Invalid Offer' })
})

test.run()
