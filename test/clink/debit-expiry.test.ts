// Parked CLINK debit requests expire (`[clink] debit_request_seconds`): the requester hears GFY 3 "Expired
// Request" with the spec's delta, the user can no longer decide the request (RespondToDebit answers not_found), and
// the expiry is stored with the request, so a restart neither forgets it nor recomputes it from a changed setting.
// The user is a Nostr user (PubClient on the linked key the pushes go to); requesters are the independent client.
import net from 'node:net'
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { startDaemon, type TestDaemon } from '../support/daemon.js'
import { jwtSecretConfig } from '../support/accounts.js'
import { PubClient, appProfile } from '../support/pub-client.js'
import { ClinkDebitClient } from '../support/clink-debit-client.js'
import { assertAuditClean, payFromOutside } from '../support/money.js'

const jwtSecret = 'clink-debit-expiry-secret-0123456789abcdef'
const test = suite('parked CLINK debit requests expire')
let daemon: TestDaemon
let dataDir: string
let relayPort: number
let owner: PubClient
let ownerKey: Uint8Array
let walletPubkey: string
let pointer: string
let relay: string
const clients: { close(): void }[] = []

const freePort = () =>
  new Promise<number>(resolve => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
  })
const sleep = (ms: number) => new Promise(resolve => setTimeout(resolve, ms))

/** (Re)starts the daemon with parked requests living `seconds`; the relay keeps its port, the owner reconnects. */
async function start(seconds: number) {
  owner?.close()
  daemon = await startDaemon({
    ...(dataDir ? { dataDir } : {}),
    config: `${jwtSecretConfig(jwtSecret)}[clink]\ndebit_request_seconds = ${seconds}\n`,
    env: { RELAYPAY_NOSTR_EMBEDDED_RELAY_PORT: String(relayPort) },
  })
  dataDir = daemon.dataDir
  const profile = appProfile(dataDir)
  owner = await PubClient.connect({ relays: profile.relays, appPubkey: profile.pubkey, ...(ownerKey ? { secretKey: ownerKey } : {}) })
  ownerKey = owner.secretKey
}

async function requester(secretKey?: Uint8Array, sinceSeconds?: number) {
  const client = await ClinkDebitClient.connect(relay, walletPubkey, secretKey, sinceSeconds)
  clients.push(client)
  return client
}

/** Publishes a payment request and waits until the owner was asked about it. */
async function parkPayment(client: ClinkDebitClient) {
  const { invoice } = await owner.ok('NewInvoice', { amountSats: 50, memo: 'to be debited' })
  const request = client.request({ pointer, bolt11: invoice, amount_sats: 50 })
  const pushed = owner.waitFor('GetLiveDebitRequests', 15_000, reply => reply.request_id === request.id)
  await client.publish(request)
  await pushed
  return request
}

test.before(async () => {
  relayPort = await freePort()
  await start(2)
  const info = await owner.ok('GetUserInfo')
  const { ClinkSDK } = await import('@shocknet/clink-sdk')
  ;({ pubkey: walletPubkey, relay, pointer } = ClinkSDK.decodeBech32(info.ndebit).data as { pubkey: string; relay: string; pointer: string })
  const funding = await owner.ok('NewInvoice', { amountSats: 5000, memo: 'funding' })
  await payFromOutside(daemon, funding.invoice)
})
test.after(async () => {
  for (const client of clients) client.close()
  owner?.close()
  await daemon?.stop()
})
test.after.each(async () => {
  await assertAuditClean(daemon.dataDir)
})

test('an undecided request is answered GFY 3 with its delta when its time runs out, and can no longer be decided', async () => {
  const client = await requester()
  const before = (await owner.ok('GetUserInfo')).balance
  const request = await parkPayment(client)
  const answer = await client.answer(request.id, 30_000)
  assert.is(answer.payload.res, 'GFY')
  assert.is(answer.payload.code, 3)
  assert.is(answer.payload.error, 'Expired Request')
  assert.is(answer.payload.delta.max_delta_ms, 2000)
  assert.ok(answer.payload.delta.actual_delta_ms >= 2000, JSON.stringify(answer.payload))
  assert.equal(answer.event.tags, [['p', client.pubkey], ['e', request.id], ['clink_version', '1']])

  for (const response of [{ type: 'invoice', invoice: request.id }, { type: 'denied', denied: {} }]) {
    const decided = await owner.call('RespondToDebit', { request_id: request.id, npub: client.pubkey, response })
    assert.is(decided.status, 'ERROR')
    assert.match(decided.reason, /no pending debit request .*expired/)
  }
  assert.is((await owner.ok('GetUserInfo')).balance, before, 'nothing was paid')
  await sleep(500)
  assert.is(client.answers.get(request.id)!.length, 1, 'one answer')
})

test('the expiry is stored: a restart with another setting neither extends nor shortens a parked request', async () => {
  // Parked with ten minutes to live, then the daemon restarts with two seconds: the request keeps its ten minutes.
  await daemon.stop()
  await start(600)
  let patient = await requester()
  const longLived = await parkPayment(patient)
  patient.close()
  await daemon.stop()
  await start(2)
  patient = await requester(patient.secretKey, 120)
  await sleep(3000)
  const denied = await owner.call('RespondToDebit', { request_id: longLived.id, npub: patient.pubkey, response: { type: 'denied', denied: {} } })
  assert.is(denied.status, 'OK', JSON.stringify(denied))
  assert.is((await patient.answer(longLived.id, 15_000)).payload.code, 1, 'the user denied it: GFY 1')

  // Parked with two seconds to live, and the daemon is down when they run out: answered once it is back.
  let hasty = await requester()
  const shortLived = await parkPayment(hasty)
  hasty.close()
  await daemon.stop()
  await sleep(2500)
  await start(600)
  hasty = await requester(hasty.secretKey, 120)
  const answer = await hasty.answer(shortLived.id, 30_000)
  assert.is(answer.payload.code, 3, JSON.stringify(answer.payload))
  const late = await owner.call('RespondToDebit', { request_id: shortLived.id, npub: hasty.pubkey, response: { type: 'denied', denied: {} } })
  assert.is(late.status, 'ERROR')
  await sleep(500)
  assert.is(hasty.answers.get(shortLived.id)!.length, 1, 'one answer')
})

test('authorizing the key of an expired request saves the grant but says its invoice was not paid', async () => {
  await daemon.stop()
  await start(2)
  const client = await requester()
  const request = await parkPayment(client)
  assert.is((await client.answer(request.id, 30_000)).payload.code, 3)
  const { invoice } = await owner.ok('NewInvoice', { amountSats: 50, memo: 'too late' })
  const rules = [{ rule: { type: 'frequency_rule', frequency_rule: { number_of_intervals: 1, interval: 'DAY', amount: 1000 } } }]
  const answer = await owner.call('RespondToDebit', {
    request_id: request.id,
    npub: client.pubkey,
    response: { type: 'authorize', authorize: { rules, invoice } },
  })
  assert.is(answer.status, 'ERROR')
  assert.match(answer.reason, /invoice was not paid/)
  const grants = (await owner.ok('GetDebitAuthorizations')).debits as { npub: string; authorized: boolean }[]
  assert.ok(grants.some(grant => grant.npub === client.pubkey && grant.authorized))
})

test.run()
