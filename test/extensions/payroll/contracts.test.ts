// Contracts as the operator manages them over HTTP (docs/payroll.md, "Contracts", "Paydays", "Pause and resume"):
// create, read, edit, delete, refusals that name the field, schedules, and pause/resume's write-off rules.
import { suite } from '../../support/suite.js'
import * as assert from 'uvu/assert'
import { contractBody, dayFromToday, startPayrollDaemon, type PayrollDaemon, type TestWallet } from './payroll-daemon.js'

let payroll: PayrollDaemon
let employee: TestWallet
let source: TestWallet

async function setUp() {
  payroll = await startPayrollDaemon()
  employee = await payroll.wallet({ enable: true })
  source = await payroll.wallet()
}

async function create(overrides: Record<string, unknown> = {}) {
  const created = await payroll.op('POST', '/contracts', contractBody(employee, source, overrides))
  assert.is(created.status, 201, created.text)
  return created.json
}

const crud = suite('an operator creates, reads, edits and deletes contracts')
crud.before(setUp)
crud.after(() => payroll.stop())

crud('create answers 201 with the contract, its defaults and its derived days', async () => {
  const contract = await create({ amount: '1500.50', currency: 'EUR', start_date: '2030-01-31', total_periods: 3 })
  assert.type(contract.id, 'string')
  assert.equal(
    { ...contract, id: undefined, created_at: undefined, updated_at: undefined },
    {
      id: undefined,
      name: 'Alice salary',
      employee_wallet: employee.id,
      source_wallet: source.id,
      amount: '1500.50',
      currency: 'EUR',
      frequency: 'monthly',
      start_date: '2030-01-31',
      total_periods: 3,
      periods_done: 0,
      pricing_mode: 'payday',
      manual_rate: null,
      backfill: false,
      status: 'active',
      paused_reason: '',
      created_at: undefined,
      updated_at: undefined,
      next_payday: '2030-01-31',
      ends_on: '2030-03-31',
    },
  )
  assert.match(contract.created_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
  const got = await payroll.op('GET', `/contracts/${contract.id}`)
  assert.equal(got.json, contract)
  const listed = await payroll.op('GET', '/contracts')
  assert.ok(listed.json.some((c: { id: string }) => c.id === contract.id))
})

const refusals: { because: string; body: Record<string, unknown>; field: string }[] = [
  { because: 'an employee wallet that does not exist', body: { employee_wallet: 'f'.repeat(64) }, field: 'employee_wallet' },
  { because: 'a source wallet that does not exist', body: { source_wallet: 'e'.repeat(64) }, field: 'source_wallet' },
  { because: 'a currency the rates room cannot price', body: { currency: 'XYZ' }, field: 'currency' },
  { because: 'a lower-case currency', body: { currency: 'eur' }, field: 'currency' },
  { because: 'an amount with 9 decimals', body: { amount: '1.123456789' }, field: 'amount' },
  { because: 'a zero amount', body: { amount: '0' }, field: 'amount' },
  { because: 'an unknown frequency', body: { frequency: 'fortnightly' }, field: 'frequency' },
  { because: 'a day that does not exist', body: { start_date: '2025-02-30' }, field: 'start_date' },
  { because: 'zero periods', body: { total_periods: 0 }, field: 'total_periods' },
  { because: 'a last payday after 9999-12-31', body: { frequency: 'yearly', start_date: '2025-01-01', total_periods: 10_000 }, field: 'total_periods' },
  { because: 'manual pricing without a rate', body: { pricing_mode: 'manual' }, field: 'manual_rate' },
  { because: 'a name of 81 characters', body: { name: 'x'.repeat(81) }, field: 'name' },
  { because: 'a missing name', body: { name: undefined }, field: 'name' },
]
for (const row of refusals) {
  crud(`create refuses ${row.because} with a 400 naming ${row.field}`, async () => {
    const reply = await payroll.op('POST', '/contracts', contractBody(employee, source, row.body))
    assert.is(reply.status, 400, reply.text)
    assert.match(reply.json.detail, new RegExp(`^${row.field}: `))
  })
}

crud('create refuses paying a wallet from itself, naming source_wallet', async () => {
  const reply = await payroll.op('POST', '/contracts', contractBody(employee, employee))
  assert.is(reply.status, 400)
  assert.match(reply.json.detail, /^source_wallet: /)
})

crud('a partial update changes only the fields sent, and the derived days follow', async () => {
  const contract = await create({ start_date: '2030-01-31', total_periods: 3 })
  const updated = await payroll.op('PUT', `/contracts/${contract.id}`, { name: 'Alice wages', frequency: 'quarterly' })
  assert.is(updated.status, 200, updated.text)
  assert.is(updated.json.name, 'Alice wages')
  assert.is(updated.json.frequency, 'quarterly')
  assert.is(updated.json.amount, contract.amount)
  assert.is(updated.json.ends_on, '2030-07-31')
  const manual = await payroll.op('PUT', `/contracts/${contract.id}`, { pricing_mode: 'manual' })
  assert.is(manual.status, 400)
  assert.match(manual.json.detail, /^manual_rate: /)
  const same = await payroll.op('PUT', `/contracts/${contract.id}`, { source_wallet: employee.id })
  assert.is(same.status, 400)
  assert.match(same.json.detail, /^source_wallet: /)
})

crud('total_periods may not go below the periods already done', async () => {
  // Three paydays in the past, written off by an operator's pause and resume: periods_done becomes 3.
  const contract = await create({ frequency: 'daily', start_date: dayFromToday(-3), total_periods: 10 })
  await payroll.op('POST', `/contracts/${contract.id}/pause`)
  const resumed = await payroll.op('POST', `/contracts/${contract.id}/resume`, {})
  assert.is(resumed.json.periods_done, 3)
  const below = await payroll.op('PUT', `/contracts/${contract.id}`, { total_periods: 2 })
  assert.is(below.status, 400)
  assert.is(below.json.detail, 'total_periods: must not be below periods_done (3)')
  const equal = await payroll.op('PUT', `/contracts/${contract.id}`, { total_periods: 3 })
  assert.is(equal.status, 200, equal.text)
  assert.is(equal.json.next_payday, null)
  assert.is(equal.json.ends_on, null)
})

crud('editing or deleting a contract leaves its ledger rows as they were written', async () => {
  const contract = await create({ frequency: 'daily', start_date: dayFromToday(-2), total_periods: 10 })
  await payroll.op('POST', `/contracts/${contract.id}/pause`)
  await payroll.op('POST', `/contracts/${contract.id}/resume`, {})
  const renamed = await payroll.op('PUT', `/contracts/${contract.id}`, { name: 'Alice wages', amount: '2000' })
  assert.is(renamed.status, 200, renamed.text)
  const deleted = await payroll.op('DELETE', `/contracts/${contract.id}`)
  assert.is(deleted.status, 200)
  assert.equal(deleted.json, { success: true })
  assert.is((await payroll.op('GET', `/contracts/${contract.id}`)).status, 404)
  const rows = await payroll.op('GET', `/payouts?contract_id=${contract.id}`)
  assert.equal(rows.json.map((row: any) => [row.contract_name, row.amount]), [['Alice salary', '1000'], ['Alice salary', '1000']])
})

for (const [method, path] of [
  ['GET', '/contracts/nope'], ['PUT', '/contracts/nope'], ['DELETE', '/contracts/nope'], ['POST', '/contracts/nope/pause'],
  ['POST', '/contracts/nope/resume'], ['POST', '/contracts/nope/pay-now'], ['GET', '/contracts/nope/schedule'],
] as const) {
  crud(`${method} ${path} answers 404 for an unknown contract`, async () => {
    const reply = await payroll.op(method, path, method === 'GET' || method === 'DELETE' ? undefined : {})
    assert.is(reply.status, 404, reply.text)
    assert.is(reply.json.detail, 'Contract not found.')
  })
}

crud('preview lists every payday with ends_on, without any contract or wallet', async () => {
  const preview = await payroll.op('POST', '/schedule/preview', { start_date: '2024-01-31', frequency: 'monthly', total_periods: 3 })
  assert.is(preview.status, 200, preview.text)
  assert.equal(preview.json, {
    paydays: [
      { period: 0, payday: '2024-01-31' },
      { period: 1, payday: '2024-02-29' },
      { period: 2, payday: '2024-03-31' },
    ],
    ends_on: '2024-03-31',
  })
  const bad = await payroll.op('POST', '/schedule/preview', { start_date: '2024-01-31', frequency: 'monthly', total_periods: 0 })
  assert.is(bad.status, 400)
  assert.match(bad.json.detail, /^total_periods: /)
})

crud("a contract's schedule starts at its current position", async () => {
  const contract = await create({ frequency: 'weekly', start_date: dayFromToday(-14), total_periods: 4 })
  await payroll.op('POST', `/contracts/${contract.id}/pause`)
  await payroll.op('POST', `/contracts/${contract.id}/resume`, {})
  const schedule = await payroll.op('GET', `/contracts/${contract.id}/schedule`)
  assert.equal(schedule.json, {
    paydays: [
      { period: 2, payday: dayFromToday(0) },
      { period: 3, payday: dayFromToday(7) },
    ],
    ends_on: dayFromToday(7),
  })
})

const resume = suite('pause and resume: an operator pause writes missed paydays off unless catch_up says otherwise')
resume.before(setUp)
resume.after(() => payroll.stop())

resume('pausing clears nothing but the status; pausing twice or resuming an active contract is a 400', async () => {
  const contract = await create({ frequency: 'daily', start_date: dayFromToday(1) })
  const paused = await payroll.op('POST', `/contracts/${contract.id}/pause`)
  assert.is(paused.status, 200)
  assert.is(paused.json.status, 'paused')
  assert.is(paused.json.paused_reason, '')
  const again = await payroll.op('POST', `/contracts/${contract.id}/pause`)
  assert.is(again.status, 400)
  assert.is(again.json.detail, 'contract is already paused')
  await payroll.op('POST', `/contracts/${contract.id}/resume`, {})
  const active = await payroll.op('POST', `/contracts/${contract.id}/resume`, {})
  assert.is(active.status, 400)
  assert.is(active.json.detail, 'contract is not paused')
})

resume('after an operator pause, paydays before today are written off with a skipped row each; today is kept', async () => {
  const contract = await create({ frequency: 'daily', start_date: dayFromToday(-3), total_periods: 10 })
  await payroll.op('POST', `/contracts/${contract.id}/pause`)
  const resumed = await payroll.op('POST', `/contracts/${contract.id}/resume`)
  assert.is(resumed.status, 200, resumed.text)
  assert.is(resumed.json.status, 'active')
  assert.is(resumed.json.periods_done, 3)
  assert.is(resumed.json.next_payday, dayFromToday(0))
  const rows = (await payroll.op('GET', `/payouts?contract_id=${contract.id}`)).json
  assert.equal(
    rows.map((r: any) => [r.period, r.payday, r.status, r.detail, r.amount_msat]),
    [
      [2, dayFromToday(-1), 'skipped', 'written off on resume', null],
      [1, dayFromToday(-2), 'skipped', 'written off on resume', null],
      [0, dayFromToday(-3), 'skipped', 'written off on resume', null],
    ],
  )
})

resume('catch_up true keeps the missed paydays after an operator pause', async () => {
  const contract = await create({ frequency: 'daily', start_date: dayFromToday(-3), total_periods: 10 })
  await payroll.op('POST', `/contracts/${contract.id}/pause`)
  const resumed = await payroll.op('POST', `/contracts/${contract.id}/resume`, { catch_up: true })
  assert.is(resumed.json.periods_done, 0)
  assert.is(resumed.json.next_payday, dayFromToday(-3))
  assert.is((await payroll.op('GET', `/payouts?contract_id=${contract.id}`)).json.length, 0)
})

resume('a paused contract is not touched by a tick', async () => {
  const contract = await create({ frequency: 'daily', start_date: dayFromToday(-1), total_periods: 10, backfill: true })
  await payroll.op('POST', `/contracts/${contract.id}/pause`)
  const tick = await payroll.tick()
  assert.is(tick.status, 200, tick.text)
  assert.not.ok(tick.json.payouts.some((row: any) => row.contract_id === contract.id))
  assert.is((await payroll.op('GET', `/payouts?contract_id=${contract.id}`)).json.length, 0)
})

crud.run()
resume.run()
