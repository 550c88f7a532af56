// Crashes during a payment load: the daemon is SIGKILLed at a random moment while internal payments, external
// payments (simulated, in flight for 200 ms) and incoming settlements run, then restarted on the same data, 20
// times a run. After every crash the books audit clean (the daemon's own audit at restart); after the last restart
// every payment is settled or refunded (never both, and as the node itself recorded it), and every balance is
// exactly what the payments that succeeded say it should be.
import path from 'node:path'
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import Database from 'better-sqlite3'
import { withBooks } from '../support/books.js'
import { startDaemon, type TestDaemon } from '../support/daemon.js'
import { addAppUser, createAppWithUser, jwtSecretConfig, type TestAppUser } from '../support/accounts.js'
import { outsideInvoice } from '../support/outside-invoice.js'
import { appBalance, assertAuditClean, balanceOf, call, newInvoice, ok } from '../support/money.js'
import { shareOfRun } from '../support/run-share.js'

const jwtSecret = 'wallet-crash-test-secret-0123456789abcd'
const config = `${jwtSecretConfig(jwtSecret)}\n[node]\nsimulate_payments = true\n`
/** 20 crashes a run: in a run with a PostgreSQL half, 10 on each engine (run-share.ts). */
const crashes = Number(process.env.CRASH_ROUNDS ?? 20 * shareOfRun())
const perRound = { internal: 6, external: 6, receipts: 3 }
/** External payments are in flight for 200 ms: kills land before, during and after them. */
const maxKillDelayMs = 500
const sats = { payment: 1000, receipt: 2000, funding: 400_000 }
const seed = Number(process.env.CRASH_SEED ?? Date.now() % 1_000_000)

/** mulberry32: the kill moments are reproducible from the printed seed. */
function prng(state: number) {
  return () => {
    state = (state + 0x6d2b79f5) | 0
    let t = Math.imul(state ^ (state >>> 15), 1 | state)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const test = suite(`SIGKILL during payments (seed ${seed})`)
let daemon: TestDaemon | undefined

test.after(async () => {
  await daemon?.stop()
})

test(`${crashes} crashes at random moments lose, create and double-spend nothing`, async () => {
  const random = prng(seed)
  daemon = await startDaemon({ config })
  const dataDir = daemon.dataDir
  const app: TestAppUser = await createAppWithUser(daemon, { jwtSecret, identifier: 'crash-payer' })
  const payee = await addAppUser(daemon, { appToken: app.appToken, appId: app.appId, jwtSecret, identifier: 'crash-payee' })
  await ok(daemon, '/api/app/mock/user/blance/set', app.appToken, { user_identifier: 'crash-payer', amount: sats.funding })

  const attempted: string[] = [] // every invoice the payer tried to pay
  const receipts: string[] = [] // every invoice of the payer settled (or maybe settled) from outside

  for (let round = 0; round < crashes; round++) {
    const d = daemon!
    const internal = await Promise.all(Array.from({ length: perRound.internal }, () => newInvoice(d, payee.userToken, sats.payment)))
    const incoming = await Promise.all(Array.from({ length: perRound.receipts }, () => newInvoice(d, app.userToken, sats.receipt)))
    const external = Array.from({ length: perRound.external }, () =>
      outsideInvoice({ network: 'regtest', nowMs: Date.now(), amountMsat: sats.payment * 1000 }).paymentRequest,
    )
    attempted.push(...internal, ...external)
    receipts.push(...incoming)
    // Interleaved, so that a kill at any moment cuts every kind of work.
    const work = internal.flatMap((invoice, i) => [
      () => call(d, '/api/user/invoice/pay', app.userToken, { invoice: external[i], amount: 0 }),
      () => call(d, '/api/user/invoice/pay', app.userToken, { invoice, amount: 0 }),
      ...(i < incoming.length ? [() => call(d, '/api/node/mock/invoice/paid', '', { invoice: incoming[i], amount: 0 })] : []),
    ])
    const load = work.map(send => send().catch(() => undefined)) // a request cut by the kill has no answer
    await new Promise(resolve => setTimeout(resolve, Math.floor(random() * maxKillDelayMs)))
    await d.kill()
    await Promise.all(load)
    // The daemon audits the books at start, before it resolves anything: this checks the state the crash left.
    daemon = await startDaemon({ config, dataDir })
    assert.match(daemon.logs(), /ledger audit clean/, `audit after crash ${round + 1} failed:\n${daemon.logs()}`)
  }

  // Settle every receipt that the crashes left unsettled, so each counts exactly once below.
  for (const invoice of receipts) {
    const reply = await call(daemon!, '/api/node/mock/invoice/paid', '', { invoice, amount: 0 })
    if (reply.status !== 'OK') assert.is(reply.reason, 'invoice is already paid')
  }

  let internalPaid = 0
  let externalPaid = 0
  for (const invoice of attempted) {
    const state = await call(daemon!, '/api/user/payment/state', app.userToken, { invoice })
    if (state.status === 'ERROR') {
      assert.is(state.reason, 'payment not found') // killed before its debit committed
      continue
    }
    assert.is.not(state.paid_at_unix, 0, `still pending after restart: ${invoice}`)
    if (state.paid_at_unix > 0) {
      if (state.internal) internalPaid++
      else externalPaid++
    }
  }
  const paid = internalPaid + externalPaid
  assert.ok(internalPaid > 0 && externalPaid > 0, `the load did not run: ${internalPaid} internal, ${externalPaid} external paid`)

  const expectedPayer = sats.funding + receipts.length * sats.receipt - paid * (sats.payment + 10)
  assert.is(await balanceOf(daemon!, app.appToken, 'crash-payer'), expectedPayer)
  assert.is(await balanceOf(daemon!, app.appToken, 'crash-payee'), internalPaid * sats.payment)
  // The app keeps the whole fee of an internal payment and the fee minus the simulated 2-sat route externally.
  assert.is(await appBalance(daemon!, app.appToken), internalPaid * 10 + externalPaid * 8)
  await assertAuditClean(dataDir)

  // The balances above agree with the wallet's own records; the node is the independent witness of what left.
  // Every external payment it completed must be settled, and one it never sent (or failed) refunded.
  // The wallet's payments are in the books (the SQLite file or PostgreSQL); the embedded node's own records are
  // always in the data dir's SQLite file.
  const walletPayments = await withBooks(dataDir, books =>
    books.many<{ hash: string; wallet: string }>('SELECT payment_hash AS hash, status AS wallet FROM payments WHERE internal = 0'), { readonly: true })
  const db = new Database(path.join(dataDir, 'relaypay.sqlite'), { readonly: true })
  const nodeStatus = db.prepare('SELECT status FROM node_payments WHERE payment_hash = ?').pluck()
  const external = walletPayments.map(p => ({ ...p, node: (nodeStatus.get(p.hash) as string | undefined) ?? null }))
  db.close()
  assert.is(external.length > 0, true, 'no external payment reached the wallet')
  for (const p of external) {
    if (p.wallet === 'succeeded') assert.is(p.node, 'succeeded', `settled but the node did not pay: ${p.hash}`)
    else assert.ok(p.node === null || p.node === 'failed', `refunded (${p.wallet}) but the node paid: ${p.hash}`)
  }
})

test.run()
