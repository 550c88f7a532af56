// One fault cycle under mixed load: internal and external payments and payments from outside over HTTP,
// restaurant orders paid by a customer wallet, payroll ticks, and payments over the relay (kind-21000 RPC) —
// each started at a random moment of a short window, and the daemon SIGKILLed at another random moment.
//
// The oracle. An operation whose OK answer reached the client is acknowledged: it must have applied. One that got
// no answer may or may not have applied, but never twice. After the restart the client does what a real one
// does — it sends every request again (the same invoice, the same signed event) — and the answers must agree
// with what it was told before: an acknowledged payment sent again is refused as already paid, never run again.
// Afterwards every operation has applied exactly once (payments to other nodes: as their final state says), so
// every wallet's balance is known exactly, and `relaypay audit` (run on the dead daemon's data, after every
// kill) must find the books clean.
import * as assert from 'uvu/assert'
import { outsideInvoice } from '../support/outside-invoice.js'
import { audit, call, ok } from '../support/money.js'
import { until } from '../support/until.js'
import type { Reply } from '../support/pub-client.js'
import type { SeededRandom } from './seeded-random.js'
import { colaSats, feeSats, fundingSats, simulatedRouteFeeMsat, steadily, type ChaosWorld, type HttpWallet } from './chaos-world.js'

export interface LoadMix {
  internal: number
  external: number
  receipts: number
  orders: number
  relayPayments: number
  ticks: number
  /** How long the load is spread over (ms); the kill lands anywhere in it or up to 600 ms after. */
  windowMs: number
}

/** How long after the load's window the kill may still come (so some cycles end idle). */
const afterWindowMs = 600
/** CHAOS_VERBOSE=1 prints where each cycle's time goes. */
const verbose = process.env.CHAOS_VERBOSE === '1'
const alreadyPaid = 'this invoice was already paid'

type Op =
  | { kind: 'internal'; payer: HttpWallet; payee: HttpWallet; invoice: string; sats: number; acked: boolean }
  | { kind: 'external'; invoice: string; sats: number; acked: boolean }
  | { kind: 'receipt'; invoice: string; sats: number; acked: boolean }
  | { kind: 'order'; sats: number; order?: { id: string; invoice: string }; acked: boolean }
  | { kind: 'relay'; invoice: string; sats: number; event: any; requestId: string; acked: boolean }

/**
 * What strikes the daemon once the load runs: by default a SIGKILL. A fault that leaves the daemon up (database
 * sessions dropped under it) answers 'up'; one after which it is gone (killed, or exited by itself) answers 'down',
 * and the cycle starts it again on the same data dir, as its supervisor would.
 */
export interface CycleFault {
  /** Said in failure messages: "after <name>". */
  name: string
  strike(world: ChaosWorld): Promise<'up' | 'down'>
}

export const sigkill: CycleFault = {
  name: 'the kill',
  async strike(world) {
    await world.daemon.kill()
    return 'down'
  },
}

export interface CycleStats {
  sent: number
  acked: number
  paidPeriods: number
}

export interface CycleOptions {
  /**
   * The kill waits for the cycle's first answer, then comes a quarter of its drawn moment later: for a machine so
   * loaded that cycles with the kill at its drawn moment had it land before anything was answered.
   */
  killAfterAnAnswer?: boolean
}

/** How long a cycle with `killAfterAnAnswer` waits for an answer before the kill comes anyway. */
const answerWaitMs = 30_000

export async function runCycle(
  world: ChaosWorld,
  random: SeededRandom,
  mix: LoadMix,
  cycle: number,
  fault: CycleFault = sigkill,
  opts: CycleOptions = {},
): Promise<CycleStats> {
  const when = `cycle ${cycle} (seed ${random.seed})`
  let phaseStart = Date.now()
  const phase = (name: string) => {
    if (verbose) process.stdout.write(`    ${when} ${name}: ${Date.now() - phaseStart} ms\n`)
    phaseStart = Date.now()
  }
  const d = world.daemon
  const steady = steadily(d)
  const { alice, bob, carol } = world.http
  const { payer, payee } = world.relay

  // Set-up the load needs, done before the window: invoices to pay and a payroll contract with periods due.
  const sats = () => random.between(100, 1500)
  const amounts = (n: number) => Array.from({ length: n }, sats)
  const [internal, receipts, relayInvoices] = await Promise.all([
    Promise.all(amounts(mix.internal).map(async amount => {
      const { invoice } = await ok(steady, '/api/user/invoice/new', bob.auth, { amountSats: amount, memo: 'chaos internal' })
      return { kind: 'internal', payer: alice, payee: bob, invoice, sats: amount, acked: false } as const
    })),
    Promise.all(amounts(mix.receipts).map(async amount => {
      const { invoice } = await ok(steady, '/api/user/invoice/new', alice.auth, { amountSats: amount, memo: 'chaos receipt' })
      return { kind: 'receipt', invoice, sats: amount, acked: false } as const
    })),
    Promise.all(amounts(mix.relayPayments).map(async amount => {
      const { invoice } = await payee.client.ok('NewInvoice', { amountSats: amount, memo: 'chaos relay' })
      return { invoice, sats: amount }
    })),
  ])
  const ops: Op[] = [...internal, ...receipts]
  for (const amount of amounts(mix.external)) {
    const invoice = outsideInvoice({ network: 'regtest', nowMs: Date.now(), amountMsat: amount * 1000 }).paymentRequest
    ops.push({ kind: 'external', invoice, sats: amount, acked: false })
  }
  for (let i = 0; i < mix.orders; i++) ops.push({ kind: 'order', sats: colaSats * random.between(1, 3), acked: false })
  for (const { invoice, sats: amount } of relayInvoices) {
    const { event, requestId } = payer.client.request('PayInvoice', { invoice, amount: 0 })
    ops.push({ kind: 'relay', invoice, sats: amount, event, requestId, acked: false })
  }
  if (mix.ticks > 0) await newPayrollContract(world, random)
  phase('set-up')

  // The window: every operation at its own moment, the kill at another.
  let killed = false
  let markKilled!: () => void
  const killedNow = new Promise<'killed'>(resolve => (markKilled = () => resolve('killed')))
  const at = (ms: number) => new Promise(resolve => setTimeout(resolve, ms))
  let markAnswered!: () => void
  const answered = new Promise<void>(resolve => (markAnswered = resolve))
  const orderBody = (op: Extract<Op, { kind: 'order' }>) => ({
    restaurant_id: world.restaurantId,
    items: [{ item_id: world.colaId, quantity: op.sats / colaSats }],
  })
  const send = async (op: Op): Promise<void> => {
    await at(random.below(mix.windowMs))
    switch (op.kind) {
      case 'internal':
        op.acked = (await call(d, '/api/user/invoice/pay', op.payer.auth, { invoice: op.invoice, amount: 0 }))?.status === 'OK'
        return
      case 'external':
        op.acked = (await call(d, '/api/user/invoice/pay', alice.auth, { invoice: op.invoice, amount: 0 }))?.status === 'OK'
        return
      case 'receipt':
        op.acked = (await call(d, '/api/node/mock/invoice/paid', '', { invoice: op.invoice, amount: 0 }))?.status === 'OK'
        return
      case 'order': {
        const placed = await d.request('POST', '/restaurant/api/v1/orders', { body: orderBody(op) })
        assert.is(placed.status, 201, `${when}: placing an order: ${placed.text}`)
        op.order = { id: placed.json.order.id, invoice: placed.json.invoice.payment_request }
        op.acked = (await call(d, '/api/user/invoice/pay', carol.auth, { invoice: op.order.invoice, amount: 0 }))?.status === 'OK'
        return
      }
      case 'relay': {
        const reply = payer.client.waitFor(op.requestId, 60_000)
        reply.catch(() => {})
        payer.client.publish(op.event, undefined, 3_000).catch(() => {})
        const answer = await Promise.race([reply, killedNow])
        if (answer !== 'killed') op.acked = answer.status === 'OK'
        return
      }
    }
  }
  const ticks = Array.from({ length: mix.ticks }, async () => {
    await at(random.below(mix.windowMs))
    const tick = await world.admin('POST', '/payroll/api/v1/scheduler/tick')
    assert.is(tick.status, 200, `${when}: tick: ${tick.text}`)
    for (const row of tick.json.payouts) if (row.status === 'paid') world.paidPeriods.set(`${row.contract_id}/${row.period}`, row.payment_hash)
  })
  const killAt = random.below(mix.windowMs + afterWindowMs)
  const sent = ops.map(op => send(op).then(() => void (op.acked && markAnswered())))
  const load = [...sent, ...ticks].map(p => p.catch(err => (killed ? undefined : Promise.reject(err))))
  if (opts.killAfterAnAnswer) {
    // Unref'd: once an answer came, the wait's timer must not hold the test process open.
    await Promise.race([answered, new Promise(resolve => setTimeout(resolve, answerWaitMs).unref())])
    await at(killAt / 4)
  } else {
    await at(killAt)
  }
  killed = true
  const after = await fault.strike(world)
  if (after === 'down') markKilled()
  await Promise.all(load)
  phase(`load, ${fault.name} at ${killAt} ms`)

  if (after === 'up') {
    // The daemon rode the fault out: its books must audit clean as they stand.
    const books = await audit(world.dataDir)
    assert.ok(books.ok, `${when}: relaypay audit after ${fault.name} at ${killAt} ms: ${JSON.stringify(books, null, 2)}`)
  } else {
    // The books the crash left must audit clean: the restarted daemon audits them before it resolves anything, and
    // `relaypay audit` checks them as an operator would, alongside the start (it reads one consistent snapshot).
    // A quarter of the cycles crash once more while the daemon recovers.
    const crashAgain = random.next() < 0.25 ? random.next() : undefined
    if (crashAgain !== undefined) await world.crashWhileStarting(crashAgain)
    const [books, restarted] = await Promise.all([audit(world.dataDir), world.restart()])
    const kills = `${fault.name} at ${killAt} ms${crashAgain === undefined ? '' : ` and a kill ${Math.round(crashAgain * 100)} % into the restart`}`
    assert.ok(books.ok, `${when}: relaypay audit after ${kills}: ${JSON.stringify(books, null, 2)}`)
    phase('audit and restart')
    // Its log reaches us through a pipe, possibly a moment after its daemon.json did: wait for the line, do not race it.
    await until(() => /ledger audit clean/.test(restarted.logs()), `${when}: the restarted daemon's own audit after ${kills}`, 10_000)
  }

  // Independent of each other, so sent again all at once, as separate clients would.
  await Promise.all(ops.map(op => resend(world, op, when)))
  phase('resend')
  await recountPayroll(world, when, cycle)
  phase('payroll')
  return { sent: ops.length + mix.ticks, acked: ops.filter(op => op.acked).length, paidPeriods: world.paidPeriods.size }
}

/** What newPayrollContract's contracts pay: five periods, all due at once, then nothing more. */
const periodsPerContract = 5

/** A new daily contract, back-dated so that all of its 5 periods are due and paid by the next tick. */
async function newPayrollContract(world: ChaosWorld, random: SeededRandom): Promise<void> {
  const start = new Date(Date.now() - 6 * 86_400_000).toISOString().slice(0, 10)
  const made = await world.admin('POST', '/payroll/api/v1/contracts', {
    name: 'Chaos salary',
    employee_wallet: world.http.employee.userId,
    source_wallet: world.http.source.userId,
    amount: String(random.between(100, 300)),
    currency: 'sat',
    frequency: 'daily',
    start_date: start,
    total_periods: periodsPerContract,
    backfill: true,
  })
  assert.is(made.status, 201, made.text)
  world.payroll.open.add(made.json.id)
}

/** Sends one operation again, as its client would after the crash, and books what it applied (exactly once). */
async function resend(world: ChaosWorld, op: Op, when: string): Promise<void> {
  const d = steadily(world.daemon)
  const { alice } = world.http
  const what = `${when}: ${op.kind} of ${op.sats} sat (${op.acked ? 'acknowledged' : 'unanswered'})`
  const payAgain = async (payer: HttpWallet, invoice: string) => {
    const again = await call(d, '/api/user/invoice/pay', payer.auth, { invoice, amount: 0 })
    if (op.acked) assert.equal(again, { status: 'ERROR', reason: alreadyPaid }, `${what}: paid twice`)
    else if (again.status !== 'OK') assert.is(again.reason, alreadyPaid, what)
  }
  const paid = (payer: { expectedMsat: number }, feeToAppMsat: number) => {
    payer.expectedMsat -= (op.sats + feeSats(op.sats)) * 1000
    world.appExpectedMsat += feeToAppMsat
  }

  switch (op.kind) {
    case 'internal':
      await payAgain(op.payer, op.invoice)
      paid(op.payer, feeSats(op.sats) * 1000)
      op.payee.expectedMsat += op.sats * 1000
      return
    case 'order': {
      if (!op.order) return // never placed: no order, no money
      await payAgain(world.http.carol, op.order.invoice)
      paid(world.http.carol, feeSats(op.sats) * 1000)
      world.http.diner.expectedMsat += op.sats * 1000
      // The order turns paid from the paid invoice, also when the crash came between the two.
      await eventually(async () => (await d.request('GET', `/restaurant/api/v1/orders/${op.order!.id}`)).json?.status === 'paid', `${what}: the order to turn paid`)
      return
    }
    case 'receipt': {
      const again = await call(d, '/api/node/mock/invoice/paid', '', { invoice: op.invoice, amount: 0 })
      if (op.acked) assert.equal(again, { status: 'ERROR', reason: 'invoice is already paid' }, `${what}: credited twice`)
      else if (again.status !== 'OK') assert.is(again.reason, 'invoice is already paid', what)
      alice.expectedMsat += op.sats * 1000
      world.netInflowMsat += op.sats * 1000
      return
    }
    case 'external': {
      // A payment to another node is not sent again: it ends as the node says, settled or refunded.
      let state: any
      await eventually(async () => {
        state = await call(d, '/api/user/payment/state', alice.auth, { invoice: op.invoice })
        return state.status === 'ERROR' || state.paid_at_unix !== 0
      }, `${what}: to resolve`)
      if (state.status === 'ERROR') {
        assert.is(state.reason, 'payment not found', what)
        assert.not.ok(op.acked, `${what}: acknowledged, then lost`)
        return
      }
      if (op.acked) assert.ok(state.paid_at_unix > 0, `${what}: acknowledged, then refunded`)
      if (state.paid_at_unix < 0) return
      paid(alice, feeSats(op.sats) * 1000 - simulatedRouteFeeMsat(op.sats))
      world.netInflowMsat -= op.sats * 1000 + simulatedRouteFeeMsat(op.sats)
      return
    }
    case 'relay': {
      const { client } = world.relay.payer
      if (!op.acked) {
        // Unanswered: the restarted daemon may have taken the request from the relay and answered it already;
        // else the same signed event goes out again. Either way it ran at most once: OK, or "outcome unknown"
        // when an earlier run claimed it and died — never "already paid", which would mean it ran twice.
        const reply = client.messages(op.requestId).at(-1) ?? (await resendEvent(op))
        if (reply.status !== 'OK') {
          assert.match(reply.reason, /outcome is unknown/, `${what}: ${JSON.stringify(reply)}`)
          const state = await client.call('GetPaymentState', { invoice: op.invoice })
          if (state.status === 'ERROR') {
            assert.is(state.reason, 'payment not found', what)
            await client.ok('PayInvoice', { invoice: op.invoice, amount: 0 })
          } else {
            assert.ok(state.paid_at_unix > 0, what)
          }
        }
      }
      const again = await client.call('PayInvoice', { invoice: op.invoice, amount: 0 })
      assert.equal([again.status, again.reason], ['ERROR', alreadyPaid], `${what}: paid twice`)
      paid(world.relay.payer, 0) // its fee goes to the default app, which only the whole-books check counts
      world.relay.payee.expectedMsat += op.sats * 1000
      return
    }
  }

  /** Publishes the event again and waits for a reply to it that arrives from now on (a slow restart may take minutes). */
  async function resendEvent(relayOp: Extract<Op, { kind: 'relay' }>): Promise<Reply> {
    const { client } = world.relay.payer
    const before = client.messages(relayOp.requestId).length
    await client.publish(relayOp.event, undefined, 60_000)
    const deadline = Date.now() + 60_000
    for (;;) {
      const reply = client.messages(relayOp.requestId)[before]
      if (reply) return reply
      if (Date.now() > deadline) {
        // What the daemon said of it (its id, or any error), for a failure that cannot be rerun.
        const said = world.daemon.logs().split('\n').filter(line => line.includes(relayOp.event.id) || /"level":(50|60)/.test(line))
        assert.unreachable(`${what}: no reply to event ${relayOp.event.id} (data ${world.dataDir}); the daemon's lines on it and its errors:\n${said.slice(-30).join('\n')}`)
      }
      await new Promise(resolve => setTimeout(resolve, 50))
    }
  }
}

/**
 * A recount reads the whole payout ledger in each of a run's first cycles and every this many after; in between it
 * reads the contracts not yet paid in full. The ledger grows by a contract's five rows a cycle, so reading all of it
 * every cycle made an hour's soak a load that grows: about 9,000 rows, some 3 MB of JSON every 2 s by the end.
 */
const fullRecountEvery = 25

/**
 * A full recount reads the ledger this many rows at a time. Read whole, the ledger of an hour's soak was one reply
 * of some 3 MB built at once on the daemon's main thread, and larger with every cycle.
 */
const ledgerPage = 500

/**
 * The payroll ledger after the restart: no period paid twice, every period a tick said was paid still paid, and
 * the source and employee balances exactly what the paid periods moved.
 */
async function recountPayroll(world: ChaosWorld, when: string, cycle: number): Promise<void> {
  const full = cycle <= fullRecountEvery || cycle % fullRecountEvery === 0
  const read = async (query: string) => {
    const rows = (await world.admin('GET', `/payroll/api/v1/payouts${query}`)).json as any[]
    assert.ok(Array.isArray(rows), `${when}: payouts${query}`)
    return rows
  }
  // The whole ledger a page at a time, as a caller with years of payouts would read it.
  const readAll = async () => {
    const rows: any[] = []
    for (let page = await read(`?limit=${ledgerPage}`); ; page = await read(`?limit=${ledgerPage}&before=${rows.at(-1).id}`)) {
      rows.push(...page)
      if (page.length < ledgerPage) return rows
    }
  }
  const { payroll } = world
  const contracts = full ? undefined : [...payroll.open]
  const rows = contracts ? (await Promise.all(contracts.map(id => read(`?contract_id=${id}`)))).flat() : await readAll()
  const paid = new Map<string, any>()
  for (const row of rows.filter(r => r.status === 'paid')) {
    const key = `${row.contract_id}/${row.period}`
    assert.not.ok(paid.has(key), `${when}: period ${key} paid twice`)
    paid.set(key, row)
  }
  for (const [key, hash] of world.paidPeriods) {
    if (contracts && !payroll.open.has(key.slice(0, key.lastIndexOf('/')))) continue
    assert.is(paid.get(key)?.payment_hash, hash, `${when}: period ${key} was paid (the tick said so), now it is not`)
  }
  // What each contract read has moved, and how many of its periods are paid.
  const moved = new Map<string, { periods: number; outMsat: number; feesMsat: number }>()
  for (const row of paid.values()) {
    const sums = moved.get(row.contract_id) ?? { periods: 0, outMsat: 0, feesMsat: 0 }
    sums.periods++
    sums.outMsat += row.amount_msat
    sums.feesMsat += feeSats(row.amount_msat / 1000) * 1000
    moved.set(row.contract_id, sums)
  }
  if (full) {
    payroll.closedOutMsat = 0
    payroll.closedFeesMsat = 0
  }
  let out = payroll.closedOutMsat
  let fees = payroll.closedFeesMsat
  for (const [id, sums] of moved) {
    out += sums.outMsat
    fees += sums.feesMsat
    // Paid in full: counted from here on without being read again (until the next full recount).
    if (sums.periods === periodsPerContract) {
      payroll.open.delete(id)
      payroll.closedOutMsat += sums.outMsat
      payroll.closedFeesMsat += sums.feesMsat
    }
  }
  world.http.employee.expectedMsat = out
  world.http.source.expectedMsat = fundingSats * 1000 - out - fees
  world.payrollFeesMsat = fees
}

async function eventually(check: () => Promise<boolean>, what: string, ms = 60_000): Promise<void> {
  const until = Date.now() + ms
  while (!(await check())) {
    if (Date.now() > until) assert.unreachable(`timed out waiting for ${what}`)
    await new Promise(resolve => setTimeout(resolve, 50))
  }
}
