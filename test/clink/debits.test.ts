// CLINK debits (kind 21002) end to end: the real daemon on its embedded relay, the user on the Pub RPC over the
// relay (PubClient, linked key, GetLiveDebitRequests pushes), and requesters that are independent CLINK clients —
// @shocknet/clink-sdk unmodified, and a client written from the spec on nostr-tools (test/support). Money is read
// the way an app reads it and `relaypay audit` checks the books after every test.
import { WebSocket } from 'ws'
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { generateSecretKey, getPublicKey } from 'nostr-tools/pure'
import { startDaemon, type TestDaemon } from '../support/daemon.js'
import { createAppWithUser, jwtSecretConfig, type TestAppUser } from '../support/accounts.js'
import { PubClient, appProfile, type Reply } from '../support/pub-client.js'
import { ClinkDebitClient } from '../support/clink-debit-client.js'
import { assertAuditClean, balanceOf, newInvoice, ok, payFromOutside } from '../support/money.js'

// The SDK bundles its own nostr-tools, whose pool takes globalThis.WebSocket when it loads (Node 20 has none).
;(globalThis as { WebSocket?: unknown }).WebSocket = WebSocket
const { ClinkSDK, newNdebitPaymentRequest } = await import('@shocknet/clink-sdk')

const jwtSecret = 'clink-debits-test-secret-0123456789abcdef'
const test = suite('CLINK debits')
let daemon: TestDaemon
let user: PubClient
let payee: TestAppUser
let walletPubkey: string
let relay: string
let pointer: string
const clients: { close(): void }[] = []

const balance = async () => (await user.ok('GetUserInfo')).balance as number
const payeeBalance = () => balanceOf(daemon, payee.appToken, payee.identifier)
const invoice = (sats: number) => newInvoice(daemon, payee.userToken, sats)
/** The LiveDebitRequest pushed to the user for request `id`. */
const pushFor = (id: string): Promise<Reply> => user.waitFor('GetLiveDebitRequests', 60_000, reply => reply.request_id === id)

async function requester(): Promise<ClinkDebitClient> {
  const client = await ClinkDebitClient.connect(relay, walletPubkey)
  clients.push(client)
  return client
}

function sdk(secretKey = generateSecretKey()) {
  const client = new ClinkSDK({ privateKey: secretKey, relays: [relay], toPubKey: walletPubkey, defaultTimeoutSeconds: 10 })
  clients.push({ close: () => client.pool.close([relay]) })
  return { client, pubkey: getPublicKey(secretKey) }
}

/** A grant made by the user without a request to answer (the answer's request id names none). */
const grant = (npub: string, rules: unknown[]) =>
  user.ok('RespondToDebit', { request_id: 'none', npub, response: { type: 'authorize', authorize: { rules } } })
const frequencyRule = (amount: number) => ({ rule: { type: 'frequency_rule', frequency_rule: { number_of_intervals: 1, interval: 'DAY', amount } } })
const expirationRule = (at: number) => ({ rule: { type: 'expiration_rule', expiration_rule: { expires_at_unix: at } } })
const authorizations = async () => (await user.ok('GetDebitAuthorizations')).debits as { npub: string; authorized: boolean; rules: unknown[] }[]

test.before(async () => {
  daemon = await startDaemon({ config: jwtSecretConfig(jwtSecret) })
  const app = appProfile(daemon.dataDir)
  user = await PubClient.connect({ relays: app.relays, appPubkey: app.pubkey })
  clients.push(user)
  const info = await user.ok('GetUserInfo')
  const decoded = ClinkSDK.decodeBech32(info.ndebit)
  assert.is(decoded.type, 'ndebit')
  const ndebit = decoded.data as { pubkey: string; relay: string; pointer?: string }
  assert.is(ndebit.pointer, info.user_identifier)
  ;({ pubkey: walletPubkey, relay } = ndebit)
  pointer = ndebit.pointer!
  const funding = await user.ok('NewInvoice', { amountSats: 20_000, memo: 'funding' })
  await payFromOutside(daemon, funding.invoice)
  payee = await createAppWithUser(daemon, { jwtSecret, identifier: 'debit-payee' })
})
test.after(async () => {
  for (const client of clients) client.close()
  await daemon?.stop()
})
test.after.each(async () => {
  await assertAuditClean(daemon.dataDir)
})

test('a payment request from an unknown key is parked, pushed, and paid when the user approves the invoice', async () => {
  const app = await requester()
  const bolt11 = await invoice(100)
  const request = app.request({ pointer, bolt11, amount_sats: 100 })
  const pushed = pushFor(request.id)
  await app.publish(request)
  const push = await pushed
  assert.is(push.status, 'OK')
  assert.is(push.npub, app.pubkey)
  assert.equal(push.debit, { type: 'invoice', invoice: bolt11 })
  assert.is(app.answers.get(request.id), undefined, 'parked: the requester has no answer yet')

  const [before, payeeBefore] = [await balance(), await payeeBalance()]
  // The user approves twice at once (two devices): one decision acts, the other finds nothing pending.
  const approve = { request_id: request.id, npub: app.pubkey, response: { type: 'invoice', invoice: bolt11 } }
  const decisions = await Promise.all([user.call('RespondToDebit', approve), user.call('RespondToDebit', approve)])
  assert.equal(decisions.map(d => d.status).sort(), ['ERROR', 'OK'])
  const answer = await app.answer(request.id)
  assert.equal(answer.payload, { res: 'ok', preimage: '' }, 'paid internally: the preimage is empty, as upstream')
  assert.is(answer.event.kind, 21002)
  assert.equal(answer.event.tags, [['p', app.pubkey], ['e', request.id], ['clink_version', '1']], 'debit answers carry clink_version, as every CLINK answer')
  assert.is(await balance(), before - 110, '100 sats + the 10-sat service fee floor')
  assert.is(await payeeBalance(), payeeBefore + 100)
  // A one-off approval is not a grant.
  assert.not.ok((await authorizations()).some(a => a.npub === app.pubkey))
  const again = await user.call('RespondToDebit', { request_id: request.id, npub: app.pubkey, response: { type: 'denied', denied: {} } })
  assert.is(again.status, 'ERROR', 'the request was answered: nothing is pending any more')
  // Anything sent about the request came before the answer to a later one.
  assert.is((await app.send({ bolt11 })).payload.code, 1)
  assert.is(app.answers.get(request.id)!.length, 1, 'one answer to the requester')
})

test('a budget request is parked until authorized; payments then go through until the budget is spent (GFY 5 with range)', async () => {
  const { client, pubkey } = sdk()
  const budgetAnswer = client.Ndebit(ClinkSDK.newNdebitBudgetRequest({ number: 1, unit: 'day' }, 300, pointer))
  const push = await user.waitFor('GetLiveDebitRequests', 60_000, reply => reply.npub === pubkey)
  assert.equal(push.debit, { type: 'frequency', frequency: { number_of_intervals: 1, interval: 'DAY', amount: 300 } })
  await user.ok('RespondToDebit', {
    request_id: push.request_id,
    npub: pubkey,
    response: { type: 'authorize', authorize: { rules: [frequencyRule(300)] } },
  })
  assert.equal(await budgetAnswer, { res: 'ok' })
  const listed = (await authorizations()).find(a => a.npub === pubkey)!
  assert.is(listed.authorized, true)
  assert.equal(listed.rules, [frequencyRule(300)])

  const before = await balance()
  for (let i = 0; i < 2; i++) {
    const paid = await client.Ndebit(newNdebitPaymentRequest(await invoice(100), 100, pointer))
    assert.equal(paid, { res: 'ok', preimage: '' })
  }
  // 2 × 110 spent; another 110 would make 330 > 300.
  const refused = await client.Ndebit(newNdebitPaymentRequest(await invoice(100), 100, pointer))
  assert.equal(refused, { res: 'GFY', code: 5, error: 'Invalid Amount', range: { min: 1, max: 300 } })
  assert.is(await balance(), before - 220)
  // The grant stands: another budget request is answered at once.
  assert.equal(await client.Ndebit(ClinkSDK.newNdebitBudgetRequest({ number: 1, unit: 'day' }, 300, pointer)), { res: 'ok' })
})

test('an expired rule: GFY 3 and the grant is gone', async () => {
  const app = await requester()
  const nowUnix = Math.floor(Date.now() / 1000)
  await grant(app.pubkey, [expirationRule(nowUnix + 3600)])
  const before = await balance()
  assert.equal((await app.send({ pointer, bolt11: await invoice(50) })).payload, { res: 'ok', preimage: '' })
  assert.is(await balance(), before - 60)
  // EditDebit replaces the rules: now expired.
  await user.ok('EditDebit', { authorize_npub: app.pubkey, rules: [expirationRule(nowUnix - 1)] })
  const expired = await app.send({ pointer, bolt11: await invoice(50) })
  assert.equal(expired.payload, { res: 'GFY', code: 3, error: 'Expired Request' })
  assert.is(await balance(), before - 60, 'nothing paid')
  assert.not.ok((await authorizations()).some(a => a.npub === app.pubkey), 'the expired grant was removed')
  const missing = await user.call('EditDebit', { authorize_npub: app.pubkey, rules: [] })
  assert.is(missing.status, 'ERROR')
  assert.is(missing.reason, 'Debit does not exist')
})

test('a ban: the parked request is denied, every later request too (GFY 1); ResetDebit forgets the ban', async () => {
  const app = await requester()
  const bolt11 = await invoice(100)
  const parked = app.request({ pointer, bolt11 })
  const pushed = pushFor(parked.id)
  await app.publish(parked)
  await pushed
  const before = await balance()
  await user.ok('BanDebit', { npub: app.pubkey })
  assert.equal((await app.answer(parked.id)).payload, { res: 'GFY', code: 1, error: 'Request Denied' })
  assert.equal((await app.send({ pointer, bolt11: await invoice(100) })).payload, { res: 'GFY', code: 1, error: 'Request Denied' })
  assert.equal((await app.send({ pointer, amount_sats: 500, frequency: { number: 1, unit: 'week' } })).payload, { res: 'GFY', code: 1, error: 'Request Denied' })
  assert.equal((await app.send({ pointer })).payload, { res: 'GFY', code: 1, error: 'Request Denied' }, 'full access too')
  const late = app.request({ pointer, bolt11: await invoice(100) })
  assert.is(await balance(), before)
  const banned = (await authorizations()).find(a => a.npub === app.pubkey)!
  assert.is(banned.authorized, false)

  await user.ok('ResetDebit', { npub: app.pubkey })
  assert.not.ok((await authorizations()).some(a => a.npub === app.pubkey))
  const pushedAgain = pushFor(late.id)
  await app.publish(late)
  assert.equal((await pushedAgain).npub, app.pubkey, 'after the reset the key is unknown again: the user is asked')
})

test('a k1 seen before is refused (GFY 1); a denied request is answered GFY 1', async () => {
  const app = await requester()
  const first = app.request({ pointer, amount_sats: 1000, frequency: { number: 1, unit: 'month' }, k1: 'session-1' })
  const pushed = pushFor(first.id)
  await app.publish(first)
  assert.is((await pushed).k1, 'session-1')
  const repeat = await app.send({ pointer, amount_sats: 1000, frequency: { number: 1, unit: 'month' }, k1: 'session-1' })
  assert.equal(repeat.payload, { res: 'GFY', code: 1, error: 'K1 already processed' })
  await user.ok('RespondToDebit', { request_id: first.id, npub: app.pubkey, response: { type: 'denied', denied: {} } })
  assert.equal((await app.answer(first.id)).payload, { res: 'GFY', code: 1, error: 'Request Denied' })
  assert.is(app.answers.get(first.id)!.length, 1)
})

test('malformed requests: no or unknown pointer GFY 1, an amount without an invoice GFY 6, a wrong amount GFY 5', async () => {
  const app = await requester()
  const bolt11 = await invoice(100)
  assert.is((await app.send({ bolt11 })).payload.code, 1)
  assert.is((await app.send({ pointer: 'nobody-here', bolt11 })).payload.code, 1)
  assert.is((await app.send({ pointer, amount_sats: 100 })).payload.code, 6)
  assert.is((await app.send({ pointer, bolt11: 'lnbc1notaninvoice' })).payload.code, 6)
  assert.is((await app.send({ pointer, bolt11, amount_sats: 99 })).payload.code, 5)
  assert.is((await app.send({ pointer, frequency: { number: 1, unit: 'day' } })).payload.code, 5, 'a budget needs an amount')
})

test('50 concurrent debits against one budget never exceed it', async () => {
  const app = await requester()
  // 1000 sats a day; each debit costs 100 + 10 fee, so exactly 9 fit.
  await grant(app.pubkey, [frequencyRule(1000)])
  const invoices = await Promise.all(Array.from({ length: 50 }, () => invoice(100)))
  const [before, payeeBefore] = [await balance(), await payeeBalance()]
  const requests = invoices.map(bolt11 => app.request({ pointer, bolt11, amount_sats: 100 }))
  const answers = requests.map(request => app.answer(request.id, 30_000))
  await Promise.all(requests.map(request => app.publish(request)))
  const payloads = (await Promise.all(answers)).map(answer => answer.payload)
  const paid = payloads.filter(payload => payload.res === 'ok')
  const refused = payloads.filter(payload => payload.res === 'GFY')
  assert.is(paid.length, 9)
  assert.is(refused.length, 41)
  for (const payload of refused) assert.equal(payload, { res: 'GFY', code: 5, error: 'Invalid Amount', range: { min: 1, max: 1000 } })
  assert.is(await balance(), before - 990)
  assert.is(await payeeBalance(), payeeBefore + 900)
})

test.run()
