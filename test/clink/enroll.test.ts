// CLINK enroll (kind 21004, from Lightning.Pub's next version) end to end over the daemon's relay: a client written
// from the wire on nostr-tools mines its request (NIP-13), opens an account with it and reads its three pointers,
// which must be exactly what @shocknet/clink-sdk encodes; each refusal in upstream's codes and words; then the
// account in use with the SDK as a real client: its offer paid, its own key debiting and managing without a grant,
// strangers refused at once; the node's budget of new accounts and a key's three answers a minute.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { WebSocket } from 'ws'
import { finalizeEvent, generateSecretKey, getPublicKey, type Event } from 'nostr-tools/pure'
import * as nip19 from 'nostr-tools/nip19'
import { startDaemon, type TestDaemon } from '../support/daemon.js'
import { appProfile } from '../support/pub-client.js'
import { createAppWithUser, jwtSecretConfig, type TestAppUser } from '../support/accounts.js'
import { newInvoice, ok, payFromOutside } from '../support/money.js'
import { until } from '../support/until.js'
import { ClinkClient, tagOf, type EnrollOptions } from './clink-client.js'
// The SDK's nostr-tools pool captures globalThis.WebSocket when it is evaluated (Node 20 has none): set it first.
;(globalThis as { WebSocket?: unknown }).WebSocket = WebSocket
const { ClinkSDK, nofferEncode, ndebitEncode, nmanageEncode, newListRequest, newNdebitPaymentRequest } = await import('@shocknet/clink-sdk')

const jwtSecret = 'clink-enroll-test-secret-0123456789abcdef'
const powBits = 8
/** The operator the clink-node beacon names. */
const operator = getPublicKey(generateSecretKey())
const test = suite('CLINK enroll')
let daemon: TestDaemon
let appPubkey: string
let relayUrl: string
let payee: TestAppUser
const clients: ClinkClient[] = []
const sdks: InstanceType<typeof ClinkSDK>[] = []
const enrolled = generateSecretKey()
let identifier: string

/** An enroll request of `secretKey` (mined to `opts.pow` bits) and its first answer. */
async function enroll(secretKey: Uint8Array, opts: EnrollOptions = {}): Promise<{ request: Event; payload: any; event: Event }> {
  const client = await ClinkClient.connect(relayUrl, appPubkey, secretKey)
  clients.push(client)
  return client.enroll(opts)
}

const admin = () => `Bearer ${daemon.adminToken}`
const walletOf = async (npub: string) =>
  ((await ok(daemon, '/api/admin/users/info', admin(), { take: 50 })).users as any[]).find(user => user.app_users[0]?.npub === npub)

test.before(async () => {
  daemon = await startDaemon({
    config: `${jwtSecretConfig(jwtSecret)}[clink]\nenroll_pow_bits = ${powBits}\noperator = "${nip19.npubEncode(operator)}"\nbeacon_website = " https://node.example "\nbeacon_description = "A test node"\nbeacon_avatar_url = "https://node.example/avatar.png"\nenroll_accounts_per_minute = 4\n`,
  })
  const profile = appProfile(daemon.dataDir)
  appPubkey = profile.pubkey
  relayUrl = profile.relays[0]!
  payee = await createAppWithUser(daemon, { jwtSecret, identifier: 'payee' })
  const log = console.log
  console.log = (...args: unknown[]) => (String(args[0]).startsWith('[ClinkSDK]') ? undefined : log(...args))
})
test.after(async () => {
  for (const sdk of sdks) sdk.pool.destroy()
  for (const client of clients) client.close()
  await daemon?.stop()
})

test('a new key with proof of work opens an account and gets its pointers, as the CLINK SDK encodes them', async () => {
  const { request, payload, event } = await enroll(enrolled, { pow: powBits })
  assert.is(payload.res, 'ok', JSON.stringify(payload))
  assert.equal(event.tags, [['p', getPublicKey(enrolled)], ['e', request.id], ['clink_version', '1']])
  assert.is(event.pubkey, appPubkey, 'signed by the app key it addressed')
  const offer = ClinkSDK.decodeBech32(payload.noffer).data as { offer: string }
  identifier = offer.offer
  assert.match(identifier, /^[0-9a-f]{64}$/)
  assert.is(payload.noffer, nofferEncode({ pubkey: appPubkey, relay: relayUrl, offer: identifier, priceType: 2 }))
  assert.is(payload.ndebit, ndebitEncode({ pubkey: appPubkey, relay: relayUrl, pointer: identifier }))
  assert.is(payload.nmanage, nmanageEncode({ pubkey: appPubkey, relay: relayUrl, pointer: identifier }))
  const wallet = await walletOf(getPublicKey(enrolled))
  assert.is(wallet?.app_users[0].app_user_id, identifier, 'the account is the enrolled key\'s')
})

test('the key enrolls again without proof of work and gets the same account; nothing new is opened', async () => {
  const { total } = await ok(daemon, '/api/admin/users/info', admin(), {})
  const { payload } = await enroll(enrolled)
  assert.is(payload.res, 'ok')
  assert.is((ClinkSDK.decodeBech32(payload.ndebit).data as { pointer: string }).pointer, identifier)
  assert.is((await ok(daemon, '/api/admin/users/info', admin(), {})).total, total)
})

test("refusals in upstream's codes and words: proof of work, the clock, the version tag, the body", async () => {
  const stranger = generateSecretKey()
  assert.equal((await enroll(stranger)).payload, { res: 'GFY', code: 5, error: 'Insufficient proof of work', required_difficulty: powBits })
  // A nonce tag that commits to less than the node asks.
  const weak = await enroll(stranger, { pow: 2 })
  assert.equal(weak.payload, { res: 'GFY', code: 5, error: 'Insufficient proof of work', required_difficulty: powBits })
  const late = await enroll(stranger, { pow: powBits, createdAt: Math.floor(Date.now() / 1000) - 120 })
  assert.is(late.payload.code, 3, JSON.stringify(late.payload))
  assert.is(late.payload.error, 'Expired Request')
  assert.is(late.payload.delta.max_delta_ms, 30_000)
  assert.ok(late.payload.delta.actual_delta_ms >= 90_000, JSON.stringify(late.payload))
  const other = generateSecretKey()
  const invalid = { res: 'GFY', code: 6, error: 'Invalid Request' }
  assert.equal((await enroll(other, { pow: powBits, tags: [['p', appPubkey]] })).payload, invalid)
  assert.equal((await enroll(other, { pow: powBits, tags: [['p', appPubkey], ['clink_version', '2']] })).payload, invalid)
  assert.equal((await enroll(other, { pow: powBits, body: [] })).payload, invalid)
  assert.is(await walletOf(getPublicKey(stranger)), undefined, 'no account for a refused key')
})

test('the enrolled account in use with the SDK: its offer paid, its own key debits and manages without a grant, strangers refused', async () => {
  // A payer asks the account's offer for an invoice, which is paid from outside: the account holds 2,000 sats.
  const payer = new ClinkSDK({ privateKey: generateSecretKey(), relays: [relayUrl], toPubKey: appPubkey })
  sdks.push(payer)
  const offered = (await payer.Noffer({ offer: identifier, amount_sats: 2_000 }, undefined, 30)) as { bolt11?: string }
  assert.ok(offered.bolt11, JSON.stringify(offered))
  await payFromOutside(daemon, offered.bolt11!)
  assert.is((await walletOf(getPublicKey(enrolled))).balance, 2_000)

  // The account's own key pays an invoice by ndebit, with no grant given, and lists its offers by nmanage.
  const own = new ClinkSDK({ privateKey: enrolled, relays: [relayUrl], toPubKey: appPubkey })
  sdks.push(own)
  const paid = await own.Ndebit(newNdebitPaymentRequest(await newInvoice(daemon, payee.userToken, 500), 500, identifier), 30)
  assert.is((paid as { res: string }).res, 'ok', JSON.stringify(paid))
  const after = (await walletOf(getPublicKey(enrolled))).balance
  assert.ok(after < 1_500 && after >= 1_400, `debited 500 and its fee: ${after}`)
  const listed = (await own.Nmanage(newListRequest(identifier), 30)) as { res: string; details?: unknown }
  assert.is(listed.res, 'ok', JSON.stringify(listed))
  assert.ok(Array.isArray(listed.details))

  // Another key is refused at once (no grant to ask for: the account is owner-only), and nothing moves.
  const stranger = new ClinkSDK({ privateKey: generateSecretKey(), relays: [relayUrl], toPubKey: appPubkey })
  sdks.push(stranger)
  const debit = await stranger.Ndebit(newNdebitPaymentRequest(await newInvoice(daemon, payee.userToken, 100), 100, identifier), 30)
  assert.equal(debit, { res: 'GFY', code: 1, error: 'Request Denied' })
  const manage = await stranger.Nmanage(newListRequest(identifier), 30)
  assert.equal(manage, { res: 'GFY', code: 1, error: 'Request Denied' })
  assert.is((await walletOf(getPublicKey(enrolled))).balance, after)
})

test("each app's clink-node beacon names its relays, fees, the CLINK kinds and the enroll difficulty", async () => {
  const client = await ClinkClient.connect(relayUrl, appPubkey)
  clients.push(client)
  const beacon = await new Promise<Event>(resolve => {
    const sub = client.connection.subscribe([{ kinds: [30078], '#d': ['clink-node'], authors: [appPubkey] }], {
      onevent: event => {
        sub.close()
        resolve(event)
      },
    })
  })
  // The operator given as an npub is named in hex; the texts are trimmed; upstream's order of keys.
  assert.equal(beacon.tags, [['d', 'clink-node'], ['clink_version', '1'], ['operator', operator]])
  const content = JSON.parse(beacon.content)
  assert.equal(Object.keys(content), ['name', 'relays', 'fees', 'supported_kinds', 'avatarUrl', 'website', 'description', 'enroll_difficulty'])
  assert.is(content.avatarUrl, 'https://node.example/avatar.png')
  // The legacy beacon names it too, after the name, as upstream's does.
  const legacy = await new Promise<Event>(resolve => {
    const sub = client.connection.subscribe([{ kinds: [30078], '#d': ['Lightning.Pub'], authors: [appPubkey] }], {
      onevent: event => {
        sub.close()
        resolve(event)
      },
    })
  })
  assert.equal(Object.keys(JSON.parse(legacy.content)), ['type', 'name', 'avatarUrl', 'fees'])
  assert.is(content.website, 'https://node.example')
  assert.is(content.description, 'A test node')
  assert.equal(content.relays, [relayUrl])
  assert.equal(content.supported_kinds, [21001, 21002, 21003, 21004])
  assert.is(content.enroll_difficulty, powBits)
  assert.equal(Object.keys(content.fees), ['serviceFeeFloor', 'serviceFeeBps'])
})

test('a key hears at most three answers a minute; what it asked beyond them is not answered', async () => {
  const chatty = generateSecretKey()
  for (let i = 0; i < 3; i++) assert.is((await enroll(chatty, { pow: powBits })).payload.res, 'ok')
  const client = await ClinkClient.connect(relayUrl, appPubkey, chatty)
  clients.push(client)
  const fourth = finalizeEvent({ kind: 21004, created_at: Math.floor(Date.now() / 1000), tags: [['p', appPubkey], ['clink_version', '1']], content: client.encrypt({}) }, chatty)
  const exchange = await client.publish(fourth)
  await until(() => daemon.logs().includes(`"id":"${fourth.id}"`) && /answer held back/.test(daemon.logs()), 'the fourth answer held back', 30_000)
  assert.is(exchange.replies.length, 0)
  exchange.close()
})

test("new accounts beyond the node's budget are refused with code 4 and when to try again", async () => {
  let refused: any
  for (let i = 0; i < 6 && !refused; i++) {
    const { payload } = await enroll(generateSecretKey(), { pow: powBits })
    if (payload.res !== 'ok') refused = payload
  }
  assert.ok(refused, 'the budget of four a minute ran out')
  assert.is(refused.code, 4)
  assert.is(refused.error, 'Rate limited')
  assert.ok(refused.retry_after > Date.now() / 1000 && refused.retry_after < Date.now() / 1000 + 120, JSON.stringify(refused))
  assert.is(tagOf((await enroll(generateSecretKey(), { pow: powBits })).event, 'clink_version'), '1')
})

test.run()
