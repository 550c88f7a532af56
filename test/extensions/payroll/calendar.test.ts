// A month-end contract over several months of payroll's calendar: the daemon is restarted on the same data with
// `[payroll] today_override` moved forward, as days passing would (docs/payroll.md, "Paydays": Jan 31 →
// Feb 28 → Mar 31; a period is due when its payday ≤ today).
import path from 'node:path'
import { suite } from '../../support/suite.js'
import * as assert from 'uvu/assert'
import { startDaemon, tempDataDir } from '../../support/daemon.js'
import { contractBody, startPayrollDaemon, type PayrollDaemon } from './payroll-daemon.js'

const calendar = suite("a monthly contract anchored on Jan 31 pays on each month's last day as the days pass")

let payroll: PayrollDaemon | undefined
calendar.after(async () => {
  await payroll?.stop()
})

calendar('Jan 31, nothing on Feb 27, Feb 28, Mar 31, then nothing is left', async () => {
  const dataDir = path.join(tempDataDir(), 'data')
  const on = async (today: string) => {
    await payroll?.stop()
    payroll = await startPayrollDaemon({ dataDir, payroll: `today_override = "${today}"` })
    return payroll
  }

  let p = await on('2025-01-31')
  const employee = await p.wallet({ enable: true })
  const source = await p.wallet()
  await p.fund(source, 10_000)
  const created = await p.op('POST', '/contracts', contractBody(employee, source, { start_date: '2025-01-31', total_periods: 3 }))
  assert.is(created.status, 201, created.text)
  assert.ok(created.json.created_at.startsWith('2025-01-31T'), created.json.created_at)
  const id = created.json.id
  const paidBy = async (p: PayrollDaemon) =>
    (await p.tick()).json.payouts.filter((row: any) => row.contract_id === id).map((row: any) => [row.period, row.payday, row.status])

  assert.equal(await paidBy(p), [[0, '2025-01-31', 'paid']])

  p = await on('2025-02-27')
  assert.equal(await paidBy(p), [])
  assert.is((await p.op('GET', `/contracts/${id}`)).json.next_payday, '2025-02-28')

  p = await on('2025-02-28')
  assert.equal(await paidBy(p), [[1, '2025-02-28', 'paid']])

  p = await on('2025-03-31')
  assert.equal(await paidBy(p), [[2, '2025-03-31', 'paid']])
  const done = (await p.op('GET', `/contracts/${id}`)).json
  assert.equal([done.periods_done, done.status, done.next_payday, done.ends_on], [3, 'active', null, null])
  assert.is(await p.balanceMsat(employee), 3_000_000)
  assert.equal(
    (await p.as(employee.invoiceKey, 'GET', '/my/payouts')).json.map((row: any) => row.memo),
    ['Alice salary - 2025-03-31 . 1000 sat', 'Alice salary - 2025-02-28 . 1000 sat', 'Alice salary - 2025-01-31 . 1000 sat'],
  )
})

calendar('outside test mode a shifted calendar is refused at start', async () => {
  const error = await startDaemon({ config: '[node]\nmock = false\n[payroll]\ntoday_override = "2025-01-31"\n' }).then(
    () => undefined,
    (err: Error) => err,
  )
  assert.ok(error, 'the daemon started')
  assert.match(error!.message, /payroll\.today_override is for tests: it needs \[node\] mock = true/)
})

calendar.run()
