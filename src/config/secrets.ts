// Secrets the daemon creates on first start when the config does not set them: written once, 0600.
import fs from 'node:fs'
import { randomBytes } from 'node:crypto'

/** Reads the secret in `file`, creating it with `bytes` random bytes (hex) when it does not exist. */
export function ensureSecret(file: string, bytes = 32): { value: string; created: boolean } {
  const existing = readSecret(file)
  if (existing) return { value: existing, created: false }
  const value = randomBytes(bytes).toString('hex')
  // `wx` fails if another process created the file meanwhile; then that one's value wins.
  try {
    fs.writeFileSync(file, value + '\n', { mode: 0o600, flag: 'wx' })
    return { value, created: true }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
    return { value: readSecret(file)!, created: false }
  }
}

export function readSecret(file: string): string | undefined {
  try {
    const value = fs.readFileSync(file, 'utf8').trim()
    return value.length > 0 ? value : undefined
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw err
  }
}
