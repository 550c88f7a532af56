// What the fuzzer sends as an operation's input, before a transport wraps it: a valid-shaped input with one field
// broken, dropped or joined by strangers, or something made up from scratch. `how` names the mutation in reports.
import fc from 'fast-check'
import type { CatalogueEntry } from '../../../schema/catalogue.js'
import { badValue, type FuzzSamples } from './bad-values.js'
import { pathsOf, shapedValue, withFieldAt } from './shaped-input.js'

export interface InputCase {
  how: string
  input: unknown
}

/** Keys that mean something to JavaScript objects, and plain strangers. */
const strangerKey = fc.oneof(
  fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', 'then', 'length', 'status', 'requestId', ''),
  fc.string({ maxLength: 12 }),
)

export function inputCases(entry: CatalogueEntry, samples: FuzzSamples): fc.Arbitrary<InputCase> {
  const shaped = shapedValue(entry.input, samples)
  const bad = badValue(samples)
  const pick = <T>(items: T[], at: number): T | undefined => (items.length > 0 ? items[at % items.length] : undefined)
  return fc.oneof(
    { weight: 2, arbitrary: shaped.map(input => ({ how: 'valid-shaped', input })) },
    {
      weight: 8,
      arbitrary: fc.tuple(shaped, fc.nat(), bad).map(([input, at, value]) => {
        const path = pick(pathsOf(input), at)
        return path ? { how: `bad ${path.join('.')}`, input: withFieldAt(input, path, value) } : { how: 'bad whole input', input: value }
      }),
    },
    {
      weight: 2,
      arbitrary: fc.tuple(shaped, fc.nat()).map(([input, at]) => {
        const path = pick(pathsOf(input), at)
        return path ? { how: `dropped ${path.join('.')}`, input: withFieldAt(input, path, undefined) } : { how: 'no input', input }
      }),
    },
    {
      weight: 2,
      arbitrary: fc.tuple(shaped, fc.array(fc.tuple(strangerKey, bad), { minLength: 1, maxLength: 4 })).map(([input, extras]) => {
        let out: unknown = typeof input === 'object' && input !== null ? input : {}
        for (const [key, value] of extras) out = withFieldAt(out, [key], value)
        return { how: `extra ${extras.map(([key]) => JSON.stringify(key)).join(',')}`, input: out }
      }),
    },
    { weight: 2, arbitrary: fc.dictionary(strangerKey, fc.oneof(bad, fc.jsonValue({ maxDepth: 2 })), { maxKeys: 6 }).map(input => ({ how: 'scratch object', input })) },
    { weight: 1, arbitrary: bad.map(input => ({ how: 'scratch value', input })) },
  )
}
