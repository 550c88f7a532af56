// NIP-47 params are typed in the catalogue like any operation's input: a wrong one is refused before the NWC room
// runs, answered as NIP-47's OTHER with the field named and what it must be, and nothing is paid or made; sound
// params of every method are served, and fields NIP-47 adds later are ignored.
import fs from 'node:fs'
import path from 'node:path'
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { startDaemon, type TestDaemon } from '../support/daemon.js'
import { addAppUser, createAppWithUser, jwtSecretConfig, type TestAppUser } from '../support/accounts.js'
import { NwcTestClient } from '../support/nwc-client.js'
import { assertAuditClean, balanceOf, newInvoice, ok } from '../support/money.js'

const jwtSecret = 'nwc-params-secret-0123456789abcdef01234'
const test = suite('NIP-47 params')
let daemon: TestDaemon
let payer: TestAppUser
let payee: { userToken: string }
let client: NwcTestClient

const relayUrl = (): string => JSON.parse(fs.readFileSync(path.join(daemon.dataDir, 'daemon.json'), 'utf8')).relays[0]

test.before(async () => {
  daemon = await startDaemon({ config: jwtSecretConfig(jwtSecret) })
  payer = await createAppWithUser(daemon, { jwtSecret, identifier: 'nwc-params-payer' })
  payee = await addAppUser(daemon, { appToken: payer.appToken, appId: payer.appId, jwtSecret, identifier: 'nwc-params-payee' })
  await ok(daemon, '/api/app/mock/user/blance/set', payer.appToken, { user_identifier: 'nwc-params-payer', amount: 20_000 })
  const created = await ok(daemon, '/api/user/nwc/create', payer.userToken, { name: 'params' })
  client = await NwcTestClient.connect(created.connection_uri, relayUrl())
})
test.after(async () => {
  client?.close()
  await daemon?.stop()
})

/** What a request with these params is answered: its error, or null. */
const errorOf = async (method: string, params: object) => (await client.request(method, params)).error

const refusals: { method: string; params: object; field: string; says: RegExp }[] = [
  { method: 'make_invoice', params: {}, field: 'amount', says: /positive whole number of msat/ },
  { method: 'make_invoice', params: { amount: '1000' }, field: 'amount', says: /positive whole number of msat/ },
  { method: 'make_invoice', params: { amount: -5 }, field: 'amount', says: /positive whole number of msat/ },
  { method: 'make_invoice', params: { amount: 1.5 }, field: 'amount', says: /positive whole number of msat/ },
  { method: 'make_invoice', params: { amount: 1000, description_hash: 'abc' }, field: 'description_hash', says: /32 bytes of hex/ },
  { method: 'make_invoice', params: { amount: 1000, expiry: 'soon' }, field: 'expiry', says: /whole number of seconds/ },
  { method: 'pay_invoice', params: {}, field: 'invoice', says: /BOLT11 payment request/ },
  { method: 'pay_invoice', params: { invoice: 42 }, field: 'invoice', says: /BOLT11 payment request/ },
  { method: 'list_transactions', params: { limit: -1 }, field: 'limit', says: /0 or more/ },
  { method: 'list_transactions', params: { from: 'yesterday' }, field: 'from', says: /unix time/ },
  { method: 'list_transactions', params: { type: 'sideways' }, field: 'type', says: /"incoming" or "outgoing"/ },
  { method: 'list_transactions', params: { unpaid: 'yes' }, field: 'unpaid', says: /true or false/ },
]

for (const { method, params, field, says } of refusals) {
  test(`${method} ${JSON.stringify(params)}: OTHER, naming ${field}`, async () => {
    const error = await errorOf(method, params)
    assert.ok(error, `${method} ${JSON.stringify(params)} was served`)
    assert.is(error!.code, 'OTHER')
    assert.match(error!.message, new RegExp(`${field}: `))
    assert.match(error!.message, says)
  })
}

test('sound params of every method are served; unknown fields are ignored; a refused payment pays nothing', async () => {
  const before = await balanceOf(daemon, payer.appToken, payer.identifier)
  const invoice = await newInvoice(daemon, payee.userToken, 50)
  assert.ok((await errorOf('pay_invoice', { invoice: 7 })) !== null)
  assert.is(await balanceOf(daemon, payer.appToken, payer.identifier), before, 'nothing paid')

  const made = await client.call('make_invoice', { amount: 21_000, description: 'coffee', expiry: 600, metadata: { later: 'nip' } })
  assert.is(made.amount, 21_000)
  assert.is(made.description, 'coffee')
  assert.is((await client.call('lookup_invoice', { invoice: made.invoice })).payment_hash, made.payment_hash)
  assert.is((await client.call('lookup_invoice', { payment_hash: made.payment_hash.toUpperCase() })).invoice, made.invoice)
  const listed = await client.call('list_transactions', { limit: 5, offset: 0, unpaid: true, type: 'incoming', from: 0 })
  assert.ok(listed.transactions.some((t: { payment_hash: string }) => t.payment_hash === made.payment_hash))
  // An amount of 0 is no amount (NIP-47 clients send it for "the invoice's"), as upstream reads a falsy optional field.
  const paid = await client.call('pay_invoice', { invoice, amount: 0 })
  assert.ok(typeof paid.preimage === 'string')
  assert.is(await balanceOf(daemon, payer.appToken, payer.identifier) * 1000, before * 1000 - 50_000 - paid.fees_paid, 'the invoice and its fees')
  await assertAuditClean(daemon.dataDir)
})

test.run()
