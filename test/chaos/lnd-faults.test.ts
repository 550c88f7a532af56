// LND misbehaving under load, through the fake LND: payments left in flight while their streams drop, the invoice
// stream dropped and refused while invoices are paid, LND itself restarted, and the daemon SIGKILLed with payments
// in flight — in seeded random order. Each round: the receiver is credited exactly once per invoice LND settled,
// every payment ends as LND decided it (settled when it succeeded, refunded when it failed, never both), an OK
// answer is never followed by a refund, and `relaypay audit` is clean.
import { createHash, randomBytes } from 'node:crypto'
import { decode } from 'light-bolt11-decoder'
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { startDaemon, type TestDaemon } from '../support/daemon.js'
import { startFakeLnd, type FakeLnd } from '../support/fake-lnd/fake-lnd.js'
import { addAppUser, createAppWithUser, jwtSecretConfig, type TestAppUser } from '../support/accounts.js'
import { outsideInvoice } from '../support/outside-invoice.js'
import { assertAuditClean, balanceOf, call, ok } from '../support/money.js'
import { until as waitUntil } from '../support/until.js'

/** This campaign's waits span LND outages: a minute before a wait fails. */
const until = (check: () => boolean | Promise<boolean>, what: string, ms = 60_000) => waitUntil(check, what, ms)
import { feeSats } from './chaos-world.js'
import { chaosCycles, chaosSeed, seededRandom } from './seeded-random.js'

const seed = chaosSeed(21)
const rounds = chaosCycles(6)
const jwtSecret = 'chaos-lnd-faults-secret-0123456789abcdef'
const perRound = { incoming: 3, outgoing: 3 }
const faults = ['drop streams', 'refuse invoice stream', 'restart LND', 'kill daemon'] as const

const test = suite(`the fake LND dropping streams and leaving payments in flight (seed ${seed})`)
let fake: FakeLnd | undefined
let daemon: TestDaemon | undefined

test.after(async () => {
  await daemon?.stop()
  await fake?.close()
})

const hashOf = (invoice: string) => (decode(invoice).sections.find(s => s.name === 'payment_hash') as { value: string }).value

test(`${rounds} rounds of LND faults: every settlement credited once, every payment as LND decided`, async () => {
  const random = seededRandom(seed)
  fake = await startFakeLnd({ network: 'regtest' })
  const lnd = fake
  const c = lnd.connection
  const config =
    jwtSecretConfig(jwtSecret) +
    `[node]\nbackend = "lnd"\nnetwork = "regtest"\nlnd_socket = "${c.socket}"\nlnd_cert_path = "${c.certPath}"\nlnd_macaroon_path = "${c.macaroonPath}"\nwait_for_node = true\n`
  daemon = await startDaemon({ config, startTimeoutMs: 90_000 })
  const dataDir = daemon.dataDir
  const payer: TestAppUser = await createAppWithUser(daemon, { jwtSecret, identifier: 'lnd-chaos-payer' })
  const payee = await addAppUser(daemon, { appToken: payer.appToken, appId: payer.appId, jwtSecret, identifier: 'lnd-chaos-payee' })
  const { invoice: funding } = await ok(daemon, '/api/user/invoice/new', `Bearer ${payer.userToken}`, { amountSats: 1_000_000, memo: 'funding' })
  lnd.settleInvoice(hashOf(funding))
  await until(async () => (await balanceOf(daemon!, payer.appToken, payer.identifier)) === 1_000_000, 'the funding to be credited')

  let expectedPayer = 1_000_000
  let expectedPayee = 0
  const seen: Record<(typeof faults)[number], number> = { 'drop streams': 0, 'refuse invoice stream': 0, 'restart LND': 0, 'kill daemon': 0 }

  for (let round = 1; round <= rounds; round++) {
    const when = `round ${round} (seed ${seed})`
    const d = daemon
    const incoming = await Promise.all(
      Array.from({ length: perRound.incoming }, async () => {
        const sats = random.between(100, 1500)
        const { invoice } = await ok(d, '/api/user/invoice/new', `Bearer ${payee.userToken}`, { amountSats: sats, memo: 'chaos' })
        return { hash: hashOf(invoice), sats }
      }),
    )
    // Payments to other nodes, held in flight by LND until this round decides them.
    lnd.faults.holdPayments = true
    const outgoing = Array.from({ length: perRound.outgoing }, () => {
      const preimage = randomBytes(32).toString('hex')
      const paymentHash = createHash('sha256').update(Buffer.from(preimage, 'hex')).digest('hex')
      const sats = random.between(100, 1500)
      const foreign = outsideInvoice({ network: 'regtest', nowMs: Date.now(), amountMsat: sats * 1000, paymentHash })
      const answer = call(d, '/api/user/invoice/pay', `Bearer ${payer.userToken}`, { invoice: foreign.paymentRequest, amount: 0 }).catch(() => undefined)
      return { invoice: foreign.paymentRequest, paymentHash, preimage, sats, succeeds: random.next() < 0.5, answer }
    })
    await until(() => outgoing.every(p => lnd.node.payments.get(p.paymentHash)?.status === 'IN_FLIGHT'), `${when}: the payments to reach LND`)

    const fault = faults[random.below(faults.length)]!
    seen[fault]++
    const settleAndResolve = () => {
      for (const { hash } of incoming) lnd.settleInvoice(hash)
      for (const p of outgoing) lnd.resolvePayment(p.paymentHash, p.succeeds ? { preimage: p.preimage } : { failed: 'FAILURE_REASON_NO_ROUTE' })
    }
    switch (fault) {
      case 'drop streams':
        // Half of the outcomes happen while the streams are down, half after the daemon is back on them.
        lnd.dropPaymentStreams()
        lnd.dropInvoiceStreams()
        settleAndResolve()
        break
      case 'refuse invoice stream':
        lnd.faults.refuseInvoiceStreams = true
        lnd.dropInvoiceStreams()
        lnd.dropPaymentStreams()
        settleAndResolve()
        await new Promise(resolve => setTimeout(resolve, random.between(200, 1500)))
        lnd.faults.refuseInvoiceStreams = false
        break
      case 'restart LND':
        await lnd.stop()
        settleAndResolve()
        await new Promise(resolve => setTimeout(resolve, random.between(200, 1500)))
        await lnd.start()
        break
      case 'kill daemon':
        await d.kill()
        settleAndResolve()
        daemon = await startDaemon({ config, dataDir, startTimeoutMs: 90_000 })
        // Its log reaches us through a pipe, possibly a moment after its daemon.json did: wait for the line.
        await until(() => /ledger audit clean/.test(daemon!.logs()), `${when}: the restarted daemon's own audit`, 10_000)
        break
    }
    lnd.faults.holdPayments = false

    const now = daemon
    for (const p of outgoing) {
      const reply = await p.answer
      await until(async () => {
        const state = await call(now, '/api/user/payment/state', `Bearer ${payer.userToken}`, { invoice: p.invoice })
        return state.status === 'OK' && state.paid_at_unix !== 0
      }, `${when}: a payment to be resolved`)
      const state = await call(now, '/api/user/payment/state', `Bearer ${payer.userToken}`, { invoice: p.invoice })
      assert.is(state.paid_at_unix > 0, p.succeeds, `${when} (${fault}): the payment ended ${state.paid_at_unix > 0 ? 'paid' : 'refunded'}`)
      if (reply?.status === 'OK') assert.ok(p.succeeds, `${when}: answered OK for a payment LND failed`)
      if (p.succeeds) expectedPayer -= p.sats + feeSats(p.sats)
    }
    for (const { sats } of incoming) expectedPayee += sats
    await until(async () => (await balanceOf(now, payer.appToken, payee.identifier)) >= expectedPayee, `${when} (${fault}): the settlements to be credited`)
    assert.is(await balanceOf(now, payer.appToken, payee.identifier), expectedPayee, `${when} (${fault}): the payee's balance`)
    assert.is(await balanceOf(now, payer.appToken, payer.identifier), expectedPayer, `${when} (${fault}): the payer's balance`)
    await assertAuditClean(dataDir)
  }
  process.stdout.write(`    faults: ${JSON.stringify(seen)}\n`)
})

test.run()
