// CSV as RFC 4180 writes it (CRLF line ends; a field holding a comma, a quote or a line break is quoted, and
// quotes inside it are doubled), with the seed's injection rule: every cell whose text begins with `=`, `+`,
// `-` or `@` gets a leading apostrophe, so a spreadsheet shows the text instead of running it as a formula
// (seed 001 part B, Rules 2) — and so does one beginning with a tab or a carriage return, which spreadsheets skip
// before reading the formula behind them (OWASP's list). Contract names and memos are operator-typed text that reach an accountant's
// spreadsheet, so the rule applies to every column, not only to the free-text ones.

export type CsvCell = string | number | null

const formulaStart = /^[=+\-@\t\r]/
const needsQuotes = /[",\r\n]/

/** One CSV document: the header row, then one line per row; null cells are empty. */
export function toCsv(header: readonly string[], rows: readonly (readonly CsvCell[])[]): string {
  return [header, ...rows].map(row => row.map(csvCell).join(',') + '\r\n').join('')
}

/** A single cell, neutralised and quoted as needed. */
export function csvCell(value: CsvCell): string {
  let text = value === null ? '' : String(value)
  if (formulaStart.test(text)) text = `'${text}`
  return needsQuotes.test(text) ? `"${text.replace(/"/g, '""')}"` : text
}
