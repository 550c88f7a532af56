// PayInvoice and PayAppUserInvoice with `debit_npub` (upstream's field naming a CLINK debit key): the payment
// is counted against that key's CLINK debit grant — refused when the key has no grant, is banned or would pass its
// budget, and counted toward the budget the key's own kind-21002 debits draw on. Over HTTP, as an app's backend
// would call it, with the key's debits sent by the independent CLINK client.
import { WebSocket } from 'ws'
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { generateSecretKey, getPublicKey } from 'nostr-tools/pure'
import { startDaemon, type TestDaemon } from '../support/daemon.js'
import { addAppUser, createAppWithUser, jwtSecretConfig, type TestAppUser } from '../support/accounts.js'
import { ClinkDebitClient } from '../support/clink-debit-client.js'
import { assertAuditClean, balanceOf, call, newInvoice, ok, payFromOutside } from '../support/money.js'

;(globalThis as { WebSocket?: unknown }).WebSocket = WebSocket
const { ClinkSDK } = await import('@shocknet/clink-sdk')

const jwtSecret = 'clink-debit-npub-secret-0123456789abcdef'
const test = suite('payments attributed to a debit key (debit_npub)')
let daemon: TestDaemon
let payer: TestAppUser
let payee: { userToken: string }
const clients: { close(): void }[] = []

const balance = () => balanceOf(daemon, payer.appToken, payer.identifier)
const invoice = (sats: number) => newInvoice(daemon, payee.userToken, sats)
const budget = (sats: number) => [{ rule: { type: 'frequency_rule', frequency_rule: { number_of_intervals: 1, interval: 'DAY', amount: sats } } }]
/** The payer grants `npub` a daily budget, as its wallet would (no request to answer). */
const grant = (npub: string, sats: number) =>
  ok(daemon, '/api/user/debit/finish', payer.userToken, { request_id: 'none', npub, response: { type: 'authorize', authorize: { rules: budget(sats) } } })
const payInvoice = async (sats: number, debitNpub?: string) =>
  call(daemon, '/api/user/invoice/pay', payer.userToken, { invoice: await invoice(sats), amount: 0, ...(debitNpub !== undefined ? { debit_npub: debitNpub } : {}) })
const payAppUserInvoice = async (sats: number, debitNpub: string) =>
  call(daemon, '/api/app/invoice/pay', payer.appToken, { user_identifier: payer.identifier, invoice: await invoice(sats), amount: 0, debit_npub: debitNpub })

test.before(async () => {
  daemon = await startDaemon({ config: jwtSecretConfig(jwtSecret) })
  payer = await createAppWithUser(daemon, { jwtSecret, identifier: 'debit-npub-payer' })
  payee = await addAppUser(daemon, { appToken: payer.appToken, appId: payer.appId, jwtSecret, identifier: 'debit-npub-payee' })
  await payFromOutside(daemon, await newInvoice(daemon, payer.userToken, 10_000))
})
test.after(async () => {
  for (const client of clients) client.close()
  await daemon?.stop()
})
test.after.each(async () => {
  await assertAuditClean(daemon.dataDir)
})

test('PayInvoice with debit_npub is counted against the key budget and refused past it', async () => {
  const secretKey = generateSecretKey()
  const key = getPublicKey(secretKey)
  await grant(key, 300)
  const start = await balance()

  // 100 sats + the 10-sat service fee floor: 110 of 300.
  const first = await payInvoice(100, key)
  assert.is(first.status, 'OK', JSON.stringify(first))
  assert.is(await balance(), start - 110)

  // Another 200 (+10) would make 320: refused, nothing moves.
  const over = await payInvoice(200, key.toUpperCase())
  assert.is(over.status, 'ERROR')
  assert.match(over.reason, /Invalid Amount|budget/i)
  assert.is(await balance(), start - 110)

  // The same payment without debit_npub is the user's own: not limited by the key's budget.
  assert.is((await payInvoice(200)).status, 'OK')
  assert.is(await balance(), start - 110 - 210)

  // Under what is left (190): 150 + 10 fits and counts, leaving 30.
  assert.is((await payInvoice(150, key)).status, 'OK')
  assert.is(await balance(), start - 110 - 210 - 160)

  // The key's own CLINK debit draws on the same budget: 20 + 10 fee = 30 fits exactly, one more sat does not.
  const info = await ok(daemon, '/api/user/info', payer.userToken)
  const ndebit = ClinkSDK.decodeBech32(info.ndebit).data as { pubkey: string; relay: string; pointer: string }
  const requester = await ClinkDebitClient.connect(ndebit.relay, ndebit.pubkey, secretKey)
  clients.push(requester)
  const tooMuch = await requester.send({ pointer: ndebit.pointer, bolt11: await invoice(21), amount_sats: 21 })
  assert.equal(tooMuch.payload, { res: 'GFY', code: 5, error: 'Invalid Amount', range: { min: 1, max: 300 } })
  const fits = await requester.send({ pointer: ndebit.pointer, bolt11: await invoice(20), amount_sats: 20 })
  assert.is(fits.payload.res, 'ok', JSON.stringify(fits.payload))
  assert.is(await balance(), start - 110 - 210 - 160 - 30)
})

test('PayAppUserInvoice with debit_npub needs a grant of that key: none, a ban and a bad key are refused', async () => {
  const key = getPublicKey(generateSecretKey())
  const start = await balance()
  const none = await payAppUserInvoice(50, key)
  assert.is(none.status, 'ERROR')
  assert.match(none.reason, /Request Denied|denied/i)

  await grant(key, 1000)
  const paid = await payAppUserInvoice(50, key)
  assert.is(paid.status, 'OK', JSON.stringify(paid))
  assert.is(await balance(), start - 60)
  const grants = (await daemon.request('GET', '/api/user/debit/get', { headers: { authorization: payer.userToken } })).json
  const listed = grants.debits.find((d: { npub: string }) => d.npub === key)
  assert.ok(listed, 'the grant is listed')

  await ok(daemon, '/api/user/debit/ban', payer.userToken, { npub: key })
  const banned = await payAppUserInvoice(50, key)
  assert.is(banned.status, 'ERROR')
  const bad = await payAppUserInvoice(50, 'not-a-key')
  assert.is(bad.status, 'ERROR')
  assert.match(bad.reason, /debit_npub/)
  assert.is(await balance(), start - 60, 'only the granted payment moved money')
})

test.run()
