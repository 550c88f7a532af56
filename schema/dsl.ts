// The vocabulary the operation catalogue is written in: wire messages as zod schemas that follow the
// upstream Lightning.Pub JSON rules (docs/pub-protocol.md, "Names and JSON"), plus helpers for the
// host and extension routes. zod gives us validation with field paths and static types from one definition.
import { z } from '../src/vendor/zod.js'

export { z }

/** A request or response message: a named object whose unknown fields are ignored (upstream behaviour). */
export function message<S extends z.ZodRawShape>(name: string, shape: S) {
  return z.object(shape).meta({ title: name })
}

/** The empty message `{}`; request bodies of Empty operations are ignored. */
export const Empty = message('Empty', {})

/** A proto int64/int32 travelling as a JSON number. Safe integers only: money must stay exact. */
export const int = () => z.int()
/** A proto string. */
export const text = () => z.string()
/** A proto bool. */
export const bool = () => z.boolean()
/** A proto double/float. */
export const num = () => z.number()

/** A proto enum: travels as its value name (`"DAY"`), never as a number. */
export function enumOf<const T extends readonly [string, ...string[]]>(name: string, values: T) {
  return z.enum(values).meta({ title: name })
}

/** `repeated X`: an array, required in requests (may be empty). */
export const list = <T extends z.ZodType>(item: T) => z.array(item)

/** `map<string, X>`: a JSON object. */
export const map = <T extends z.ZodType>(value: T) => z.record(z.string(), value)

/**
 * A proto3 `optional` field. Upstream type-checks optional fields only when they are truthy, so a falsy value
 * of the wrong type (`""`, `0`, `false`, `null`) counts as absent instead of failing the whole request.
 */
export function optional<T extends z.ZodType>(schema: T) {
  return z.preprocess(
    value => (value === null || (!value && !schema.safeParse(value).success) ? undefined : value),
    schema.optional(),
  )
}

type OneofMember<K extends string, T extends z.ZodType> = z.ZodObject<{ type: z.ZodLiteral<K> } & { [P in K]: T }>

/**
 * A proto `oneof` group, encoded upstream as `{"type": "<member>", "<member>": value}` under the group's name.
 * Example: `update: oneof({ channel_point: text(), all: Empty })`.
 */
export function oneof<const M extends Record<string, z.ZodType>>(members: M) {
  const variants = Object.entries(members).map(([key, schema]) =>
    z.object({ type: z.literal(key), [key]: schema }),
  ) as unknown as [OneofMember<Extract<keyof M, string>, M[keyof M]>, ...OneofMember<Extract<keyof M, string>, M[keyof M]>[]]
  return z.discriminatedUnion('type', variants).meta({ title: 'oneof' }) as z.ZodType<
    { [K in keyof M]: { type: K } & { [P in K]: z.output<M[K]> } }[keyof M],
    { [K in keyof M]: { type: K } & { [P in K]: z.input<M[K]> } }[keyof M]
  >
}

/** A value that arrives as a string (query or path parameter) and means an integer. */
export const intParam = () => z.coerce.number().pipe(z.int())
/** A query flag that arrives as `true`/`false`/`1`/`0`. */
export const boolParam = () =>
  z.enum(['true', 'false', '1', '0']).transform(value => value === 'true' || value === '1')

/** A decimal amount written as a string or number ("12.50"); kept as a string so no float ever holds money. */
export const decimal = (opts: { maxDecimals?: number } = {}) =>
  z
    .union([z.string(), z.number()])
    .transform(value => (typeof value === 'number' ? String(value) : value.trim()))
    .pipe(
      z
        .string()
        .regex(
          new RegExp(`^\\d+(\\.\\d{1,${opts.maxDecimals ?? 8}})?$`),
          `must be a non-negative decimal with at most ${opts.maxDecimals ?? 8} decimals`,
        ),
    )

/** Any JSON value (used for free-form `extra` data and for bodies validated by the handler). */
export const json = () => z.unknown()

export type Message = z.ZodType
export type Infer<T extends z.ZodType> = z.output<T>
