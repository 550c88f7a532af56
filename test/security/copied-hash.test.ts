// Repeats are per invoice, not per payment hash. The attack: copy the payment hash of someone's
// invoice into a 1-sat invoice signed by any key, pay it from your own wallet and let it fail; before, nobody on
// the service could pay the genuine invoice afterwards ("this invoice was already paid and failed"). Now a copy of
// one of this service's hashes is refused before anything is written, a copy of another node's hash blocks
// nothing once it failed, a failed payment may be retried, and an invoice is never paid twice, even by payers racing.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import bolt11 from 'bolt11'
import { startDaemon, type TestDaemon } from '../support/daemon.js'
import { addAppUser, createAppWithUser, jwtSecretConfig, type TestAppUser } from '../support/accounts.js'
import { bolt11Networks, outsideInvoice } from '../support/outside-invoice.js'
import { assertAuditClean, balanceOf, call, newInvoice, ok } from '../support/money.js'

const jwtSecret = 'copied-hash-test-secret-0123456789abcdef'
const hashOf = (invoice: string) =>
  bolt11.decode(invoice, bolt11Networks.regtest).tags.find(tag => tag.tagName === 'payment_hash')!.data as string
const foreign = (sats: number, paymentHash?: string) =>
  outsideInvoice({ network: 'regtest', nowMs: Date.now(), amountMsat: sats * 1000, ...(paymentHash ? { paymentHash } : {}) })
    .paymentRequest
const copiedHash =
  'this invoice copies the payment hash of another invoice of this service and cannot be paid; pay the original invoice'
const notConnected = 'the embedded node is not connected to the Lightning network'

interface World {
  daemon: TestDaemon
  app: TestAppUser
  /** Wallets by name, each with its user token; funded with `funding` sats. */
  wallets: Record<string, { userToken: string; identifier: string }>
}

async function world(config: string, names: string[], funding: number): Promise<World> {
  const daemon = await startDaemon({ config: jwtSecretConfig(jwtSecret) + config })
  const app = await createAppWithUser(daemon, { jwtSecret, identifier: names[0]! })
  const wallets: World['wallets'] = { [names[0]!]: { userToken: app.userToken, identifier: names[0]! } }
  for (const name of names.slice(1)) wallets[name] = await addAppUser(daemon, { appToken: app.appToken, appId: app.appId, jwtSecret, identifier: name })
  for (const name of names) {
    if (funding > 0) await ok(daemon, '/api/app/mock/user/blance/set', app.appToken, { user_identifier: name, amount: funding })
  }
  return { daemon, app, wallets }
}

const pay = (w: World, name: string, invoice: string) => call(w.daemon, '/api/user/invoice/pay', w.wallets[name]!.userToken, { invoice, amount: 0 })
const balance = (w: World, name: string) => balanceOf(w.daemon, w.app.appToken, name)

// ---------------------------------------------------------------------------------------------------------------

const ours = suite('a copy of one of our invoices')
let offline: World

ours.before(async () => {
  offline = await world('', ['attacker', 'victim', 'shop', 'racer1', 'racer2'], 20_000)
})
ours.after(async () => {
  await assertAuditClean(offline.daemon.dataDir)
  await offline.daemon.stop()
})

ours('is refused before anything is written, and the genuine invoice stays payable', async () => {
  const genuine = await newInvoice(offline.daemon, offline.wallets.shop!.userToken, 1000)
  const hash = hashOf(genuine)
  // A 1-sat copy and a same-amount copy, each signed by a key of the attacker's.
  for (const forged of [foreign(1, hash), foreign(1000, hash)]) {
    const refused = await pay(offline, 'attacker', forged)
    assert.is(refused.status, 'ERROR')
    assert.is(refused.reason, copiedHash)
    // Nothing written: no payment to look up, no money moved.
    const state = await call(offline.daemon, '/api/user/payment/state', offline.wallets.attacker!.userToken, { invoice: forged })
    assert.is(state.reason, 'payment not found')
  }
  assert.is(await balance(offline, 'attacker'), 20_000)
  const history = await ok(offline.daemon, '/api/user/operations', offline.wallets.attacker!.userToken, {
    latestIncomingInvoice: { ts: 0, id: 0 }, latestOutgoingInvoice: { ts: 0, id: 0 },
    latestIncomingTx: { ts: 0, id: 0 }, latestOutgoingTx: { ts: 0, id: 0 },
    latestIncomingUserToUserPayment: { ts: 0, id: 0 }, latestOutgoingUserToUserPayment: { ts: 0, id: 0 },
    max_size: 10,
  })
  assert.is(history.latestOutgoingInvoiceOperations.operations.length, 0)

  const paid = await pay(offline, 'victim', genuine)
  assert.is(paid.status, 'OK', JSON.stringify(paid))
  assert.is(paid.operation.internal, true)
  assert.is(await balance(offline, 'shop'), 20_000 + 1000)
  assert.is((await pay(offline, 'attacker', genuine)).reason, 'this invoice was already paid')
})

ours('two payers racing on one invoice of ours: exactly one pays', async () => {
  for (let round = 0; round < 5; round++) {
    const invoice = await newInvoice(offline.daemon, offline.wallets.shop!.userToken, 100)
    const before = [await balance(offline, 'racer1'), await balance(offline, 'racer2')]
    const replies = await Promise.all([pay(offline, 'racer1', invoice), pay(offline, 'racer2', invoice)])
    const winners = replies.filter(r => r.status === 'OK')
    assert.is(winners.length, 1, JSON.stringify(replies))
    const loser = replies.find(r => r.status === 'ERROR')!
    assert.is(loser.reason, 'this invoice was already paid')
    const after = [await balance(offline, 'racer1'), await balance(offline, 'racer2')]
    // One of them paid amount + the 10-sat fee floor, the other nothing.
    assert.equal([before[0]! - after[0]!, before[1]! - after[1]!].sort(), [0, 110])
  }
})

ours.run()

// ---------------------------------------------------------------------------------------------------------------

const theirs = suite('a copy of another node\'s invoice, and retries')
let unrouted: World

theirs.before(async () => {
  unrouted = await world('', ['attacker', 'payer'], 20_000)
})
theirs.after(async () => {
  await assertAuditClean(unrouted.daemon.dataDir)
  await unrouted.daemon.stop()
})

theirs('a failed copy blocks nobody: the genuine invoice is still attempted, and a failed payment may be retried', async () => {
  const genuine = foreign(5000)
  const forged = foreign(1, hashOf(genuine))
  const failed = await pay(unrouted, 'attacker', forged)
  assert.is(failed.reason, notConnected) // sent to the node, failed, refunded
  assert.is(await balance(unrouted, 'attacker'), 20_000)

  // When repeats were per payment hash this was "this invoice was already paid and failed, try another invoice",
  // for everyone.
  const attempt = await pay(unrouted, 'payer', genuine)
  assert.is(attempt.reason, notConnected)
  const retry = await pay(unrouted, 'payer', genuine)
  assert.is(retry.reason, notConnected)
  assert.is(await balance(unrouted, 'payer'), 20_000)
  const state = await ok(unrouted.daemon, '/api/user/payment/state', unrouted.wallets.payer!.userToken, { invoice: genuine })
  assert.is(state.paid_at_unix, -1)
})

theirs.run()

// ---------------------------------------------------------------------------------------------------------------

const racing = suite('racing on another node\'s invoice (simulated routes)')
let routed: World
const racers = ['r0', 'r1', 'r2', 'r3', 'r4', 'r5', 'r6', 'r7']

racing.before(async () => {
  routed = await world('[node]\nsimulate_payments = true\n', [...racers, 'attacker'], 50_000)
})
racing.after(async () => {
  await assertAuditClean(routed.daemon.dataDir)
  await routed.daemon.stop()
})

racing('eight payers racing on one invoice: exactly one pays, the rest are refused and keep their money', async () => {
  const invoice = foreign(1000)
  const replies = await Promise.all(racers.map(name => pay(routed, name, invoice)))
  const winners = replies.filter(r => r.status === 'OK')
  assert.is(winners.length, 1, JSON.stringify(replies))
  for (const r of replies.filter(r => r.status === 'ERROR')) {
    assert.ok(['payment already in progress', 'this invoice was already paid'].includes(r.reason), r.reason)
  }
  const spent = (await Promise.all(racers.map(name => balance(routed, name)))).map(b => 50_000 - b)
  assert.is(spent.filter(s => s === 0).length, racers.length - 1)
  assert.is(spent.filter(s => s > 0).length, 1)
})

racing('while one invoice is in flight, another with the same hash waits its turn (the node pays a hash once)', async () => {
  const genuine = foreign(2000)
  const forged = foreign(1, hashOf(genuine))
  const [paid, copy] = await Promise.all([pay(routed, 'r0', genuine), pay(routed, 'attacker', forged)])
  // Whichever reached the wallet first holds the hash; the other is told why and keeps its money.
  const refused = paid.status === 'OK' ? copy : paid
  assert.is([paid, copy].filter(r => r.status === 'OK').length, 1, JSON.stringify([paid, copy]))
  assert.match(refused.reason, /^another invoice with this payment hash is being paid|^a payment with this payment hash has already succeeded/)
})

racing.run()
