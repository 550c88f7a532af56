// Inputs shaped like an operation's catalogue schema: the zod schema is walked and every field gets a value of its
// type, so a mutation of one field reaches the validator's later checks and, when the rest is valid, the handler.
// String fields get values by what their name says (an `invoice` gets an invoice, a `pubkey` a key), drawn from
// material the daemon under test gave out.
import fc from 'fast-check'
import type { z } from 'zod'
import type { FuzzSamples } from './bad-values.js'

type Def = { type: string; [key: string]: unknown }
const defOf = (schema: unknown): Def => (schema as { def: Def }).def

interface StringChecks {
  pattern?: RegExp
  min?: number
  max?: number
}

function stringChecks(def: Def): StringChecks {
  const found: StringChecks = {}
  for (const check of (def.checks as { _zod: { def: Record<string, unknown> } }[] | undefined) ?? []) {
    const c = check._zod.def
    if (c.check === 'string_format' && c.pattern instanceof RegExp) found.pattern = c.pattern
    if (c.check === 'min_length') found.min = c.minimum as number
    if (c.check === 'max_length') found.max = c.maximum as number
  }
  return found
}

/** A string for a field, by what its name says. */
function namedString(field: string, samples: FuzzSamples): fc.Arbitrary<string> | undefined {
  const name = field.toLowerCase()
  const pick = (values: string[]) => (values.length > 0 ? fc.constantFrom(...values) : undefined)
  if (/invoice$|^invoice|^pr$|bolt11|payment_request|offer_string/.test(name)) return pick(samples.invoices)
  if (/npub|nostr|lnurl|zap|noffer|ndebit|nmanage/.test(name)) return pick(samples.bech32)
  if (/pubkey|hash|token|k1|txid|private|remoteid/.test(name)) return pick(samples.hex64)
  if (/url/.test(name)) return fc.constantFrom('http://127.0.0.1:9/cb', 'https://127.0.0.1:9/x?y={amount}', 'ws://127.0.0.1:9')
  if (/date|since|until|^start|^end/.test(name)) return fc.constantFrom('2025-01-31', '2025-02-29', '2024-02-29', '2025-01-31T10:00:00Z')
  if (/currency|unit/.test(name)) return fc.constantFrom('sat', 'EUR', 'USD')
  if (/timezone/.test(name)) return fc.constantFrom('UTC', 'Europe/Berlin', 'Mars/Olympus')
  if (/(^|_)id$|identifier|wallet|^ext|extension|slug|name$|model/.test(name)) {
    const ids = pick(samples.ids)
    return ids ? fc.oneof(ids, fc.constantFrom('restaurant', 'payroll', 'base', 'tiny')) : undefined
  }
  return undefined
}

/** An arbitrary of values the schema's shape accepts, or nearly (refinements between fields are not modelled). */
export function shapedValue(schema: z.ZodType, samples: FuzzSamples, field = '', depth = 0): fc.Arbitrary<unknown> {
  const def = defOf(schema)
  switch (def.type) {
    case 'object': {
      const shape = (schema as unknown as z.ZodObject).shape as Record<string, z.ZodType>
      const fields: Record<string, fc.Arbitrary<unknown>> = {}
      const required: string[] = []
      for (const [key, value] of Object.entries(shape)) {
        fields[key] = shapedValue(value, samples, key, depth + 1)
        if (!isOptional(value)) required.push(key)
      }
      return fc.record(fields, { requiredKeys: required })
    }
    case 'optional':
    case 'default':
    case 'prefault':
    case 'nullable':
    case 'readonly':
    case 'catch':
    case 'nonoptional':
      return shapedValue(def.innerType as z.ZodType, samples, field, depth)
    case 'pipe': {
      const input = def.in as z.ZodType
      const inner = defOf(input).type === 'transform' ? (def.out as z.ZodType) : input
      return shapedValue(inner, samples, field, depth)
    }
    case 'lazy':
      return depth > 6 ? fc.constant([]) : shapedValue((def.getter as () => z.ZodType)(), samples, field, depth + 1)
    case 'string': {
      const checks = stringChecks(def)
      if (checks.pattern) return matching(checks.pattern)
      return namedString(field, samples) ?? fc.string({ minLength: checks.min ?? 0, maxLength: Math.min(checks.max ?? 24, 24) })
    }
    case 'number':
      if (def.coerce) return fc.nat({ max: 1000 }).map(String)
      return (def as { format?: string }).format?.includes('int') ? fc.nat({ max: 100_000 }) : fc.double({ min: 0, max: 1e6, noNaN: true })
    case 'int':
      return fc.nat({ max: 100_000 })
    case 'boolean':
      return fc.boolean()
    case 'enum':
      return fc.constantFrom(...Object.values(def.entries as Record<string, string>))
    case 'literal':
      return fc.constantFrom(...(def.values as unknown[]))
    case 'array':
      return depth > 6 ? fc.constant([]) : fc.array(shapedValue(def.element as z.ZodType, samples, field, depth + 1), { maxLength: 3 })
    case 'record':
      return fc.dictionary(fc.string({ maxLength: 8 }), shapedValue(def.valueType as z.ZodType, samples, field, depth + 1), { maxKeys: 3 })
    case 'union':
      return fc.oneof(...(def.options as z.ZodType[]).map(option => shapedValue(option, samples, field, depth + 1)))
    case 'tuple':
      return fc.tuple(...(def.items as z.ZodType[]).map(item => shapedValue(item, samples, field, depth + 1)))
    case 'null':
      return fc.constant(null)
    default:
      // unknown, any and anything newer: free-form JSON.
      return fc.jsonValue({ maxDepth: 2 })
  }
}

function matching(pattern: RegExp): fc.Arbitrary<string> {
  try {
    return fc.stringMatching(pattern, { maxLength: 80 })
  } catch {
    return fc.string({ maxLength: 24 }) // a pattern fast-check cannot invert
  }
}

function isOptional(schema: z.ZodType): boolean {
  return (schema as unknown as { safeParse(value: unknown): { success: boolean } }).safeParse(undefined).success
}

/** Paths (`['a', 0, 'b']`) of every field and item in a JSON value, outermost first, at most `limit` deep. */
export function pathsOf(value: unknown, limit = 4, prefix: (string | number)[] = []): (string | number)[][] {
  if (prefix.length >= limit || typeof value !== 'object' || value === null) return []
  const entries: [string | number, unknown][] = Array.isArray(value) ? value.map((item, i) => [i, item]) : Object.entries(value)
  return entries.flatMap(([key, item]) => [[...prefix, key], ...pathsOf(item, limit, [...prefix, key])])
}

/** A copy of `value` with the field at `path` replaced (or deleted, for `undefined`). */
export function withFieldAt(value: unknown, path: (string | number)[], replacement: unknown): unknown {
  if (path.length === 0) return replacement
  const [head, ...rest] = path
  const copy = (Array.isArray(value) ? [...value] : { ...(value as object) }) as Record<string | number, unknown>
  const next = withFieldAt(copy[head!], rest, replacement)
  if (next === undefined && !Array.isArray(copy)) delete copy[head!]
  else Object.defineProperty(copy, head!, { value: next, enumerable: true, writable: true, configurable: true }) // `__proto__` too
  return copy
}
