// Config problems as an operator can act on them: every bad key and value at once, each with where it came from
// (the file and line, or the environment variable or flag that set it) and, for an unknown key, the key it was
// probably meant to be.
import type { z } from 'zod'
import { distance } from 'fastest-levenshtein'

export interface ProblemSources {
  /** The config file and its text, when one was read. */
  file?: { name: string; text: string }
  /** `section.key` → the environment variable or flag that set it. */
  origin: ReadonlyMap<string, string>
  schema: z.ZodType
}

/** One line per problem, e.g. `unknown config key http.prot (from relaypay.toml line 2): did you mean http.port?`. */
export function describeProblems(issues: readonly z.core.$ZodIssue[], sources: ProblemSources): string[] {
  const lines = sources.file ? keyLines(sources.file.text) : []
  // In the file's order, then those set by variables or flags.
  const problems: { line: number; text: string }[] = []
  let line = Infinity
  const where = (keyPath: (string | number)[]) => {
    line = Infinity
    const setBy = sources.origin.get(keyPath.join('.'))
    if (setBy) return setBy
    if (!sources.file) return 'defaults'
    line = lineOf(lines, keyPath.map(String)) ?? Infinity
    return line < Infinity ? `${sources.file.name} line ${line}` : sources.file.name
  }
  for (const issue of issues) {
    const path = issue.path.map(p => (typeof p === 'symbol' ? String(p) : p))
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        const keyPath = [...path, key]
        const guess = suggestion(sources.schema, path.map(String), key)
        const text = `unknown config key ${keyPath.join('.')} (from ${where(keyPath)})${guess ? `: did you mean ${guess}?` : ''}`
        problems.push({ line, text })
      }
    } else {
      const text = `invalid config value ${path.join('.')} (from ${where(path)}): ${issue.message}`
      problems.push({ line, text })
    }
  }
  return problems.sort((a, b) => a.line - b.line).map(problem => problem.text)
}

interface KeyLine {
  path: string[]
  line: number
}

/**
 * Where each key and table header of a TOML text sits. A line-by-line reading: enough for the key = value and
 * [table] / [[array]] lines a config file holds (a key inside an inline table or a multi-line array is found at the
 * line its outer key starts).
 */
function keyLines(text: string): KeyLine[] {
  const found: KeyLine[] = []
  let table: string[] = []
  const arrayCounts = new Map<string, number>()
  text.split('\n').forEach((raw, index) => {
    const line = raw.trim()
    const header = /^\[(\[)?\s*([^\]]+?)\s*\]\]?/.exec(line)
    if (header) {
      const name = splitKey(header[2]!)
      if (header[1]) {
        const count = arrayCounts.get(name.join('.')) ?? 0
        arrayCounts.set(name.join('.'), count + 1)
        table = [...name, String(count)]
      } else table = name
      found.push({ path: table, line: index + 1 })
      return
    }
    const key = /^((?:[A-Za-z0-9_-]+|"[^"]*"|'[^']*')(?:\s*\.\s*(?:[A-Za-z0-9_-]+|"[^"]*"|'[^']*'))*)\s*=/.exec(line)
    if (key) found.push({ path: [...table, ...splitKey(key[1]!)], line: index + 1 })
  })
  return found
}

function splitKey(key: string): string[] {
  return key.split('.').map(part => part.trim().replace(/^["']|["']$/g, ''))
}

/** The line of the key itself, else of its nearest enclosing key or table. */
function lineOf(lines: KeyLine[], keyPath: string[]): number | undefined {
  let best: KeyLine | undefined
  for (const entry of lines) {
    if (entry.path.length > keyPath.length || !entry.path.every((part, i) => part === keyPath[i])) continue
    if (!best || entry.path.length > best.path.length) best = entry
  }
  return best?.line
}

/** The nearest key of the same table by edit distance, or the same key where another table has it. */
function suggestion(schema: z.ZodType, parent: string[], key: string): string | undefined {
  const siblings = keysAt(schema, parent)
  let best: { name: string; distance: number } | undefined
  for (const name of siblings) {
    const away = distance(key, name)
    if (!best || away < best.distance) best = { name, distance: away }
  }
  if (best && best.distance <= Math.max(2, Math.floor(key.length / 3))) return [...parent, best.name].join('.')
  // A key put in the wrong table: `port` under [log] is [http] port.
  for (const table of keysAt(schema, [])) {
    if (keysAt(schema, [table]).includes(key)) return `[${table}] ${key}`
  }
  return undefined
}

/** The keys an object schema at `path` accepts (through defaults, prefaults and refinements). */
function keysAt(schema: z.ZodType, path: string[]): string[] {
  type Def = Record<string, unknown>
  const defOf = (node: unknown): Def | undefined => {
    let def = (node as { _zod?: { def?: Def } })?._zod?.def
    while (def && def.innerType) def = defOf(def.innerType)
    return def
  }
  let def = defOf(schema)
  for (const part of path) {
    if (def?.type === 'array' && /^\d+$/.test(part)) def = defOf(def.element)
    else if (def?.type === 'object') def = defOf((def.shape as Record<string, unknown>)[part])
    else return []
  }
  if (def?.type === 'object') return Object.keys(def.shape as Record<string, unknown>)
  // A record keyed by a fixed list (the rate providers): the list's names.
  const keyDef = def?.type === 'record' ? defOf(def.keyType) : undefined
  return keyDef?.type === 'enum' ? Object.keys(keyDef.entries as Record<string, unknown>) : []
}
