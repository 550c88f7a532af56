// A clean stop waits for the calls in flight for [shutdown] grace_seconds, then stops anyway: a payment that LND
// holds must not keep SIGTERM from stopping the daemon. What was cut ends as a crash would, and the next start
// settles it with LND: over HTTP the payment resolves once; over Nostr the request, sent again, is answered once,
// with how it ended.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { decode } from 'light-bolt11-decoder'
import type { TestDaemon } from '../support/daemon.js'
import { startFakeLnd, type FakeLnd } from '../support/fake-lnd/fake-lnd.js'
import { outsideInvoiceWithPreimage as foreign } from '../support/outside-invoice.js'
import { startOnRelayPort, fakeLndConfig, fundOverFakeLnd } from '../support/lnd-daemon.js'
import { freePort } from '../support/ports.js'
import { createAppWithUser, jwtSecretConfig, type TestAppUser } from '../support/accounts.js'
import { PubClient, appProfile } from '../support/pub-client.js'
import { assertAuditClean, balanceOf, ok } from '../support/money.js'
import { until } from '../support/until.js'

const jwtSecret = 'stop-grace-secret-0123456789abcdef012345'
const test = suite('a stop with calls in flight')
let fake: FakeLnd
let daemon: TestDaemon
let user: TestAppUser
let relayPort: number

const balance = () => balanceOf(daemon, user.appToken, user.identifier)
// The embedded relay keeps its port across the restart, so clients find it again.
const start = (dataDir?: string) => startOnRelayPort(relayPort, dataDir ? { dataDir } : { config: jwtSecretConfig(jwtSecret) + `[shutdown]\ngrace_seconds = 2\n` + fakeLndConfig(fake) })
const hashOf = (invoice: string) => (decode(invoice).sections.find(x => x.name === 'payment_hash') as { value: string }).value
const inFlight = (hash: string) => until(() => fake.node.payments.get(hash)?.status === 'IN_FLIGHT', 'the payment to reach LND')

/** SIGTERM; resolves with the exit code, or fails if the daemon is still running long after its grace. */
async function stopWithin(limitMs: number): Promise<number | null> {
  let timer: NodeJS.Timeout | undefined
  const hung = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`still stopping after ${limitMs} ms:\n${daemon.logs().split('\n').slice(-8).join('\n')}`)), limitMs)))
  try {
    return await Promise.race([daemon.stop(), hung])
  } finally {
    clearTimeout(timer)
  }
}

/** The warning a stop logs when its grace ran out, with the operations it cut. */
const cutWarning = () => daemon.logs().split('\n').find(line => line.includes('calls still in flight'))

test.before(async () => {
  fake = await startFakeLnd({ network: 'regtest' })
  relayPort = await freePort()
  daemon = await start()
  user = await createAppWithUser(daemon, { jwtSecret, identifier: 'stop-grace-payer' })
  await fundOverFakeLnd(daemon, fake, user, 5000)
})

test.after(async () => {
  fake.faults.holdPayments = false
  await daemon?.stop()
  await fake.close()
})

test('SIGTERM with an HTTP payment held at LND stops after the grace; the restart settles it once', async () => {
  const late = foreign(1000)
  fake.faults.holdPayments = true
  const paying = daemon
    .request('POST', '/api/user/invoice/pay', { body: { invoice: late.bolt11, amount: 0 }, headers: { authorization: `Bearer ${user.userToken}` } })
    .catch(() => undefined) // cut by the stop
  await inFlight(late.paymentHash)
  // Without a grace the stop waited for this payment for good; 2 s of grace, and a minute before calling it hung.
  assert.is(await stopWithin(60_000), 0, 'a clean exit')
  await paying
  const warning = cutWarning()
  assert.ok(warning, 'the stop says it cut calls')
  assert.equal(JSON.parse(warning!).running, ['PayInvoice'])

  fake.faults.holdPayments = false
  fake.resolvePayment(late.paymentHash, { preimage: late.preimage })
  daemon = await start(daemon.dataDir)
  await until(async () => (await ok(daemon, '/api/user/payment/state', user.userToken, { invoice: late.bolt11 })).paid_at_unix > 0, 'the payment to be settled')
  assert.is(await balance(), 5000 - 1010, '1000 sats and the 10-sat service fee, once')
  await assertAuditClean(daemon.dataDir)
})

test('SIGTERM with a Nostr payment held at LND stops after the grace; the request sent again is answered once after the restart', async () => {
  const profile = appProfile(daemon.dataDir)
  let client = await PubClient.connect({ relays: profile.relays, appPubkey: profile.pubkey })
  try {
    const { invoice } = await client.ok('NewInvoice', { amountSats: 2000, memo: 'nostr funding' })
    fake.settleInvoice(hashOf(invoice))
    await until(async () => (await client.ok('GetUserInfo')).balance === 2000, "the Nostr user's funding to be credited")

    const late = foreign(500)
    fake.faults.holdPayments = true
    const { event, requestId } = client.request('PayInvoice', { invoice: late.bolt11, amount: 0 })
    await client.publish(event)
    await inFlight(late.paymentHash)
    assert.is(await stopWithin(60_000), 0, 'a clean exit')
    assert.equal(JSON.parse(cutWarning()!).running, ['PayInvoice'])
    assert.equal(client.messages(requestId), [], 'not answered before the stop')

    fake.faults.holdPayments = false
    fake.resolvePayment(late.paymentHash, { failed: 'FAILURE_REASON_NO_ROUTE' })
    daemon = await start(daemon.dataDir)
    client.close()
    client = await PubClient.connect({ relays: profile.relays, appPubkey: profile.pubkey, secretKey: client.secretKey })
    // Requests are ephemeral events: a client that heard nothing sends its request again, and the daemon answers
    // it from the claim the first delivery left, with how the payment ended (not by paying again).
    const answered = client.waitFor(requestId, 30_000)
    await client.publish(event)
    const answer = await answered
    assert.is(answer.status, 'ERROR', JSON.stringify(answer))
    // A later request's answer comes after anything the restart sent about the first.
    assert.is((await client.ok('GetUserInfo')).balance, 2000, 'refunded: the payment failed at LND')
    assert.is(client.messages(requestId).length, 1, `one answer: ${JSON.stringify(client.messages(requestId))}`)
    await assertAuditClean(daemon.dataDir)
  } finally {
    client.close()
  }
})

test.run()
