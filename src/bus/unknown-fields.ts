// Input fields an operation's schema does not name. zod objects drop them silently, so a caller who misspells a
// field (`budget_sats` for `budget`) believes it was applied. The dispatcher refuses them on relaypay's own and the
// extensions' operations, and logs them on Lightning.Pub's (see `unknownFields` in schema/operation.ts).
import type { z } from 'zod'
import { distance } from 'fastest-levenshtein'

type Def = { type: string } & Record<string, unknown>

/** Wrappers whose value is checked against the schema they wrap. */
const wrappers = new Set(['optional', 'nullable', 'default', 'prefault', 'readonly', 'catch', 'nonoptional'])

/** Dotted paths of the fields in `value` that `schema` does not name, in input order. */
export function unknownFields(schema: z.ZodType, value: unknown, path = ''): string[] {
  const def = unwrap(schema)
  if (!def || value === null || typeof value !== 'object') return []
  if (def.type === 'array' && Array.isArray(value)) {
    return value.flatMap((item, i) => unknownFields(def.element as z.ZodType, item, `${path}${i}.`))
  }
  if (Array.isArray(value)) return []
  const record = value as Record<string, unknown>
  if (def.type === 'record') {
    return Object.entries(record).flatMap(([key, item]) => unknownFields(def.valueType as z.ZodType, item, `${path}${key}.`))
  }
  if (def.type === 'union') {
    // The option that fits best: the one naming every field if any, else the one leaving the fewest out.
    let best: string[] | undefined
    for (const option of def.options as z.ZodType[]) {
      if (unwrap(option)?.type !== 'object') continue
      const found = unknownFields(option, value, path)
      if (!best || found.length < best.length) best = found
      if (found.length === 0) break
    }
    return best ?? []
  }
  if (def.type !== 'object') return []
  // An object with a catchall (a loose object) takes any field.
  const catchall = def.catchall as z.ZodType | undefined
  if (catchall && unwrap(catchall)?.type !== 'never') return []
  const shape = def.shape as Record<string, z.ZodType>
  const found: string[] = []
  for (const [key, item] of Object.entries(record)) {
    if (!Object.hasOwn(shape, key)) found.push(path + key)
    else found.push(...unknownFields(shape[key]!, item, `${path}${key}.`))
  }
  return found
}

/** The fields `schema` names at the level of `field` (a dotted path), for a "did you mean". */
export function knownFieldsBeside(schema: z.ZodType, field: string): string[] {
  let def = unwrap(schema)
  for (const part of field.split('.').slice(0, -1)) {
    if (def?.type === 'array' && /^\d+$/.test(part)) def = unwrap(def.element as z.ZodType)
    else if (def?.type === 'record') def = unwrap(def.valueType as z.ZodType)
    else if (def?.type === 'object') def = unwrap((def.shape as Record<string, z.ZodType>)[part])
    else return []
  }
  return def?.type === 'object' ? Object.keys(def.shape as Record<string, z.ZodType>) : []
}

/**
 * The known field `unknown` most likely meant: one whose words it holds or that holds its words (`budget_sats` →
 * `budget`, `amount` → `amount_sats`), or one a typo away.
 */
export function likelyMeant(unknown: string, known: readonly string[]): string | undefined {
  const name = unknown.slice(unknown.lastIndexOf('.') + 1)
  const words = name.split('_')
  const byWord = known.find(field => {
    const fieldWords = field.split('_')
    return fieldWords.every(word => words.includes(word)) || words.every(word => fieldWords.includes(word))
  })
  if (byWord) return byWord
  const typoAway = (field: string) => field.length < 4 ? 1 : Math.max(2, Math.floor(field.length / 4))
  return known.find(field => Math.abs(field.length - name.length) <= 3 && distance(name, field) <= typoAway(field))
}

function unwrap(schema: z.ZodType | undefined): Def | undefined {
  let def = (schema as { _zod?: { def?: Def } } | undefined)?._zod?.def
  for (let i = 0; def && i < 16; i++) {
    if (wrappers.has(def.type)) def = (def.innerType as { _zod: { def: Def } })._zod.def
    else if (def.type === 'pipe') {
      // A preprocess is a pipe from a transform: the value's shape is the output side's.
      const from = (def.in as { _zod: { def: Def } })._zod.def
      def = from.type === 'transform' ? (def.out as { _zod: { def: Def } })._zod.def : from
    }
    else if (def.type === 'lazy') def = (def.getter as () => { _zod: { def: Def } })()._zod.def
    else break
  }
  return def
}
