// CSV injection: the payroll payout exports (the operator's /payouts.csv and an employee's /my/payouts.csv, the
// only CSV the daemon writes) never hold a field a spreadsheet would run, read the way the file is written (comma
// separated, RFC 4180 quotes) or the way a semicolon-separated reader (many locales' default) reads the same
// bytes, whose fields start after every `;` even inside our quotes: none starts with = + - @, a tab or a carriage
// return, even past spaces and double quotes. Quotes, commas and line breaks never split a cell or a row for the
// comma reader. Hostile text goes in the way a caller enters it: contract names through the API (memos are built
// from them; failure details from the daemon's own refusals), and the exported file is read back with the readers
// written here.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { csvCell, toCsv } from '../../src/extensions/payroll/csv.js'
import { contractBody, dayFromToday, startPayrollDaemon, type PayrollDaemon, type TestWallet } from '../extensions/payroll/payroll-daemon.js'

/**
 * Rows end in CRLF; a field that starts with a quote may hold separators, quotes (doubled) and line breaks; a
 * quote anywhere else is text. With `,` and `strict` this is RFC 4180; with `;` it is how a semicolon reader
 * sees the same bytes (which need not be well formed for it, so nothing is asserted then).
 */
function parseCsv(text: string, separator = ',', strict = true): string[][] {
  const rows: string[][] = []
  let row: string[] = []
  let cell = ''
  let quoted = false
  let started = false
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') (cell += '"'), i++
      else if (c === '"') quoted = false
      else cell += c
    } else if (c === '"' && !started) (quoted = true), (started = true)
    else if (c === separator) row.push(cell), (cell = ''), (started = false)
    else if (c === '\r' && text[i + 1] === '\n') row.push(cell), rows.push(row), (row = []), (cell = ''), (started = false), i++
    else (cell += c), (started = true)
  }
  if (strict) {
    assert.is(quoted, false, 'the document ends inside a quoted cell')
    assert.is(cell + row.join(''), '', 'the document does not end with CRLF')
  }
  return rows
}

/** What a spreadsheet would run: a formula character first, or after spaces and quotes some readers drop. */
const formulaStart = /^[ "]*[=+\-@\t\r]/
/** Every field of the document, as the comma reader and as the semicolon reader split it. */
const fieldsOf = (text: string) => [...parseCsv(text).flat(), ...parseCsv(text, ';', false).flat()]

const cells = suite('every cell that a spreadsheet would run is neutralised')

for (const value of [
  '=1+1', '+1', '-1', '@SUM(A1)', '\t=1+1', '\r=1+1', '\t', '\r\n=cmd', '=cmd|" /C calc"!A0', '-2+3,4', ' =1+1', '"=1+1"',
  'x;=1+1', 'x,=1+1', 'x;"=1+1"', 'x; @SUM(A1)', 'x;\t=1', 'x;;+1', 'x;-1;y', 'line\n=1+1', 'a;b,=c;"d";@e',
]) {
  cells(`${JSON.stringify(value)}: no field starts a formula, for a comma or a semicolon reader, first cell or not`, () => {
    for (const document of [toCsv(['h'], [[value]]), toCsv(['h', 'i', 'j'], [['lead', value, 'tail']])]) {
      for (const field of fieldsOf(document)) assert.not.match(field, formulaStart, `${JSON.stringify(field)} in ${JSON.stringify(document)}`)
    }
    // The comma reader gets the text back whole, an apostrophe before each place a formula would have started.
    const [[cell]] = parseCsv(toCsv(['h'], [[value]])).slice(1)
    assert.is(cell!.replace(/'/g, ''), value)
  })
}

cells('the semicolon case: x;=1+1 is quoted and its second field marked as text', () => {
  assert.is(csvCell('x;=1+1'), `"x;'=1+1"`)
  assert.equal(parseCsv(`lead,${csvCell('x;=1+1')}\r\n`, ';', false), [['lead,"x', `'=1+1"`]])
})

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
  'x;=1+1', 'pay;+cmd|" /C calc"!A0', 'a; @SUM(1)', 'b;"=HYPERLINK(""http://evil.example"")"', 'c,=1+1', 'd;\t-1',
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
    for (const field of fieldsOf(reply.text)) assert.not.match(field, formulaStart, `field ${JSON.stringify(field)}`)
    const [header, ...rows] = parseCsv(reply.text)
    assert.ok(rows.length >= hostileNames.length * 2, `${rows.length} rows`)
    const name = header!.indexOf('contract_name')
    const detail = header!.indexOf('detail')
    for (const row of rows) {
      assert.is(row.length, header!.length, JSON.stringify(row))
      for (const cell of row) assert.not.match(cell, formulaStart, `cell ${JSON.stringify(cell)}`)
      const contract = contracts.find(c => c.id === row[header!.indexOf('contract_id')])
      if (!contract) continue
      // The name reads back as the text that was entered, with apostrophes only where a formula would have started.
      assert.is(row[name]!.replace(/'/g, ''), contract.name)
      if (formulaStart.test(contract.name)) assert.ok(row[name]!.startsWith("'"), row[name])
    }
    assert.ok(rows.some(row => row[detail] !== ''), 'a failed payout with a detail was exported too')
  }
})

cells.run()
exports.run()
