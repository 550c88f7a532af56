// Replayed, stale, future-dated and forged events, for the RPC transport (kind 21000) and for Nostr Wallet Connect
// (kind 23194). The daemon listens on two standalone relays that accept anything — signatures unchecked, so a
// forged event reaches it — and a replay is published to the relay that has not seen the event yet, as an attacker
// who captured it would. What test/transports/nostr/delivery.test.ts already proves (a second relay's copy of a
// request answered with the stored reply, a tampered content dropped, redelivery after a restart) is not repeated.
import fs from 'node:fs'
import path from 'node:path'
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { WebSocket } from 'ws'
import { getEventHash, finalizeEvent, generateSecretKey, type Event } from 'nostr-tools/pure'
import { Relay, useWebSocketImplementation } from 'nostr-tools/relay'
import { startRelay, type RunningRelay } from '../../src/relay/index.js'
import { startDaemon, tempDataDir, type TestDaemon } from '../support/daemon.js'
import { addAppUser, createAppWithUser, jwtSecretConfig, type TestAppUser } from '../support/accounts.js'
import { appProfile, PubClient, sleep } from '../support/pub-client.js'
import { NwcTestClient } from '../support/nwc-client.js'
import { balanceOf, newInvoice, ok } from '../support/money.js'

useWebSocketImplementation(WebSocket)

const jwtSecret = 'nostr-replay-test-secret-0123456789abcdef'
const maxEventAgeSeconds = 10
const test = suite('replayed, stale and forged events')
const relays: RunningRelay[] = []
let daemon: TestDaemon
let payer: TestAppUser
let payee: { userToken: string; userId: string; identifier: string }
const closers: (() => void)[] = []

test.before(async () => {
  for (let i = 0; i < 2; i++) relays.push(await startRelay({ host: '127.0.0.1', port: 0, dataDir: tempDataDir(), verifyEvent: () => true }))
  daemon = await startDaemon({
    config: `${jwtSecretConfig(jwtSecret)}[nostr]\nrelays = [${relays.map(r => `"${r.url}"`).join(', ')}]\nmax_event_age_seconds = ${maxEventAgeSeconds}\n`,
  })
  payer = await createAppWithUser(daemon, { jwtSecret, identifier: 'replay-payer' })
  payee = await addAppUser(daemon, { appToken: payer.appToken, appId: payer.appId, jwtSecret, identifier: 'replay-payee' })
  await ok(daemon, '/api/app/mock/user/blance/set', payer.appToken, { user_identifier: 'replay-payer', amount: 50_000 })
})
test.after(async () => {
  closers.forEach(close => close())
  await daemon?.stop()
  for (const relay of relays) await relay.close()
})

/** Publishes a raw event to one relay, the way an attacker with a plain connection would. */
async function publishTo(relayIndex: number, event: Event): Promise<void> {
  const relay = await Relay.connect(relays[relayIndex]!.url)
  try {
    await relay.publish(event).catch(() => undefined)
  } finally {
    relay.close()
  }
}

/** The same event re-dated and re-hashed under the original signature: a valid id, a signature that no longer fits. */
function redated(event: Event, createdAt: number): Event {
  const copy = { ...event, created_at: createdAt }
  return { ...copy, id: getEventHash(copy) }
}

const now = () => Math.floor(Date.now() / 1000)

async function rpcClient(): Promise<PubClient> {
  const profile = appProfile(daemon.dataDir)
  const client = await PubClient.connect({ relays: [relays[0]!.url], appPubkey: profile.pubkey, timeoutMs: 15_000 })
  closers.push(() => client.close())
  return client
}
const keysOf = (reply: Record<string, unknown>) => `${reply.admin_key}/${reply.invoice_key}`

test('kind 21000: an event re-dated under its old signature is dropped and changes nothing', async () => {
  const client = await rpcClient()
  const before = keysOf(await client.ok('GetWalletKeys'))
  const { event, requestId } = client.request('RotateWalletKeys')
  await publishTo(1, redated(event, now() + 1))
  await client.ok('GetWalletKeys')
  await sleep(300)
  assert.equal(client.messages(requestId), [])
  assert.is(keysOf(await client.ok('GetWalletKeys')), before)
  assert.match(daemon.logs(), /bad id or signature/)
})

test("kind 21000: a request signed by another key in the enrolled admin's name is dropped", async () => {
  const admin = await rpcClient()
  const token = fs.readFileSync(path.join(daemon.dataDir, 'admin.connect'), 'utf8').trim().split(':')[1]!
  assert.is((await admin.call('EnrollAdminToken', { admin_token: token })).status, 'OK')
  const genuine = admin.request('CreateOneTimeInviteLink', { sats: 0 })
  // The attacker signs the admin's envelope with its own key but keeps the admin's pubkey on the event.
  const forged = finalizeEvent({ kind: genuine.event.kind, created_at: now(), tags: genuine.event.tags, content: genuine.event.content }, generateSecretKey())
  const impersonating = { ...forged, pubkey: admin.pubkey }
  await publishTo(1, { ...impersonating, id: getEventHash(impersonating) })
  await admin.ok('GetWalletKeys')
  await sleep(300)
  assert.equal(admin.messages(genuine.requestId), [])
})

test('kind 21000: a request replayed after max_event_age_seconds is refused as stale, not run again', async () => {
  const client = await rpcClient()
  const { event, requestId } = client.request('RotateWalletKeys')
  const first = client.waitFor(requestId)
  await client.publish(event, [relays[0]!.url])
  const keys = keysOf(await first)
  // Past the age limit the processed-request record may be pruned: the age check is what refuses the replay.
  await sleep((maxEventAgeSeconds + 2) * 1000)
  await publishTo(1, event)
  await client.ok('GetWalletKeys')
  await sleep(300)
  assert.is(client.messages(requestId).length, 1, 'answered once')
  assert.is(keysOf(await client.ok('GetWalletKeys')), keys, 'rotated once')
})

async function nwcClient(): Promise<NwcTestClient> {
  const created = await ok(daemon, '/api/user/nwc/create', `Bearer ${payer.userToken}`, { name: 'replay test' })
  const client = await NwcTestClient.connect(created.connection_uri, relays[0]!.url)
  closers.push(() => client.close())
  return client
}

test('NWC: the same pay_invoice event replayed through another relay pays once and answers the same', async () => {
  const client = await nwcClient()
  const invoice = await newInvoice(daemon, payee.userToken, 300)
  const request = client.buildRequest('pay_invoice', { invoice })
  const response = await client.send(request)
  assert.is(response.error, null)
  const afterFirst = await balanceOf(daemon, payer.appToken, 'replay-payer')
  await publishTo(1, request)
  await client.call('get_balance')
  await sleep(300)
  assert.is(await balanceOf(daemon, payer.appToken, 'replay-payer'), afterFirst, 'paid once')
  for (const again of client.responses.filter(r => r.requestId === request.id)) assert.equal(again.response, response)
  assert.is(await balanceOf(daemon, payer.appToken, 'replay-payee'), 300)
})

test('NWC: stale, future-dated, expired, re-dated and forged requests get no answer and move nothing', async () => {
  const client = await nwcClient()
  const before = await balanceOf(daemon, payer.appToken, 'replay-payer')
  const invoices = await Promise.all([1, 2, 3, 4, 5].map(() => newInvoice(daemon, payee.userToken, 50)))
  const build = (invoice: string, createdAt: number, extraTags: string[][] = []) => {
    const base = client.buildRequest('pay_invoice', { invoice })
    return finalizeEvent({ kind: base.kind, created_at: createdAt, tags: [...base.tags, ...extraTags], content: base.content }, client.connection.secret)
  }
  const stale = build(invoices[0]!, now() - maxEventAgeSeconds - 60)
  const future = build(invoices[1]!, now() + 120)
  const expired = build(invoices[2]!, now(), [['expiration', String(now() - 1)]])
  const reDated = redated(build(invoices[3]!, now()), now() + 2)
  const foreignSigned = finalizeEvent({ kind: 23194, created_at: now(), tags: [['p', client.connection.servicePubkey]], content: build(invoices[4]!, now()).content }, generateSecretKey())
  const forged = { ...foreignSigned, pubkey: client.clientPubkey }
  const refused = [stale, future, expired, reDated, { ...forged, id: getEventHash(forged) }]
  for (const event of refused) await publishTo(0, event)
  await client.call('get_balance') // answered after the refused ones were delivered
  await sleep(300)
  for (const event of refused) assert.equal(client.responses.filter(r => r.requestId === event.id), [], `answered ${event.id}`)
  assert.is(await balanceOf(daemon, payer.appToken, 'replay-payer'), before)
})

test("NWC: a correctly signed request from a key that is not the connection's client is UNAUTHORIZED", async () => {
  const client = await nwcClient()
  const before = await balanceOf(daemon, payer.appToken, 'replay-payer')
  const invoice = await newInvoice(daemon, payee.userToken, 40)
  const intruder = client.buildRequest('pay_invoice', { invoice }, 'nip44_v2', generateSecretKey())
  // The answer (UNAUTHORIZED) goes to the intruder's key, which this client does not listen for; what matters is
  // that nothing was paid.
  await publishTo(0, intruder)
  await client.call('get_balance')
  await sleep(300)
  assert.is(await balanceOf(daemon, payer.appToken, 'replay-payer'), before)
})

test.run()
