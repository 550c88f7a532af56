// CSV injection: the payroll payout exports (the operator's /payouts.csv and an employee's /my/payouts.csv, the
// only CSV the daemon writes) never hold a cell a spreadsheet would run — none starts with = + - @, a tab or a
// carriage return — and quotes, commas and line breaks never split a cell or a row. Hostile text goes in the way
// a caller enters it: contract names through the API (memos are built from them; failure details from the
// daemon's own refusals), and the exported file is read back with an RFC 4180 parser written here.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { csvCell, toCsv } from '../../src/extensions/payroll/csv.js'
import { contractBody, dayFromToday, startPayrollDaemon, type PayrollDaemon, type TestWallet } from '../extensions/payroll/payroll-daemon.js'

/** RFC 4180: rows end in CRLF; a quoted cell may hold commas, quotes (doubled) and line breaks. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = []
  let row: string[] = []
  let cell = ''
  let quoted = false
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') (cell += '"'), i++
      else if (c === '"') quoted = false
      else cell += c
    } else if (c === '"' && cell === '') quoted = true
    else if (c === ',') row.push(cell), (cell = '')
    else if (c === '\r' && text[i + 1] === '\n') row.push(cell), rows.push(row), (row = []), (cell = ''), i++
    else cell += c
  }
  assert.is(quoted, false, 'the document ends inside a quoted cell')
  assert.is(cell + row.join(''), '', 'the document does not end with CRLF')
  return rows
}

const formulaStart = /^[=+\-@\t\r]/

const cells = suite('every cell that a spreadsheet would run is neutralised')

for (const value of ['=1+1', '+1', '-1', '@SUM(A1)', '\t=1+1', '\r=1+1', '\t', '\r\n=cmd', '=cmd|" /C calc"!A0', '-2+3,4']) {
  cells(`${JSON.stringify(value)} is written as text`, () => {
    const [[cell]] = parseCsv(toCsv(['h'], [[value]])).slice(1)
    assert.is(cell, `'${value}`)
    assert.not.match(cell!, formulaStart)
  })
}

cells('quotes, commas and line breaks stay inside their cell', () => {
  const rows = parseCsv(toCsv(['a', 'b', 'c'], [['x,"y"', 'line\r\nbreak', 'plain']]))
  assert.equal(rows, [['a', 'b', 'c'], ['x,"y"', 'line\r\nbreak', 'plain']])
  assert.is(csvCell('a"b'), '"a""b"')
})

const exports = suite('the payout exports, fed through the API')
let payroll: PayrollDaemon
exports.before(async () => {
  payroll = await startPayrollDaemon()
})
exports.after(() => payroll?.stop())

const hostileNames = [
  '=HYPERLINK("http://evil.example","pay")', '+cmd|" /C calc"!A0', '-2+3+cmd|" /C calc"!A0', '@SUM(1+1)*cmd|" /C calc"!A0',
  ' =leading space', '\t=tab', 'inner,comma "quoted"', 'two\r\nlines =x', 'multi\nline\n=also',
]

exports('no exported cell starts a formula, and every row has every column, for every hostile contract name', async () => {
  const employee = await payroll.wallet({ enable: true })
  const funded = await payroll.wallet()
  const broke = await payroll.wallet()
  await payroll.fund(funded, 100_000)
  const contracts: { id: string; name: string }[] = []
  for (const name of hostileNames) {
    for (const source of [funded, broke] as TestWallet[]) {
      const created = await payroll.op('POST', '/contracts', contractBody(employee, source, { name, frequency: 'daily', start_date: dayFromToday(-1), total_periods: 2, backfill: true }))
      assert.is(created.status, 201, created.text)
      contracts.push({ id: created.json.id, name: created.json.name })
    }
  }
  await payroll.tick()
  const operator = await payroll.op('GET', '/payouts.csv')
  const mine = await payroll.as(employee.invoiceKey, 'GET', '/my/payouts.csv')
  for (const reply of [operator, mine]) {
    assert.is(reply.status, 200, reply.text)
    const [header, ...rows] = parseCsv(reply.text)
    assert.ok(rows.length >= hostileNames.length * 2, `${rows.length} rows`)
    const name = header!.indexOf('contract_name')
    const detail = header!.indexOf('detail')
    for (const row of rows) {
      assert.is(row.length, header!.length, JSON.stringify(row))
      for (const cell of row) assert.not.match(cell, formulaStart, `cell ${JSON.stringify(cell)}`)
      const contract = contracts.find(c => c.id === row[header!.indexOf('contract_id')])
      if (!contract) continue
      // The name reads back as the text that was entered, marked as text where it would have been a formula.
      assert.is(row[name], formulaStart.test(contract.name) ? `'${contract.name}` : contract.name)
    }
    assert.ok(rows.some(row => row[detail] !== ''), 'a failed payout with a detail was exported too')
  }
})

cells.run()
exports.run()
