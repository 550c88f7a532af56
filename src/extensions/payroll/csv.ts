// CSV as RFC 4180 writes it (CRLF line ends; a field holding a comma, a semicolon, a quote or a line break is
// quoted, and quotes inside it are doubled), with the formula rule of docs/payroll.md ("Ledger and CSV") made to
// hold for every reader an accountant may open the file with (OWASP's CSV injection list):
// - a cell beginning with `=`, `+`, `-`, `@`, a tab or a carriage return gets a leading apostrophe, so a
//   spreadsheet shows the text instead of running it as a formula (tab and CR: spreadsheets skip them before
//   reading the formula behind them);
// - so does every place inside a cell where some reader starts a new field: after a `;` (a semicolon-separated
//   reader, the default in many locales, splits there even inside our quotes, since its fields do not start at our
//   quote), after a `,` (a reader that ignores quotes) and after a line break (one that splits lines naively).
//   `x;=1+1` is written `"x;'=1+1"`, so the semicolon reader's second field is the text `'=1+1`.
// Spaces and double quotes between such a place and the formula character do not save it: readers may trim the
// one and take the other as the start of a quoted field, so the apostrophe goes before them.
// Contract names and memos are operator-typed text that reach an accountant's spreadsheet, so the rule applies to
// every column, not only to the free-text ones.

export type CsvCell = string | number | null

/** A field start (the cell's own, or after `;` `,` CR LF inside it) followed, past spaces and quotes, by a formula character. */
const formulaAtFieldStart = /(^|[;,\r\n])(?=[ "]*[=+\-@\t\r])/g
const needsQuotes = /[",;\r\n]/

/** One CSV document: the header row, then one line per row; null cells are empty. */
export function toCsv(header: readonly string[], rows: readonly (readonly CsvCell[])[]): string {
  return [header, ...rows].map(row => row.map(csvCell).join(',') + '\r\n').join('')
}

/** A single cell, neutralised and quoted as needed. */
export function csvCell(value: CsvCell): string {
  const text = (value === null ? '' : String(value)).replace(formulaAtFieldStart, "$1'")
  return needsQuotes.test(text) ? `"${text.replace(/"/g, '""')}"` : text
}
