// The CSV export as a spreadsheet reads it: RFC 4180 quoting, and no cell, nor any field a semicolon reader would
// split out of one, that a spreadsheet would run as a formula.
import { suite } from '../../support/suite.js'
import * as assert from 'uvu/assert'
import { csvCell, toCsv } from '../../../src/extensions/payroll/csv.js'

const cells = suite('a cell is neutralised, then quoted as RFC 4180 asks')

for (const row of [
  { because: 'plain text stays as it is', value: 'Alice salary', cell: 'Alice salary' },
  { because: 'a number is written as digits', value: 1500000, cell: '1500000' },
  { because: 'null is an empty cell', value: null, cell: '' },
  { because: 'a formula gets an apostrophe', value: '=HYPERLINK("http://x","y")', cell: `"'=HYPERLINK(""http://x"",""y"")"` },
  { because: 'a leading plus gets an apostrophe', value: '+1 555 0100', cell: "'+1 555 0100" },
  { because: 'a leading minus gets an apostrophe', value: '-2+3', cell: "'-2+3" },
  { because: 'a leading at sign gets an apostrophe', value: '@SUM(A1)', cell: "'@SUM(A1)" },
  { because: 'an inner equals sign is left alone', value: 'a=b', cell: 'a=b' },
  { because: 'a comma is quoted', value: 'Smith, Alice', cell: '"Smith, Alice"' },
  { because: 'a quote is doubled inside quotes', value: 'the "boss"', cell: '"the ""boss"""' },
  { because: 'a line break is quoted', value: 'two\nlines', cell: '"two\nlines"' },
  { because: 'a formula with a comma is neutralised and quoted', value: '=1,2', cell: `"'=1,2"` },
  { because: 'a formula after a semicolon is neutralised there, and the cell quoted', value: 'x;=1+1', cell: `"x;'=1+1"` },
  { because: 'a formula after a comma is neutralised there', value: 'x,@SUM(A1)', cell: `"x,'@SUM(A1)"` },
  { because: 'spaces and quotes before the formula do not save it', value: 'x; "-1"', cell: `"x;' ""-1"""` },
  { because: 'a formula after a line break is neutralised there', value: 'a\n+1', cell: `"a\n'+1"` },
  { because: 'a plain semicolon is quoted', value: 'a;b', cell: '"a;b"' },
  { because: 'a date keeps its dashes', value: '2024-01-31', cell: '2024-01-31' },
]) {
  cells(row.because, () => assert.is(csvCell(row.value), row.cell))
}

const documents = suite('a document is a header row and one CRLF-terminated line per row')

documents('header, rows, CRLF line ends', () => {
  assert.is(toCsv(['a', 'b'], [['1', null], ['=x', 'y,z']]), `a,b\r\n1,\r\n'=x,"y,z"\r\n`)
})

documents('the header is neutralised like any other row', () => {
  assert.is(toCsv(['-a'], []), "'-a\r\n")
})

cells.run()
documents.run()
