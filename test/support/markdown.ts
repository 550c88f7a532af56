// Reading the seed and reference documents in tests: a section under a heading, the rows of its tables, its
// `###` subsections. Tests that check the catalogue against the documents read them at test time with these.

/** The text between a heading line (exact) and the next heading of the same or a higher level. */
export function section(doc: string, heading: string): string {
  const start = doc.indexOf(`\n${heading}\n`)
  if (start < 0) throw new Error(`section "${heading}" not found`)
  const level = heading.split(' ')[0]
  const rest = doc.slice(start + heading.length + 2)
  const next = rest.search(new RegExp(`\\n#{1,${level.length}} `))
  return next < 0 ? rest : rest.slice(0, next)
}

/** Rows of every markdown table in `text`, as objects keyed by the header cells. */
export function tableRows(text: string): Record<string, string>[] {
  const rows: Record<string, string>[] = []
  let header: string[] | undefined
  for (const line of text.split('\n')) {
    if (!line.startsWith('|')) {
      header = undefined
      continue
    }
    const cells = line.trim().replace(/^\|/, '').replace(/\|$/, '').split('|').map(cell => cell.trim())
    if (!header) header = cells
    else if (!cells.every(cell => /^-+$/.test(cell))) rows.push(Object.fromEntries(header.map((h, i) => [h, cells[i] ?? ''])))
  }
  return rows
}

/** Subsections `### Title` of a text, as [title, body] pairs. */
export function subsections(text: string): [string, string][] {
  return text
    .split('\n### ')
    .slice(1)
    .map(block => [block.slice(0, block.indexOf('\n')).trim(), block.slice(block.indexOf('\n'))])
}
