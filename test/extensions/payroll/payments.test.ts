// Paying periods through the wallets (docs/payroll.md, "The tick", "Pay-now", "Paying a period"): what the employee
// receives, what the source loses, and what the ledger says, for ticks, back-dated periods, failures, the fifth
// failure, pay-now and races.
import { suite } from '../../support/suite.js'
import * as assert from 'uvu/assert'
import { contractBody, dayFromToday, startPayrollDaemon, type PayrollDaemon, type TestWallet } from './payroll-daemon.js'

let payroll: PayrollDaemon

/**
 * The payments service's fee on an internal payment by a managed wallet: max(ceil(0.6 %), 10 sat) at the
 * default `[fees]`, so 10 sat on 1000 sat. The source pays it on top of the period's amount.
 */
const feeMsat = 10_000

/** A funded source and an employee with payroll enabled, in a daemon shared by the suite. */
async function pair(sourceSats: number) {
  const employee = await payroll.wallet({ enable: true })
  const source = await payroll.wallet()
  if (sourceSats > 0) await payroll.fund(source, sourceSats)
  return { employee, source }
}

async function create(employee: TestWallet, source: TestWallet, overrides: Record<string, unknown>) {
  const created = await payroll.op('POST', '/contracts', contractBody(employee, source, overrides))
  assert.is(created.status, 201, created.text)
  return created.json
}

async function rowsOf(contractId: string) {
  return (await payroll.op('GET', `/payouts?contract_id=${contractId}`)).json as any[]
}

async function contractOf(contractId: string) {
  return (await payroll.op('GET', `/contracts/${contractId}`)).json
}

const ticks = suite('a tick pays the due periods of active contracts')
ticks.before(async () => {
  payroll = await startPayrollDaemon()
})
ticks.after(() => payroll.stop())

ticks('with backfill, every due period is paid as an internal payment, the memo and amount as documented', async () => {
  const { employee, source } = await pair(10_000)
  const contract = await create(employee, source, { frequency: 'daily', start_date: dayFromToday(-2), total_periods: 5, backfill: true })
  const tick = await payroll.tick()
  assert.is(tick.status, 200, tick.text)
  const mine = tick.json.payouts.filter((row: any) => row.contract_id === contract.id)
  assert.equal(
    mine.map((row: any) => [row.period, row.payday, row.status, row.amount_msat, row.memo, row.detail, row.rate, row.rate_source]),
    [
      [0, dayFromToday(-2), 'paid', 1_000_000, `Alice salary - ${dayFromToday(-2)} . 1000 sat`, '', null, null],
      [1, dayFromToday(-1), 'paid', 1_000_000, `Alice salary - ${dayFromToday(-1)} . 1000 sat`, '', null, null],
      [2, dayFromToday(0), 'paid', 1_000_000, `Alice salary - ${dayFromToday(0)} . 1000 sat`, '', null, null],
    ],
  )
  for (const row of mine) {
    assert.match(row.payment_hash, /^[0-9a-f]{64}$/)
    assert.is(row.employee_wallet, employee.id)
    assert.is(row.source_wallet, source.id)
  }
  assert.is(await payroll.balanceMsat(employee), 3_000_000)
  assert.is(await payroll.balanceMsat(source), 10_000_000 - 3 * (1_000_000 + feeMsat))
  const after = await contractOf(contract.id)
  assert.is(after.periods_done, 3)
  assert.is(after.next_payday, dayFromToday(1))
  // Nothing more is due today: a second tick pays nothing.
  const again = await payroll.tick()
  assert.not.ok(again.json.payouts.some((row: any) => row.contract_id === contract.id))
  assert.is(await payroll.balanceMsat(employee), 3_000_000)
})

ticks('the paid invoice carries the payroll marker', async () => {
  const { employee, source } = await pair(5_000)
  const contract = await create(employee, source, { frequency: 'daily', start_date: dayFromToday(0), total_periods: 2 })
  await payroll.tick()
  const [row] = await rowsOf(contract.id)
  const payment = await payroll.daemon.request('GET', `/api/v1/payments/${row.payment_hash}`, { headers: { 'x-api-key': employee.invoiceKey } })
  assert.is(payment.status, 200, payment.text)
  assert.is(payment.json.paid, true)
  assert.equal(payment.json.details.extra, {
    tag: 'payroll',
    contract_id: contract.id,
    period: 0,
    payday: dayFromToday(0),
    fiat_currency: 'sat',
    fiat_amount: '1000',
    fiat_rate: '1',
    btc_rate: '100000000',
  })
  assert.is(payment.json.details.memo, `Alice salary - ${dayFromToday(0)} . 1000 sat`)
})

ticks('without backfill, paydays before the contract existed are skipped and consume their period', async () => {
  const { employee, source } = await pair(10_000)
  const contract = await create(employee, source, { frequency: 'daily', start_date: dayFromToday(-2), total_periods: 5 })
  await payroll.tick()
  assert.equal(
    (await rowsOf(contract.id)).reverse().map(row => [row.period, row.status, row.amount_msat]),
    [[0, 'skipped', null], [1, 'skipped', null], [2, 'paid', 1_000_000]],
  )
  assert.is(await payroll.balanceMsat(employee), 1_000_000)
  assert.is((await contractOf(contract.id)).periods_done, 3)
})

ticks('a tick handles at most 12 periods of one contract; the next tick continues', async () => {
  const { employee, source } = await pair(10_000)
  const contract = await create(employee, source, { frequency: 'daily', start_date: dayFromToday(-20), total_periods: 30 })
  const first = await payroll.tick()
  const firstRows = first.json.payouts.filter((row: any) => row.contract_id === contract.id)
  assert.is(firstRows.length, 12)
  assert.ok(firstRows.every((row: any) => row.status === 'skipped'))
  assert.is((await contractOf(contract.id)).periods_done, 12)
  const second = await payroll.tick()
  const secondRows = second.json.payouts.filter((row: any) => row.contract_id === contract.id)
  assert.equal(secondRows.map((row: any) => row.status), [...Array(8).fill('skipped'), 'paid'])
  assert.is((await contractOf(contract.id)).periods_done, 21)
})

ticks('a future payday is not paid by a tick', async () => {
  const { employee, source } = await pair(10_000)
  const contract = await create(employee, source, { frequency: 'monthly', start_date: dayFromToday(1), backfill: true })
  await payroll.tick()
  assert.is((await rowsOf(contract.id)).length, 0)
  assert.is(await payroll.balanceMsat(employee), 0)
})

const failures = suite('a failing period halts the backlog; the fifth failure pauses the contract')
failures.before(async () => {
  payroll = await startPayrollDaemon()
})
failures.after(() => payroll.stop())

failures('an underfunded source fails the period with the exact message, five times, then pauses; resume keeps the period', async () => {
  const { employee, source } = await pair(1_500)
  const contract = await create(employee, source, { frequency: 'daily', start_date: dayFromToday(-1), total_periods: 5, backfill: true })
  const payday1 = dayFromToday(0)
  // 1500 − (1000 + the 10 sat fee) = 490 sat left for period 1.
  const cause = 'insufficient balance in source wallet: 490 sat available, 1000 sat required'

  const first = (await payroll.tick()).json.payouts.filter((row: any) => row.contract_id === contract.id)
  assert.equal(first.map((row: any) => [row.period, row.status, row.detail]), [[0, 'paid', ''], [1, 'failed', cause]])
  assert.is(first[1].amount_msat, 1_000_000)
  assert.is(first[1].memo, `Alice salary - ${payday1} . 1000 sat`)
  for (let attempt = 2; attempt <= 4; attempt++) {
    await payroll.tick()
    const state = await contractOf(contract.id)
    assert.is(state.status, 'active', `after failure ${attempt}`)
    assert.is(state.periods_done, 1)
  }
  await payroll.tick()
  const paused = await contractOf(contract.id)
  assert.is(paused.status, 'paused')
  assert.is(paused.paused_reason, `period 1 (${payday1}) failed 5 times: ${cause}`)
  assert.is((await payroll.op('GET', `/payouts?contract_id=${contract.id}&status=failed`)).json.length, 5)
  // Paused: a tick leaves it alone.
  await payroll.tick()
  assert.is((await payroll.op('GET', `/payouts?contract_id=${contract.id}&status=failed`)).json.length, 5)
  assert.is(await payroll.balanceMsat(source), 490_000)

  // Payroll paused it, so resuming keeps period 1; once funded, the next tick pays it.
  const resumed = await payroll.op('POST', `/contracts/${contract.id}/resume`, {})
  assert.is(resumed.json.paused_reason, '')
  assert.is(resumed.json.periods_done, 1)
  await payroll.fund(source, 2_000)
  const paid = (await payroll.tick()).json.payouts.filter((row: any) => row.contract_id === contract.id)
  assert.equal(paid.map((row: any) => [row.period, row.status]), [[1, 'paid']])
  assert.is(await payroll.balanceMsat(employee), 2_000_000)
})

failures('after a payroll pause, catch_up false writes the missed paydays off', async () => {
  const { employee, source } = await pair(0)
  const contract = await create(employee, source, { frequency: 'daily', start_date: dayFromToday(-2), total_periods: 5, backfill: true })
  for (let i = 0; i < 5; i++) await payroll.tick()
  const paused = await contractOf(contract.id)
  assert.is(paused.status, 'paused')
  assert.is(paused.paused_reason, `period 0 (${dayFromToday(-2)}) failed 5 times: insufficient balance in source wallet: 0 sat available, 1000 sat required`)
  const resumed = await payroll.op('POST', `/contracts/${contract.id}/resume`, { catch_up: false })
  assert.is(resumed.json.status, 'active')
  assert.is(resumed.json.periods_done, 2)
  const skipped = await payroll.op('GET', `/payouts?contract_id=${contract.id}&status=skipped`)
  assert.equal(skipped.json.map((row: any) => [row.period, row.detail]), [[1, 'written off on resume'], [0, 'written off on resume']])
})

const payNow = suite('pay-now pays the next period at once and answers with the ledger row')
payNow.before(async () => {
  payroll = await startPayrollDaemon()
})
payNow.after(() => payroll.stop())

payNow('a future period is paid early, consumed, and noted in detail', async () => {
  const { employee, source } = await pair(5_000)
  const contract = await create(employee, source, { start_date: dayFromToday(10), total_periods: 2 })
  const reply = await payroll.op('POST', `/contracts/${contract.id}/pay-now`, {})
  assert.is(reply.status, 200, reply.text)
  assert.is(reply.json.status, 'paid')
  assert.is(reply.json.period, 0)
  assert.is(reply.json.detail, `early payment: payday ${dayFromToday(10)} was not yet due on ${dayFromToday(0)}`)
  assert.is(await payroll.balanceMsat(employee), 1_000_000)
  const after = await contractOf(contract.id)
  assert.is(after.periods_done, 1)
  assert.is(after.status, 'active')
})

payNow('a back-dated period is paid, not skipped, even with backfill off', async () => {
  const { employee, source } = await pair(5_000)
  const contract = await create(employee, source, { frequency: 'weekly', start_date: dayFromToday(-14), total_periods: 4 })
  const reply = await payroll.op('POST', `/contracts/${contract.id}/pay-now`)
  assert.is(reply.json.status, 'paid')
  assert.is(reply.json.payday, dayFromToday(-14))
  assert.is(reply.json.detail, '')
})

payNow('a failed attempt answers 200 with the failed row and leaves the period in place', async () => {
  const { employee, source } = await pair(300)
  const contract = await create(employee, source, { start_date: dayFromToday(3) })
  const reply = await payroll.op('POST', `/contracts/${contract.id}/pay-now`)
  assert.is(reply.status, 200)
  assert.is(reply.json.status, 'failed')
  assert.is(reply.json.detail, 'insufficient balance in source wallet: 300 sat available, 1000 sat required')
  assert.is((await contractOf(contract.id)).periods_done, 0)
})

payNow('a balance that covers the amount but not the fee fails with the insufficient balance message and says so', async () => {
  const { employee, source } = await pair(1_005)
  const contract = await create(employee, source, { start_date: dayFromToday(3) })
  const reply = await payroll.op('POST', `/contracts/${contract.id}/pay-now`)
  assert.is(reply.json.status, 'failed')
  assert.is(reply.json.detail, "insufficient balance in source wallet: 1005 sat available, 1000 sat required, plus the payment's fee")
  // The invoice existed: the row keeps its amount and hash; the money did not move.
  assert.is(reply.json.amount_msat, 1_000_000)
  assert.match(reply.json.payment_hash, /^[0-9a-f]{64}$/)
  assert.is(await payroll.balanceMsat(source), 1_005_000)
  assert.is(await payroll.balanceMsat(employee), 0)
})

payNow('a paused contract, or one with no period left, is refused with a 400', async () => {
  const { employee, source } = await pair(5_000)
  const contract = await create(employee, source, { start_date: dayFromToday(3), total_periods: 1 })
  await payroll.op('POST', `/contracts/${contract.id}/pause`)
  const paused = await payroll.op('POST', `/contracts/${contract.id}/pay-now`)
  assert.is(paused.status, 400)
  await payroll.op('POST', `/contracts/${contract.id}/resume`, { catch_up: true })
  assert.is((await payroll.op('POST', `/contracts/${contract.id}/pay-now`)).json.status, 'paid')
  const done = await payroll.op('POST', `/contracts/${contract.id}/pay-now`)
  assert.is(done.status, 400)
  assert.is(done.json.detail, 'contract has no period left to pay')
})

payNow('concurrent pay-now calls and a tick never pay a period twice', async () => {
  const { employee, source } = await pair(100_000)
  const contract = await create(employee, source, { frequency: 'daily', start_date: dayFromToday(-1), total_periods: 3, backfill: true })
  const replies = await Promise.all([
    ...Array.from({ length: 6 }, () => payroll.op('POST', `/contracts/${contract.id}/pay-now`)),
    payroll.tick(),
  ])
  const paid = (await rowsOf(contract.id)).filter(row => row.status === 'paid')
  assert.equal(paid.map(row => row.period).sort(), [0, 1, 2])
  assert.is(await payroll.balanceMsat(employee), 3_000_000)
  assert.is(await payroll.balanceMsat(source), 100_000_000 - 3 * (1_000_000 + feeMsat))
  const refused = replies.slice(0, 6).filter(reply => reply.status === 400)
  assert.ok(refused.every(reply => reply.json.detail === 'contract has no period left to pay'))
})

const csv = suite('the CSV export neutralises formulas in every column')
csv.before(async () => {
  payroll = await startPayrollDaemon()
})
csv.after(() => payroll.stop())

csv('a contract named like a formula is exported with apostrophes, in the documented column order', async () => {
  const { employee, source } = await pair(5_000)
  const contract = await create(employee, source, {
    name: '=HYPERLINK("http://evil.example","pay")',
    frequency: 'daily',
    start_date: dayFromToday(-1),
    total_periods: 3,
    backfill: true,
  })
  await payroll.tick()
  const reply = await payroll.op('GET', `/payouts.csv?contract_id=${contract.id}`)
  assert.is(reply.status, 200)
  assert.match(reply.headers.get('content-type')!, /^text\/csv/)
  const lines = reply.text.split('\r\n')
  assert.is(
    lines[0],
    'id,contract_id,contract_name,period,payday,status,amount,currency,employee_wallet,source_wallet,amount_msat,rate,rate_source,detail,memo,payment_hash,created_at',
  )
  assert.is(lines.length, 4) // header, two rows, and the empty string after the last CRLF
  const [newest] = (await rowsOf(contract.id))
  const name = `"'=HYPERLINK(""http://evil.example"",""pay"")"`
  const memo = `"'=HYPERLINK(""http://evil.example"",""pay"") - ${newest.payday} . 1000 sat"`
  assert.is(
    lines[1],
    [newest.id, contract.id, name, 1, newest.payday, 'paid', 1000, 'sat', employee.id, source.id, 1000000, '', '', '', memo,
      newest.payment_hash, newest.created_at].join(','),
  )
})

csv('since and until bound the payday, inclusively', async () => {
  const { employee, source } = await pair(50_000)
  const contract = await create(employee, source, { frequency: 'daily', start_date: dayFromToday(-4), total_periods: 5, backfill: true })
  await payroll.tick()
  const reply = await payroll.op('GET', `/payouts.csv?contract_id=${contract.id}&since=${dayFromToday(-3)}&until=${dayFromToday(-1)}`)
  const paydays = reply.text.trim().split('\r\n').slice(1).map(line => line.split(',')[4])
  assert.equal(paydays, [dayFromToday(-1), dayFromToday(-2), dayFromToday(-3)])
  const status = await payroll.op('GET', `/payouts.csv?contract_id=${contract.id}&status=failed`)
  assert.is(status.text, status.text.split('\r\n')[0] + '\r\n')
})

const timer = suite("the daemon's own scheduler pays without being asked")
timer.before(async () => {
  payroll = await startPayrollDaemon({ firstTickSeconds: 1, payroll: 'tick_seconds = 1' })
})
timer.after(() => payroll.stop())

timer('with first_tick_seconds and tick_seconds at 1, a due period is paid within seconds', async () => {
  const { employee, source } = await pair(5_000)
  const contract = await create(employee, source, { frequency: 'daily', start_date: dayFromToday(0), total_periods: 2 })
  // The one place a test waits for the real timer: it proves the config reaches the daemon's scheduler.
  const deadline = Date.now() + 15_000
  let rows: any[] = []
  while (rows.length === 0 && Date.now() < deadline) {
    await new Promise(resolve => setTimeout(resolve, 100))
    rows = await rowsOf(contract.id)
  }
  assert.equal(rows.map(row => [row.period, row.status]), [[0, 'paid']])
  assert.is(await payroll.balanceMsat(employee), 1_000_000)
})

ticks.run()
timer.run()
failures.run()
payNow.run()
csv.run()
