// Nostr Wallet Connect against the real daemon on its embedded relay, through an independent NIP-47 client
// (test/support/nwc-client.ts): connections made over HTTP, then every method, budgets, permissions, revocation,
// notifications, both encryptions, and a request delivered again after a restart answered without paying twice.
import fs from 'node:fs'
import path from 'node:path'
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { startDaemon, type TestDaemon } from '../support/daemon.js'
import { addAppUser, createAppWithUser, jwtSecretConfig, type TestAppUser } from '../support/accounts.js'
import { NwcTestClient } from '../support/nwc-client.js'
import { assertAuditClean, balanceOf, newInvoice, ok } from '../support/money.js'

const jwtSecret = 'nwc-test-secret-0123456789abcdef0123'
const test = suite('NIP-47 wallet connect')
let daemon: TestDaemon
let payer: TestAppUser
let payee: { userToken: string; userId: string; identifier: string }
const clients: NwcTestClient[] = []

const createConnection = async (userToken: string, body: object = {}) =>
  ok(daemon, '/api/user/nwc/create', userToken, { name: 'test app', ...body })

const connect = async (uri: string) => {
  const client = await NwcTestClient.connect(uri, relayUrl())
  clients.push(client)
  return client
}

const relayUrl = (): string => JSON.parse(fs.readFileSync(path.join(daemon.dataDir, 'daemon.json'), 'utf8')).relays[0]

test.before(async () => {
  daemon = await startDaemon({ config: jwtSecretConfig(jwtSecret) })
  payer = await createAppWithUser(daemon, { jwtSecret, identifier: 'nwc-payer' })
  payee = await addAppUser(daemon, { appToken: payer.appToken, appId: payer.appId, jwtSecret, identifier: 'nwc-payee' })
  await ok(daemon, '/api/app/mock/user/blance/set', payer.appToken, { user_identifier: 'nwc-payer', amount: 50_000 })
})
test.after(async () => {
  for (const client of clients) client.close()
  await daemon?.stop()
})
test.after.each(async () => {
  await assertAuditClean(daemon.dataDir)
})

test('a new connection has a URI with the daemon relay and a client secret, and an info event listing its methods', async () => {
  const created = await createConnection(payer.userToken)
  assert.match(created.connection_uri, /^nostr\+walletconnect:\/\/[0-9a-f]{64}\?relay=.+&secret=[0-9a-f]{64}$/)
  assert.ok(created.connection_uri.includes(encodeURIComponent(relayUrl())))
  assert.is(created.connection.revoked, false)
  const client = await connect(created.connection_uri)
  assert.is(created.connection.client_pubkey, client.clientPubkey)
  const info = await client.info()
  assert.ok(info, 'no kind-13194 info event')
  for (const method of ['pay_invoice', 'make_invoice', 'lookup_invoice', 'list_transactions', 'get_balance', 'get_info', 'notifications']) {
    assert.ok(info!.content.split(' ').includes(method), method)
  }
  assert.equal(info!.tags.find(tag => tag[0] === 'encryption'), ['encryption', 'nip44_v2 nip04'])
  const listed = await ok(daemon, '/api/user/nwc/list', payer.userToken)
  assert.ok(listed.connections.some((c: any) => c.connection_id === created.connection.connection_id))
  assert.not.ok(JSON.stringify(listed).includes(new URL(created.connection_uri).searchParams.get('secret')!))
})

test('get_info and get_balance answer in NIP-44 v2 and in NIP-04 (no encryption tag)', async () => {
  const client = await connect((await createConnection(payer.userToken)).connection_uri)
  const info = await client.call('get_info')
  assert.is(info.network, 'regtest')
  assert.match(info.pubkey, /^[0-9a-f]{66}$/)
  assert.ok(info.methods.includes('pay_invoice'))
  assert.equal(info.notifications, ['payment_received', 'payment_sent'])
  const sats = await balanceOf(daemon, payer.appToken, 'nwc-payer')
  assert.equal(await client.call('get_balance'), { balance: sats * 1000 })
  assert.equal(await client.call('get_balance', {}, 'nip04'), { balance: sats * 1000 })
})

test('make_invoice issues an invoice of the wallet that lookup_invoice finds, and paying it notifies payment_received', async () => {
  const client = await connect((await createConnection(payee.userToken)).connection_uri)
  const made = await client.call('make_invoice', { amount: 21_000, description: 'coffee' })
  assert.is(made.type, 'incoming')
  assert.is(made.state, 'pending')
  assert.is(made.amount, 21_000)
  assert.is(made.description, 'coffee')
  assert.match(made.invoice, /^lnbcrt/)
  assert.equal(await client.call('lookup_invoice', { payment_hash: made.payment_hash }), made)
  assert.equal(await client.call('lookup_invoice', { invoice: made.invoice }), made)

  await ok(daemon, '/api/user/invoice/pay', payer.userToken, { invoice: made.invoice, amount: 0 })
  const received = await client.waitForNotification(n => n.notification_type === 'payment_received' && n.notification.payment_hash === made.payment_hash)
  assert.is(received.notification.state, 'settled')
  assert.is(received.notification.amount, 21_000)
  // Both kinds arrive: 23197 (NIP-44) and 23196 (NIP-04) for legacy clients.
  await client.waitForNotification(n => n.kind === 23196 && n.notification.payment_hash === made.payment_hash)
  assert.is((await client.call('lookup_invoice', { payment_hash: made.payment_hash })).state, 'settled')
})

test('pay_invoice pays another user of the service through the wallet: fee, balances, history and payment_sent', async () => {
  const client = await connect((await createConnection(payer.userToken)).connection_uri)
  const payerBefore = await balanceOf(daemon, payer.appToken, 'nwc-payer')
  const payeeBefore = await balanceOf(daemon, payer.appToken, 'nwc-payee')
  const invoice = await newInvoice(daemon, payee.userToken, 1000)
  const paid = await client.call('pay_invoice', { invoice })
  assert.is(paid.fees_paid, 10_000) // the service fee floor, as PayInvoice charges
  assert.is(typeof paid.preimage, 'string')
  assert.is(await balanceOf(daemon, payer.appToken, 'nwc-payer'), payerBefore - 1010)
  assert.is(await balanceOf(daemon, payer.appToken, 'nwc-payee'), payeeBefore + 1000)

  const sent = await client.waitForNotification(n => n.notification_type === 'payment_sent' && n.notification.invoice === invoice)
  assert.is(sent.notification.type, 'outgoing')
  const looked = await client.call('lookup_invoice', { invoice })
  assert.is(looked.type, 'outgoing')
  assert.is(looked.state, 'settled')
  assert.is(looked.amount, 1_000_000)
  assert.is(looked.fees_paid, 10_000)

  const listed = await client.call('list_transactions', { limit: 10 })
  assert.ok(listed.transactions.length >= 1)
  assert.is(listed.transactions[0].payment_hash, looked.payment_hash) // newest first
  const incoming = await client.call('list_transactions', { type: 'incoming' })
  assert.ok(incoming.transactions.every((t: any) => t.type === 'incoming'))
  assert.not.ok(incoming.transactions.some((t: any) => t.payment_hash === looked.payment_hash))
})

test('a payment beyond the budget is refused QUOTA_EXCEEDED and moves nothing', async () => {
  const created = await createConnection(payer.userToken, { budget: { amount_sats: 1500, interval: 'DAY' } })
  const client = await connect(created.connection_uri)
  await client.call('pay_invoice', { invoice: await newInvoice(daemon, payee.userToken, 1000) })
  const before = await balanceOf(daemon, payer.appToken, 'nwc-payer')
  const refused = await client.request('pay_invoice', { invoice: await newInvoice(daemon, payee.userToken, 1000) })
  assert.is(refused.result_type, 'pay_invoice')
  assert.is(refused.error?.code, 'QUOTA_EXCEEDED')
  assert.is(refused.result, null)
  assert.is(await balanceOf(daemon, payer.appToken, 'nwc-payer'), before)
  const listed = await ok(daemon, '/api/user/nwc/list', payer.userToken)
  const mine = listed.connections.find((c: any) => c.connection_id === created.connection.connection_id)
  assert.is(mine.spent_sats, 1010) // amount and fee count; the refused payment does not
  // Within the budget again after the user raises it.
  await ok(daemon, '/api/user/nwc/update', payer.userToken, {
    connection_id: created.connection.connection_id, budget: { amount_sats: 5000, interval: 'DAY' },
  })
  await client.call('pay_invoice', { invoice: await newInvoice(daemon, payee.userToken, 1000) })
})

test('12 pay_invoice requests of one connection at once: only as many as fit into its budget are paid', async () => {
  // 4,500 sats: four payments of 1,000 (+ 10 fee) fit however their reservations and settlements interleave, a fifth never.
  const created = await createConnection(payer.userToken, { budget: { amount_sats: 4500, interval: 'DAY' } })
  const client = await connect(created.connection_uri)
  const invoices = await Promise.all(Array.from({ length: 12 }, () => newInvoice(daemon, payee.userToken, 1000)))
  const before = await balanceOf(daemon, payer.appToken, 'nwc-payer')
  const answers = await Promise.all(invoices.map(invoice => client.request('pay_invoice', { invoice })))
  assert.is(answers.filter(a => a.error === null).length, 4)
  assert.ok(answers.every(a => a.error === null || a.error.code === 'QUOTA_EXCEEDED'), JSON.stringify(answers.map(a => a.error)))
  assert.is(await balanceOf(daemon, payer.appToken, 'nwc-payer'), before - 4 * 1010)
  const listed = await ok(daemon, '/api/user/nwc/list', payer.userToken)
  assert.is(listed.connections.find((c: any) => c.connection_id === created.connection.connection_id).spent_sats, 4040)
})

test('a refused payment (more than the balance) answers INSUFFICIENT_BALANCE and frees its budget reservation', async () => {
  const created = await createConnection(payee.userToken, { budget: { amount_sats: 1_000_000, interval: 'WEEK' } })
  const client = await connect(created.connection_uri)
  const refused = await client.request('pay_invoice', { invoice: await newInvoice(daemon, payer.userToken, 900_000) })
  assert.is(refused.error?.code, 'INSUFFICIENT_BALANCE')
  const listed = await ok(daemon, '/api/user/nwc/list', payee.userToken)
  assert.is(listed.connections.find((c: any) => c.connection_id === created.connection.connection_id).spent_sats, 0)
})

test('a method the connection may not call is RESTRICTED; an unknown one NOT_IMPLEMENTED', async () => {
  const client = await connect((await createConnection(payer.userToken, { methods: ['get_balance'] })).connection_uri)
  const before = await balanceOf(daemon, payer.appToken, 'nwc-payer')
  const refused = await client.request('pay_invoice', { invoice: await newInvoice(daemon, payee.userToken, 10) })
  assert.is(refused.error?.code, 'RESTRICTED')
  assert.is(await balanceOf(daemon, payer.appToken, 'nwc-payer'), before)
  assert.is((await client.request('pay_keysend', { amount: 1000, pubkey: '02'.padEnd(66, '1') })).error?.code, 'NOT_IMPLEMENTED')
})

test('a revoked connection is answered UNAUTHORIZED', async () => {
  const created = await createConnection(payer.userToken)
  const client = await connect(created.connection_uri)
  await client.call('get_balance')
  await ok(daemon, '/api/user/nwc/revoke', payer.userToken, { connection_id: created.connection.connection_id })
  const refused = await client.request('get_balance')
  assert.is(refused.error?.code, 'UNAUTHORIZED')
  assert.is(refused.result, null)
  // Another user cannot touch it.
  const other = await ok(daemon, '/api/user/nwc/revoke', payee.userToken, { connection_id: created.connection.connection_id }).catch(() => undefined)
  assert.is(other, undefined)
})

test('a request delivered again in the same run (a new connection renews the subscription) is not answered again', async () => {
  const created = await createConnection(payer.userToken)
  const client = await connect(created.connection_uri)
  const invoice = await newInvoice(daemon, payee.userToken, 300)
  const request = client.buildRequest('pay_invoice', { invoice })
  const response = await client.send(request)
  assert.is(response.error, null)
  const afterFirst = await balanceOf(daemon, payer.appToken, 'nwc-payer')

  // A second connection widens the service's filter: the relay replays every stored request since shortly before
  // the newest one seen, the first client's request among them. The second client's own round trip comes after it.
  const other = await connect((await createConnection(payer.userToken)).connection_uri)
  assert.is((await other.send(other.buildRequest('get_balance', {}))).error, null)
  await new Promise(r => setTimeout(r, 500))
  const answers = new Set(client.responses.filter(r => r.requestId === request.id).map(r => r.eventId))
  assert.is(answers.size, 1, 'one answer event for one request')
  assert.is(await balanceOf(daemon, payer.appToken, 'nwc-payer'), afterFirst)
})

test('a request sent again after a restart is answered again without paying twice', async () => {
  const created = await createConnection(payer.userToken)
  let client = await connect(created.connection_uri)
  const invoice = await newInvoice(daemon, payee.userToken, 700)
  const request = client.buildRequest('pay_invoice', { invoice })
  const response = await client.send(request)
  assert.is(response.error, null)
  const first = { response, sentAt: client.responses.find(r => r.requestId === request.id)!.createdAt }
  const afterFirst = await balanceOf(daemon, payer.appToken, 'nwc-payer')
  client.close()

  // A restart of the daemon restarts its embedded relay, which kept the request in memory only (the daemon heard it
  // live): a wallet that saw no answer sends the same signed request again, and the relay takes it as new.
  const config = jwtSecretConfig(jwtSecret)
  await daemon.stop()
  daemon = await startDaemon({ config, dataDir: daemon.dataDir })
  client = await connect(created.connection_uri)
  // Counted by event id: a relay may hand the client the same answer event twice.
  const resent = () => [...new Map(client.responses.filter(r => r.requestId === request.id && r.createdAt > first.sentAt).map(r => [r.eventId, r])).values()]
  const again = await client.send(request)
  assert.equal(again, first.response)
  await new Promise(r => setTimeout(r, 300))
  assert.is(resent().length, 1, 'the redelivered request was answered once')
  assert.equal(resent()[0]!.response, first.response)
  assert.is(await balanceOf(daemon, payer.appToken, 'nwc-payer'), afterFirst)
})

test.run()
