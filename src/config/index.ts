// TOML file + environment + command-line flags → one validated, typed Config.
import fs from 'node:fs'
import path from 'node:path'
import { parse as parseToml } from 'smol-toml'
import { configSchema, type Config } from './schema.js'
import { describeProblems } from './problems.js'
import { ConfigError } from './config-error.js'

export { configSchema, type Config }
export { ensureSecret, readSecret } from './secrets.js'
export { listening } from './listen-errors.js'
export { isLoopbackUrl } from './loopback.js'

export { ConfigError }

export interface LoadOptions {
  /** Explicit config file; when absent, `<data_dir>/relaypay.toml` is read if it exists. */
  file?: string
  /** Values from command-line flags, as `section.key` → value; they win over everything. */
  flags?: Record<string, unknown>
  env?: NodeJS.ProcessEnv
}

/** Upstream Lightning.Pub environment names accepted for the LND connection. */
const upstreamEnv: Record<string, string> = {
  LND_ADDRESS: 'node.lnd_socket',
  LND_CERT_PATH: 'node.lnd_cert_path',
  LND_MACAROON_PATH: 'node.lnd_macaroon_path',
}

export function loadConfig(opts: LoadOptions = {}): Config {
  const env = opts.env ?? process.env
  const raw: Record<string, unknown> = {}
  const origin = new Map<string, string>()

  const dataDirHint = (opts.flags?.['data_dir'] as string | undefined) ?? env.RELAYPAY_DATA_DIR ?? './data'
  const implicitFile = path.join(dataDirHint, 'relaypay.toml')
  const file = opts.file ?? (fs.existsSync(implicitFile) ? implicitFile : undefined)
  let text: string | undefined
  if (file) {
    try {
      text = fs.readFileSync(file, 'utf8')
    } catch (err) {
      throw new ConfigError(`cannot read config file ${file}: ${(err as NodeJS.ErrnoException).code ?? err}`)
    }
    try {
      Object.assign(raw, parseToml(text))
    } catch (err) {
      // smol-toml stops at the first syntax error and says where; nothing after it can be read.
      const { line, column } = err as { line?: number; column?: number }
      const at = line ? ` line ${line}${column ? `, column ${column}` : ''}` : ''
      throw new ConfigError(`config file ${file}${at} is not valid TOML: ${(err as Error).message.split('\n')[0]}`)
    }
    // A relative data_dir in a file is relative to the file, not to wherever the command runs: `relaypay init`
    // writes "." into the config it puts in the data dir, which then names its own folder wherever it is copied
    // or restored (an absolute path there would send a restored copy's daemon to the original, live data dir).
    if (typeof raw.data_dir === 'string' && !path.isAbsolute(raw.data_dir)) raw.data_dir = path.resolve(path.dirname(file), raw.data_dir)
  }

  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue
    const key = upstreamEnv[name] ?? envKey(name)
    if (!key) continue
    setPath(raw, key, envValue(value))
    origin.set(key, name)
  }
  for (const [key, value] of Object.entries(opts.flags ?? {})) {
    if (value === undefined) continue
    setPath(raw, key, value)
    origin.set(key, `--${key.split('.').pop()!.replace(/_/g, '-')}`)
  }

  const parsed = configSchema.safeParse(raw)
  if (!parsed.success) {
    throw new ConfigError(
      describeProblems(parsed.error.issues, { file: file && text !== undefined ? { name: file, text } : undefined, origin, schema: configSchema }),
    )
  }
  return parsed.data
}

/**
 * `RELAYPAY_HTTP_PORT` → `http.port`; `RELAYPAY_DATA_DIR` → `data_dir`. `RELAYPAY_TEST_*` belongs to the test suite
 * (e.g. RELAYPAY_TEST_REQUIRE_BROWSER, RELAYPAY_TEST_POSTGRES_URL) and is no config key: a daemon started from a
 * test run inherits it.
 */
function envKey(name: string): string | undefined {
  if (!name.startsWith('RELAYPAY_') || name.startsWith('RELAYPAY_TEST_')) return undefined
  const rest = name.slice('RELAYPAY_'.length).toLowerCase()
  if (rest === 'data_dir') return 'data_dir'
  const cut = rest.indexOf('_')
  if (cut <= 0) return undefined
  return `${rest.slice(0, cut)}.${rest.slice(cut + 1)}`
}

/** Environment values are strings; numbers, booleans and JSON arrays are read as such. */
function envValue(value: string): unknown {
  const trimmed = value.trim()
  if (/^-?\d+$/.test(trimmed)) return Number(trimmed)
  if (trimmed === 'true' || trimmed === 'false') return trimmed === 'true'
  if (trimmed.startsWith('[')) {
    try {
      return JSON.parse(trimmed)
    } catch {
      return value
    }
  }
  return value
}

function setPath(target: Record<string, unknown>, key: string, value: unknown): void {
  const parts = key.split('.')
  let node = target
  for (const part of parts.slice(0, -1)) {
    const next = node[part]
    if (typeof next !== 'object' || next === null || Array.isArray(next)) node[part] = {}
    node = node[part] as Record<string, unknown>
  }
  node[parts[parts.length - 1]!] = value
}
