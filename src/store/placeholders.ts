// One placeholder style for both engines: SQLite binds `?` and `@name` itself; PostgreSQL wants $1, $2, …, so
// the text is rewritten once per distinct statement text and the result cached. Placeholders inside string
// literals, quoted names and comments are left alone.

export interface PgStatement {
  text: string
  /** For `@name` statements: the parameter name of $1, $2, …; for `?` statements: null. */
  names: string[] | null
  /** How many `?` the statement has (0 for named statements). */
  positional: number
}

const cache = new Map<string, PgStatement>()
/** Statement texts are written in the code, so the cache stays small; the bound guards a caller that builds text. */
const cacheLimit = 2000

export function toPgStatement(sql: string): PgStatement {
  const cached = cache.get(sql)
  if (cached) return cached
  const statement = translate(sql)
  if (cache.size >= cacheLimit) cache.clear()
  cache.set(sql, statement)
  return statement
}

function translate(sql: string): PgStatement {
  let out = ''
  let positional = 0
  const names: string[] = []
  let i = 0
  const n = sql.length
  while (i < n) {
    const c = sql[i]!
    if (c === "'" || c === '"') {
      const end = closing(sql, i, c)
      out += sql.slice(i, end)
      i = end
    } else if (c === '-' && sql[i + 1] === '-') {
      const end = sql.indexOf('\n', i)
      const stop = end < 0 ? n : end
      out += sql.slice(i, stop)
      i = stop
    } else if (c === '/' && sql[i + 1] === '*') {
      const end = sql.indexOf('*/', i + 2)
      const stop = end < 0 ? n : end + 2
      out += sql.slice(i, stop)
      i = stop
    } else if (c === '?') {
      positional++
      out += `$${positional}`
      i++
    } else if (c === '@' && /[A-Za-z_]/.test(sql[i + 1] ?? '')) {
      let end = i + 1
      while (end < n && /\w/.test(sql[end]!)) end++
      const name = sql.slice(i + 1, end)
      let index = names.indexOf(name)
      if (index < 0) index = names.push(name) - 1
      out += `$${index + 1}`
      i = end
    } else {
      out += c
      i++
    }
  }
  if (positional > 0 && names.length > 0) throw new Error('a statement mixes ? and @name placeholders')
  return { text: out, names: names.length > 0 ? names : null, positional }
}

/** Index just past the quote that closes the one at `start` (a doubled quote is an escaped one). */
function closing(sql: string, start: number, quote: string): number {
  let i = start + 1
  while (i < sql.length) {
    if (sql[i] === quote) {
      if (sql[i + 1] === quote) i += 2
      else return i + 1
    } else i++
  }
  return sql.length
}

/** The values for $1, $2, … of `statement` from the caller's parameters. */
export function pgValues(statement: PgStatement, params: unknown): unknown[] {
  if (statement.names) {
    if (params === undefined || params === null || Array.isArray(params) || typeof params !== 'object') {
      throw new Error('a statement with @name placeholders takes an object of parameters')
    }
    const record = params as Record<string, unknown>
    return statement.names.map(name => {
      if (!(name in record)) throw new Error(`missing parameter @${name}`)
      return pgValue(record[name])
    })
  }
  const list = params === undefined ? [] : params
  if (!Array.isArray(list)) throw new Error('a statement with ? placeholders takes an array of parameters')
  if (list.length !== statement.positional) {
    throw new Error(`the statement has ${statement.positional} placeholders but ${list.length} values were given`)
  }
  return list.map(pgValue)
}

/** BigInt goes as its decimal text, which PostgreSQL reads exactly into a BIGINT (SQLite binds it natively). */
function pgValue(value: unknown): unknown {
  return typeof value === 'bigint' ? value.toString() : value
}
