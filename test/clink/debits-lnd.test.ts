// CLINK debits paid over Lightning (the fake LND): a payment in flight counts against the budget until it fails,
// then the budget is released; the requester hears how it ended, also when the daemon died while it was in flight.
import { WebSocket } from 'ws'
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { decode } from 'light-bolt11-decoder'
import type { TestDaemon } from '../support/daemon.js'
import { startFakeLnd, type FakeLnd } from '../support/fake-lnd/fake-lnd.js'
import { outsideInvoiceWithPreimage as foreign } from '../support/outside-invoice.js'
import { startOnRelayPort, fakeLndConfig } from '../support/lnd-daemon.js'
import { freePort } from '../support/ports.js'
import { createAppWithUser, jwtSecretConfig, type TestAppUser } from '../support/accounts.js'
import { ClinkDebitClient } from '../support/clink-debit-client.js'
import { PubClient, appProfile } from '../support/pub-client.js'
import { assertAuditClean, balanceOf, ok } from '../support/money.js'
import { until } from '../support/until.js'

;(globalThis as { WebSocket?: unknown }).WebSocket = WebSocket
const { ClinkSDK } = await import('@shocknet/clink-sdk')

const jwtSecret = 'clink-debits-lnd-secret-0123456789abcdef'
const test = suite('CLINK debits paid over Lightning')
let fake: FakeLnd
let daemon: TestDaemon
let user: TestAppUser
let relayPort: number
let walletPubkey: string
let relay: string
let pointer: string
let app: ClinkDebitClient

const balance = () => balanceOf(daemon, user.appToken, user.identifier)
// The embedded relay keeps its port across the restart, so clients find it again.
const start = (dataDir?: string) => startOnRelayPort(relayPort, dataDir ? { dataDir } : { config: jwtSecretConfig(jwtSecret) + fakeLndConfig(fake) })
const inFlight = (hash: string) => until(() => fake.node.payments.get(hash)?.status === 'IN_FLIGHT', 'the payment to reach LND')

test.before(async () => {
  fake = await startFakeLnd({ network: 'regtest' })
  relayPort = await freePort()
  daemon = await start()
  user = await createAppWithUser(daemon, { jwtSecret, identifier: 'lnd-debtor' })
  const { invoice } = await ok(daemon, '/api/user/invoice/new', user.userToken, { amountSats: 5000, memo: 'funding' })
  fake.settleInvoice((decode(invoice).sections.find(x => x.name === 'payment_hash') as { value: string }).value)
  await until(async () => (await balance()) === 5000, 'the funding to be credited')
  const info = await ok(daemon, '/api/user/info', user.userToken)
  const ndebit = ClinkSDK.decodeBech32(info.ndebit).data as { pubkey: string; relay: string; pointer: string }
  ;({ pubkey: walletPubkey, relay, pointer } = ndebit)
  app = await ClinkDebitClient.connect(relay, walletPubkey)
  // 1500 sats a day for this key: one 1000-sat payment (+10 fee) fits, two do not.
  await ok(daemon, '/api/user/debit/finish', user.userToken, {
    request_id: 'none',
    npub: app.pubkey,
    response: {
      type: 'authorize',
      authorize: { rules: [{ rule: { type: 'frequency_rule', frequency_rule: { number_of_intervals: 1, interval: 'DAY', amount: 1500 } } }] },
    },
  })
  fake.faults.holdPayments = true
})
test.after(async () => {
  app?.close()
  await daemon?.stop()
  await fake?.close()
})

test('a debit in flight counts against the budget; when LND says it failed the budget is released', async () => {
  const first = foreign(1000)
  const request = app.request({ pointer, bolt11: first.bolt11, amount_sats: 1000 })
  await app.publish(request)
  await inFlight(first.paymentHash)
  assert.is(await balance(), 5000 - 1010, 'debited up front')

  const second = foreign(1000)
  const refused = await app.send({ pointer, bolt11: second.bolt11 })
  assert.equal(refused.payload, { res: 'GFY', code: 5, error: 'Invalid Amount', range: { min: 1, max: 1500 } }, 'the pending debit counts')
  assert.is(fake.node.payments.get(second.paymentHash), undefined, 'never sent to LND')

  fake.resolvePayment(first.paymentHash, { failed: 'FAILURE_REASON_NO_ROUTE' })
  assert.equal((await app.answer(request.id)).payload, { res: 'GFY', code: 2, error: 'Temporary Failure' })
  await until(async () => (await balance()) === 5000, 'the refund')

  // Released: the same amount fits again, and a payment that succeeds answers with its preimage.
  const third = foreign(1000)
  const paying = app.request({ pointer, bolt11: third.bolt11 })
  await app.publish(paying)
  await inFlight(third.paymentHash)
  fake.resolvePayment(third.paymentHash, { preimage: third.preimage })
  assert.equal((await app.answer(paying.id)).payload, { res: 'ok', preimage: third.preimage })
  assert.is(await balance(), 5000 - 1010)
  await assertAuditClean(daemon.dataDir)
})

test('a debit in flight when the daemon dies is answered once after the restart, with how it ended', async () => {
  const before = await balance()
  const late = foreign(300)
  const request = app.request({ pointer, bolt11: late.bolt11 })
  await app.publish(request)
  await inFlight(late.paymentHash)
  await daemon.kill()
  app.close()
  fake.resolvePayment(late.paymentHash, { preimage: late.preimage })

  daemon = await start(daemon.dataDir)
  app = await ClinkDebitClient.connect(relay, walletPubkey, app.secretKey, 120)
  assert.equal((await app.answer(request.id, 20_000)).payload, { res: 'ok', preimage: late.preimage })
  // A later request's answer comes after anything the restart sent about the first.
  assert.is((await app.send({ pointer })).payload.res, 'ok', 'full access under the grant')
  const answers = app.answers.get(request.id)!
  assert.is(answers.length, 1, `one answer, not also "Temporary Failure": ${JSON.stringify(answers.map(a => ({ ...a.payload, at: a.event.created_at, id: a.event.id })))}`)
  assert.is(await balance(), before - 310)
  await assertAuditClean(daemon.dataDir)
})

test('a parked request survives a restart: the user decides afterwards and the requester hears it', async () => {
  // A user of the default app on its linked key (the one LiveDebitRequest pushes go to).
  const profile = appProfile(daemon.dataDir)
  let owner = await PubClient.connect({ relays: profile.relays, appPubkey: profile.pubkey })
  try {
    const ndebit = ClinkSDK.decodeBech32((await owner.ok('GetUserInfo')).ndebit).data as { pubkey: string; pointer: string }
    let asker = await ClinkDebitClient.connect(relay, ndebit.pubkey)
    const request = asker.request({ pointer: ndebit.pointer, amount_sats: 5000, frequency: { number: 2, unit: 'week' } })
    const pushed = owner.waitFor('GetLiveDebitRequests', 60_000, reply => reply.request_id === request.id)
    await asker.publish(request)
    assert.equal((await pushed).debit, { type: 'frequency', frequency: { number_of_intervals: 2, interval: 'WEEK', amount: 5000 } })

    // Both clients leave while the daemon is down and come back with their keys.
    asker.close()
    owner.close()
    assert.is(await daemon.stop(), 0)
    daemon = await start(daemon.dataDir)
    asker = await ClinkDebitClient.connect(relay, ndebit.pubkey, asker.secretKey, 120)
    owner = await PubClient.connect({ relays: profile.relays, appPubkey: profile.pubkey, secretKey: owner.secretKey })
    try {
      const rules = [{ rule: { type: 'frequency_rule', frequency_rule: { number_of_intervals: 2, interval: 'WEEK', amount: 5000 } } }]
      await owner.ok('RespondToDebit', { request_id: request.id, npub: asker.pubkey, response: { type: 'authorize', authorize: { rules } } })
      assert.equal((await asker.answer(request.id)).payload, { res: 'ok' })
      assert.is(asker.answers.get(request.id)!.length, 1)
    } finally {
      asker.close()
    }
  } finally {
    owner.close()
  }
})

test.run()
