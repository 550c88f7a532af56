// Who may use which payroll route (docs/payroll.md, "Who may call"): operator routes take the admin token; `/my/`
// routes take a wallet key, pass the extension gate, and show only that wallet's contracts and payouts.
import { suite } from '../../support/suite.js'
import * as assert from 'uvu/assert'
import { contractBody, dayFromToday, startPayrollDaemon, type PayrollDaemon, type TestWallet } from './payroll-daemon.js'

let payroll: PayrollDaemon
let alice: TestWallet
let bob: TestWallet
let outsider: TestWallet
let source: TestWallet

const scoping = suite('/my/ routes show only what pays the key’s wallet')
scoping.before(async () => {
  payroll = await startPayrollDaemon()
  alice = await payroll.wallet({ enable: true })
  bob = await payroll.wallet({ enable: true })
  outsider = await payroll.wallet()
  source = await payroll.wallet()
  await payroll.fund(source, 20_000)
  for (const [employee, name] of [[alice, 'Alice salary'], [bob, '@Bob bonus']] as const) {
    const created = await payroll.op('POST', '/contracts', contractBody(employee, source, {
      name, frequency: 'daily', start_date: dayFromToday(-1), total_periods: 3, backfill: true,
    }))
    assert.is(created.status, 201, created.text)
  }
  await payroll.tick()
})
scoping.after(() => payroll.stop())

scoping('each employee sees their own contracts and payouts, by invoice key or admin key', async () => {
  for (const [wallet, name] of [[alice, 'Alice salary'], [bob, '@Bob bonus']] as const) {
    for (const key of [wallet.invoiceKey, wallet.adminKey]) {
      const contracts = await payroll.as(key, 'GET', '/my/contracts')
      assert.is(contracts.status, 200, contracts.text)
      assert.equal(contracts.json.map((c: any) => [c.name, c.employee_wallet]), [[name, wallet.id]])
      const payouts = await payroll.as(key, 'GET', '/my/payouts')
      assert.is(payouts.json.length, 2)
      assert.ok(payouts.json.every((row: any) => row.employee_wallet === wallet.id && row.status === 'paid'))
      assert.equal(payouts.json.map((row: any) => row.period), [1, 0]) // newest first
    }
  }
})

scoping("an employee's CSV holds their rows only, neutralised like the operator's", async () => {
  const csv = await payroll.as(bob.invoiceKey, 'GET', '/my/payouts.csv')
  assert.is(csv.status, 200)
  assert.match(csv.headers.get('content-type')!, /^text\/csv/)
  const lines = csv.text.trim().split('\r\n')
  assert.is(lines.length, 3)
  for (const line of lines.slice(1)) {
    assert.ok(line.includes(`,'@Bob bonus,`), line)
    assert.ok(line.includes(bob.id))
    assert.not.ok(line.includes(alice.id))
  }
})

scoping('the operator sees every payout, filtered by contract or status', async () => {
  const all = await payroll.op('GET', '/payouts')
  assert.is(all.json.length, 4)
  const ids = [...new Set(all.json.map((row: any) => row.contract_id))]
  const one = await payroll.op('GET', `/payouts?contract_id=${ids[0]}`)
  assert.is(one.json.length, 2)
  assert.is((await payroll.op('GET', '/payouts?status=failed')).json.length, 0)
  const bad = await payroll.op('GET', '/payouts?status=pending')
  assert.is(bad.status, 400)
  assert.match(bad.json.detail, /^status: /)
})

scoping('the operator reads the ledger a page at a time; a row written between two pages shifts neither', async () => {
  const ids = (rows: any[]) => rows.map(row => row.id)
  const rows = (await payroll.op('GET', '/payouts')).json
  const all = ids(rows)
  assert.is(all.length, 4)
  const first = await payroll.op('GET', '/payouts?limit=3')
  assert.equal(ids(first.json), all.slice(0, 3))
  // A payout written now goes to the top of the ledger: an offset would read the third row again.
  const created = await payroll.op('POST', '/contracts', contractBody(alice, source, {
    name: 'Alice once', frequency: 'daily', start_date: dayFromToday(0), total_periods: 1,
  }))
  assert.is(created.status, 201, created.text)
  await payroll.tick()
  const newest = (await payroll.op('GET', '/payouts?limit=1')).json
  assert.is(newest[0].contract_id, created.json.id)
  const second = await payroll.op('GET', `/payouts?limit=3&before=${all[2]}`)
  assert.equal(ids(second.json), all.slice(3))
  assert.equal((await payroll.op('GET', `/payouts?before=${all[3]}`)).json, [])
  // The filters hold within a page.
  const contract = rows[0].contract_id
  const older = (await payroll.op('GET', `/payouts?contract_id=${contract}&limit=1&before=${all[0]}`)).json
  assert.equal(ids(older), ids(rows.slice(1).filter((row: any) => row.contract_id === contract).slice(0, 1)))
  assert.is(older.length, 1)
  for (const [query, field] of [['limit=0', 'limit'], ['limit=1001', 'limit'], ['limit=two', 'limit'], ['before=nope', 'before']]) {
    const bad = await payroll.op('GET', `/payouts?${query}`)
    assert.is(bad.status, 400, query)
    assert.match(bad.json.detail, new RegExp(`^${field}: `), query)
  }
})

const gate = suite('the extension gate and the operator routes refuse the wrong callers')
gate.before(async () => {
  payroll = await startPayrollDaemon()
  alice = await payroll.wallet({ enable: true })
  outsider = await payroll.wallet()
})
gate.after(() => payroll.stop())

gate('a wallet that has not enabled payroll is told so', async () => {
  const reply = await payroll.as(outsider.invoiceKey, 'GET', '/my/payouts')
  assert.is(reply.status, 403)
  assert.is(reply.json.detail, "Extension 'payroll' not enabled.")
})

gate('no key is a 401 and an unknown key a 404, on every /my/ route', async () => {
  for (const path of ['/my/payouts', '/my/payouts.csv', '/my/contracts']) {
    const none = await payroll.daemon.request('GET', `/payroll/api/v1${path}`)
    assert.is(none.status, 401, path)
    assert.is(none.json.detail, 'No Api Key provided.')
    const unknown = await payroll.as('0'.repeat(64), 'GET', path)
    assert.is(unknown.status, 404, path)
  }
})

gate('operator routes refuse wallet keys and answer the admin token', async () => {
  for (const key of [alice.invoiceKey, alice.adminKey]) {
    const reply = await payroll.as(key, 'GET', '/contracts')
    assert.ok([401, 403].includes(reply.status), `${reply.status} ${reply.text}`)
  }
  const tick = await payroll.as(alice.adminKey, 'POST', '/scheduler/tick')
  assert.ok([401, 403].includes(tick.status), tick.text)
  assert.is((await payroll.op('GET', '/contracts')).status, 200)
  assert.is((await payroll.tick()).status, 200)
})

const adminOnly = suite('with payroll on the admin-only list, employees cannot use their /my/ routes')
adminOnly.before(async () => {
  payroll = await startPayrollDaemon({ config: '[extensions]\nadmin_only = ["payroll"]\n' })
  alice = await payroll.wallet({ enable: true })
})
adminOnly.after(() => payroll.stop())

adminOnly('an enabled employee gets the admin-only refusal', async () => {
  for (const path of ['/my/payouts', '/my/payouts.csv', '/my/contracts']) {
    const reply = await payroll.as(alice.invoiceKey, 'GET', path)
    assert.is(reply.status, 403, path)
    assert.is(reply.json.detail, "User not authorized for extension 'payroll'.")
  }
  assert.is((await payroll.op('GET', '/contracts')).status, 200)
})

scoping.run()
gate.run()
adminOnly.run()
