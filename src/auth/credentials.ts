// Reading the credentials a transport handed over (their shape is the bus's: `Credentials` in bus/context.ts).

/** The `authorization` value without an optional `Bearer ` prefix (upstream accepts both). */
export function bearerValue(header: string | undefined): string | undefined {
  if (header === undefined) return undefined
  const value = header.replace(/^Bearer\s+/i, '').trim()
  return value.length > 0 ? value : undefined
}

export type { Credentials } from '../bus/index.js'
