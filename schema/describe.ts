// Reads the catalogue's zod schemas back as plain descriptions, for the generated operations reference and for
// tests that compare the catalogue with the reference tables.
import { z } from '../src/vendor/zod.js'

export interface FieldDescription {
  name: string
  type: string
  presence: 'required' | 'optional' | 'repeated' | 'map' | 'oneof'
}

type Def = { type: string; [key: string]: unknown }

const defOf = (schema: z.ZodType): Def => (schema as unknown as { def: Def }).def

/** The name a schema was declared with (`message('X', …)`, `enumOf('Y', …)`), if any. */
export function titleOf(schema: z.ZodType): string | undefined {
  const meta = z.globalRegistry.get(schema) as { title?: string } | undefined
  return meta?.title === 'oneof' ? undefined : meta?.title
}

/** Strips wrappers that do not change the wire shape (optional leniency pipes, defaults, nullables). */
export function unwrap(schema: z.ZodType): { schema: z.ZodType; optional: boolean } {
  let current = schema
  let optional = false
  for (;;) {
    const def = defOf(current)
    if (def.type === 'pipe') {
      const input = def.in as z.ZodType
      current = defOf(input).type === 'transform' ? (def.out as z.ZodType) : input
    } else if (def.type === 'optional' || def.type === 'default' || def.type === 'prefault') {
      optional = true
      current = def.innerType as z.ZodType
    } else if (def.type === 'nullable') {
      current = def.innerType as z.ZodType
    } else return { schema: current, optional }
  }
}

/** A short type name for docs: `string`, `int`, `Foo[]`, `map<string, Bar>`, `"A" | "B"`. */
export function describeType(schema: z.ZodType): string {
  const inner = unwrap(schema).schema
  const title = titleOf(inner)
  const def = defOf(inner)
  switch (def.type) {
    case 'object':
      return title ?? 'object'
    case 'string':
      return 'string'
    case 'number':
      return (def as { format?: string }).format?.includes('int') || isInt(inner) ? 'int' : 'number'
    case 'int':
      return 'int'
    case 'boolean':
      return 'bool'
    case 'array':
      return `${describeType(def.element as z.ZodType)}[]`
    case 'record':
      return `map<string, ${describeType(def.valueType as z.ZodType)}>`
    case 'enum':
      return title ?? Object.keys(def.entries as object).map(v => JSON.stringify(v)).join(' | ')
    case 'literal':
      return (def.values as unknown[]).map(v => JSON.stringify(v)).join(' | ')
    case 'union': {
      const options = def.options as z.ZodType[]
      if (def.discriminator) return `oneof {${options.map(o => oneofMember(o)).join(', ')}}`
      return options.map(describeType).join(' | ')
    }
    case 'unknown':
    case 'any':
      return 'json'
    default:
      return def.type
  }
}

function isInt(schema: z.ZodType): boolean {
  return (schema as unknown as { isInt?: boolean }).isInt === true
}

function oneofMember(option: z.ZodType): string {
  const shape = (option as z.ZodObject).shape
  const member = Object.keys(shape).find(key => key !== 'type')!
  return `${member}: ${describeType(shape[member] as z.ZodType)}`
}

/** The wire fields of a message with their presence, in declaration order. */
export function fieldsOf(schema: z.ZodType): FieldDescription[] {
  const inner = unwrap(schema).schema
  if (defOf(inner).type !== 'object') return []
  return Object.entries((inner as z.ZodObject).shape).map(([name, field]) => {
    const { schema: core, optional } = unwrap(field as z.ZodType)
    const type = defOf(core).type
    const presence: FieldDescription['presence'] = optional
      ? 'optional'
      : type === 'array'
        ? 'repeated'
        : type === 'record'
          ? 'map'
          : type === 'union' && defOf(core).discriminator
            ? 'oneof'
            : 'required'
    return { name, type: describeType(field as z.ZodType), presence }
  })
}
