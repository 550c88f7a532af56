// The daemon on LND serves at once after a crash, whatever LND holds. The fake LND holds 100k
// invoices of history and ten payments still pathfinding (in flight, no HTLC out: tracking one waits out the
// whole answer timeout). The restart answers /api/health while those payments are still being asked about; they
// stay pending (sats reserved, a retry refused) until LND decides, and are then settled or refunded once, even
// across another crash mid-way. The start asks LND only for what it missed: no invoice list, a replay of exactly
// the settlements made while it was down (counted in the fake, not timed).
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { createHash, randomBytes } from 'node:crypto'
import { decode } from 'light-bolt11-decoder'
import { startDaemon, type TestDaemon } from '../support/daemon.js'
import { startFakeLnd, type FakeLnd } from '../support/fake-lnd/fake-lnd.js'
import { outsideInvoice } from '../support/outside-invoice.js'
import { createAppWithUser, jwtSecretConfig, type TestAppUser } from '../support/accounts.js'
import { assertAuditClean, balanceOf, call, ok } from '../support/money.js'
import { until } from '../support/until.js'

const jwtSecret = 'lnd-restart-at-once-secret-0123456789abcd'
const s = suite('a daemon on LND restarts at once, whatever LND holds')
let fake: FakeLnd
let daemon: TestDaemon | undefined
let user: TestAppUser

const running = () => daemon!
const balance = () => balanceOf(running(), user.appToken, user.identifier)
const hashOf = (invoice: string) => (decode(invoice).sections.find(x => x.name === 'payment_hash') as { value: string }).value
const resetTraffic = () => {
  fake.node.traffic.calls.clear()
  fake.node.traffic.invoicesListed = 0
  fake.node.traffic.invoicesReplayed = 0
}
const asked = (method: string) => fake.node.traffic.calls.get(method) ?? 0

/**
 * The daemon said it listens before it said the payments left pending were resolved: a start that waited for them
 * would say it after, however fast the machine (the time to serve alone depends on the machine's load).
 */
function servedBeforeResolving(logs: string) {
  const served = logs.indexOf('"msg":"http listening"')
  const resolved = logs.indexOf('"msg":"resolved payments left pending by the last stop"')
  assert.ok(served >= 0, 'no "http listening" line')
  assert.ok(resolved === -1 || resolved > served, 'the start waited for the pending payments before it served')
}

/**
 * Spawns the daemon on `dataDir` while LND holds every TrackPaymentV2 unanswered, and releases them once /api/health
 * has answered 200: a start that waited for LND's word on the pending payments would never serve (the harness gives
 * up after a minute). The old start asked about each pathfinding payment in turn, 10 s each.
 */
async function restartWhileLndHoldsTracks(dataDir: string): Promise<void> {
  let release!: () => void
  fake.faults.trackHold = new Promise<void>(resolve => (release = resolve))
  try {
    daemon = await startDaemon({ dataDir })
    const health = await daemon.request('GET', '/api/health')
    assert.is(health.status, 200)
  } finally {
    fake.faults.trackHold = undefined
    release()
  }
}

s.before(async () => {
  fake = await startFakeLnd({ network: 'regtest' })
  fake.node.invoices.addHistory(100_000, { settledEvery: 10 }) // settle indexes 1 … 10,000
})
s.after(async () => {
  await daemon?.stop()
  await fake.close()
})

s('ten pathfinding payments and 100k invoices: served at once, each payment resolved once, only the missed replayed', async () => {
  const c = fake.connection
  daemon = await startDaemon({
    config:
      jwtSecretConfig(jwtSecret) +
      `[node]\nbackend = "lnd"\nnetwork = "regtest"\nlnd_socket = "${c.socket}"\nlnd_cert_path = "${c.certPath}"\nlnd_macaroon_path = "${c.macaroonPath}"\n`,
  })
  // A first start with nothing owed reads none of the history.
  assert.is(asked('ListInvoices'), 0)
  assert.is(fake.node.traffic.invoicesReplayed, 0)

  user = await createAppWithUser(running(), { jwtSecret, identifier: 'lnd-restart-payer' })
  const userAuth = `Bearer ${user.userToken}`
  const funding = (await ok(running(), '/api/user/invoice/new', userAuth, { amountSats: 20_000, memo: 'funding' })).invoice
  fake.settleInvoice(hashOf(funding)) // settle index 10,001
  await until(async () => (await balance()) === 20_000, 'the funding to be credited')
  const whileDown = (await ok(running(), '/api/user/invoice/new', userAuth, { amountSats: 3_000, memo: 'while down' })).invoice

  // Ten payments LND is still finding a route for when the daemon dies.
  fake.faults.pathfinding = true
  const payments = Array.from({ length: 10 }, () => {
    const preimage = randomBytes(32).toString('hex')
    const paymentHash = createHash('sha256').update(Buffer.from(preimage, 'hex')).digest('hex')
    const invoice = outsideInvoice({ network: 'regtest', nowMs: Date.now(), amountMsat: 1_000_000, paymentHash })
    return { preimage, paymentHash, request: invoice.paymentRequest }
  })
  const paying = payments.map(p =>
    running()
      .request('POST', '/api/user/invoice/pay', { body: { invoice: p.request, amount: 0 }, headers: { authorization: userAuth } })
      .catch(() => undefined), // the daemon dies while these wait
  )
  await until(() => payments.every(p => fake.node.payments.get(p.paymentHash)?.status === 'IN_FLIGHT'), 'the payments to reach LND')
  const reserved = 20_000 - 10 * 1010 // 1000 sats + the 10-sat service fee each
  assert.is(await balance(), reserved)
  await running().kill()
  await Promise.all(paying)

  // While it is down: the user's invoice and three invoices of nobody here settle (settle indexes 10,002 … 10,005).
  fake.settleInvoice(hashOf(whileDown))
  for (let n = 0; n < 3; n++) {
    const other = fake.node.invoices.add({ valueMsat: 5000, memo: 'elsewhere', descriptionHash: Buffer.alloc(0), expirySec: 3600, private: false })
    fake.settleInvoice(other.paymentHash)
  }
  resetTraffic()
  const dataDir = running().dataDir
  // A busy LND: each payment's state comes 5 s after it is asked for. A start that waited for them would serve after.
  fake.faults.trackDelayMs = 5_000

  await restartWhileLndHoldsTracks(dataDir)
  // Still being asked about: in flight to anyone who asks, refused if paid again, its sats still reserved.
  const pending = payments[0]
  const state = await ok(running(), '/api/user/payment/state', userAuth, { invoice: pending.request })
  assert.is(state.paid_at_unix, 0)
  const again = await call(running(), '/api/user/invoice/pay', userAuth, { invoice: pending.request, amount: 0 })
  assert.is(again.status, 'ERROR')
  assert.match(again.reason, 'payment already in progress')
  assert.is(asked('SendPaymentV2'), 0, 'LND was asked to pay again')
  await until(async () => (await balance()) === reserved + 3000, 'the settlement made while down to be credited')
  // Each payment is asked about (TrackPaymentV2, all at once) and, LND saying in flight 5 s later, watched; the
  // start had served long before.
  await until(() => running().logs().includes('"msg":"resolved payments left pending by the last stop"'), 'the first round of asking', 60_000)
  assert.ok(asked('TrackPaymentV2') >= 10, `${asked('TrackPaymentV2')} TrackPaymentV2 calls`)
  servedBeforeResolving(running().logs())
  assert.is(asked('ListInvoices'), 0, 'the start read the invoice list')
  assert.is(asked('SubscribeInvoices'), 1)
  assert.is(fake.node.traffic.invoicesReplayed, 4, 'replayed more or less than the four settlements missed')

  // Killed again while the payments are being asked about: nothing moved, nothing is moved twice.
  await running().kill()
  resetTraffic()
  await restartWhileLndHoldsTracks(dataDir)
  assert.is(await balance(), reserved + 3000)
  assert.is(fake.node.traffic.invoicesReplayed, 0)

  fake.faults.trackDelayMs = 0
  // LND decides: five succeed, five fail. The reserved sats of the failed ones come back, once.
  payments.forEach((p, n) => {
    if (n % 2 === 0) fake.resolvePayment(p.paymentHash, { preimage: p.preimage })
    else fake.resolvePayment(p.paymentHash, { failed: 'FAILURE_REASON_NO_ROUTE' })
  })
  const final = reserved + 3000 + 5 * 1010
  await until(async () => {
    for (const p of payments) {
      const paid = (await ok(running(), '/api/user/payment/state', userAuth, { invoice: p.request })).paid_at_unix
      if (paid === 0) return false
    }
    return true
  }, 'every payment to be resolved')
  for (const [n, p] of payments.entries()) {
    const paid = (await ok(running(), '/api/user/payment/state', userAuth, { invoice: p.request })).paid_at_unix
    if (n % 2 === 0) assert.ok(paid > 0, `payment ${n} not settled`)
    else assert.is(paid, -1, `payment ${n} not refunded`)
  }
  assert.is(await balance(), final)
  await assertAuditClean(dataDir)

  // A clean restart replays nothing and changes nothing.
  await running().stop()
  resetTraffic()
  daemon = await startDaemon({ dataDir })
  assert.is(await balance(), final)
  assert.is(fake.node.traffic.invoicesReplayed, 0)
  assert.is(asked('ListInvoices'), 0)
  await assertAuditClean(dataDir)
})

s.run()
