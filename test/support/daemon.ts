// Starts the real daemon (`relaypay start`) as a child process in a temporary data dir on a free loopback port,
// and talks to it only over HTTP — the way a user's client would.
//
// RELAYPAY_TEST_STORE=postgres runs every daemon the suite starts on PostgreSQL (`[store] url`): a fresh database
// per data dir on the server of RELAYPAY_TEST_POSTGRES_URL, already migrated (a copy of a template: postgres.ts), and
// a restart on the same data dir gets the same one. It
// is a switch of its own because .ci/run sets the server URL in both halves of its run, and the first half runs
// the daemons on SQLite. A test that names its own store (RELAYPAY_STORE_URL in `env`, `url` in its config) keeps it.
import { spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { repoRoot } from './paths.js'
import { SecretLedger } from './log-secrets.js'
import { duplicateKeyLines } from './log-keys.js'
import { createMigratedDatabase } from './postgres.js'

export interface TestDaemon {
  url: string
  dataDir: string
  adminToken: string
  process: ChildProcess
  /** Every log line the daemon printed so far. */
  logs(): string
  request(method: string, urlPath: string, opts?: RequestOptions): Promise<{ status: number; json: any; text: string; headers: Headers }>
  /** SIGTERM and wait for exit; resolves with the exit code. */
  stop(): Promise<number | null>
  /** SIGKILL (a crash) and wait for exit. */
  kill(): Promise<void>
  /** The secrets this daemon holds or handed out, scanned for in its log when it stops (a leak fails the test). */
  secrets: SecretLedger
  /** Resolves once the daemon serves (it wrote daemon.json); for one started with `untilProbes`. */
  waitUntilServing(limitMs?: number): Promise<void>
  /** Resolves with the exit code once the process has exited (by itself or stopped). */
  exited: Promise<number | null>
}

export interface RequestOptions {
  body?: unknown
  rawBody?: string
  headers?: Record<string, string>
}

export interface StartOptions {
  /** TOML written to <dataDir>/relaypay.toml before start. */
  config?: string
  env?: Record<string, string>
  /** Reuse a data dir (restart tests). */
  dataDir?: string
  /** How long to wait for it to listen (default 60 s; the fault tests, restarting all the time, allow more). */
  startTimeoutMs?: number
  /**
   * Test mode (`[node] mock`), which most tests fund wallets with: on unless this is false, or the config or env
   * sets it. The daemon's own default is off.
   */
  mock?: boolean
  /** The CLI to spawn (default this build's): benches run an older build beside this one. */
  cli?: string
  /**
   * Resolve once the probes answer (`/healthz`, `/readyz`) instead of once the daemon serves: a standby on
   * PostgreSQL answers its probes and starts nothing else until it holds the books (`waitUntilServing` then).
   */
  untilProbes?: boolean
}

/** How long a start may take before the test gives up on it. */
const startLimitMs = 60_000

export const cliPath = path.join(repoRoot, 'build/bin/relaypay.js')

/**
 * Node's arguments for running `cli` as the relaypay command runs itself: the flags of its first line
 * (`#!/usr/bin/env -S node <flags>`), then the script and `args`. A build without flags there runs without them.
 */
export function relaypayArgs(cli: string, args: readonly string[]): string[] {
  const first = fs.readFileSync(cli, 'utf8').split('\n', 1)[0]!
  const flags = /^#!\/usr\/bin\/env -S node\s+(.*)$/.exec(first)?.[1]?.trim().split(/\s+/) ?? []
  return [...flags, cli, ...args]
}

export function tempDataDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'relaypay-test-'))
}

/** RELAYPAY_NODE_MOCK=true unless the test turned test mode off or chose it in its config. */
export function mockEnv(opts: Pick<StartOptions, 'mock' | 'config'>): Record<string, string> {
  if (opts.mock === false || /^\s*mock\s*=/m.test(opts.config ?? '')) return {}
  return { RELAYPAY_NODE_MOCK: 'true' }
}

/** PostgreSQL databases made for data dirs in this process, so a restart finds its books again. */
const postgresForDataDir = new Map<string, string>()

/** The PostgreSQL database the harness gave the daemons of `dataDir` (the suite's PostgreSQL run), if any. */
export function storeUrlOf(dataDir: string): string | undefined {
  return postgresForDataDir.get(dataDir)
}

/** RELAYPAY_STORE_URL for a daemon of the PostgreSQL run (RELAYPAY_TEST_STORE=postgres); nothing otherwise. */
export async function storeEnv(dataDir: string, opts: Pick<StartOptions, 'config' | 'env'>): Promise<Record<string, string>> {
  if (process.env.RELAYPAY_TEST_STORE !== 'postgres') return {}
  if (opts.env?.RELAYPAY_STORE_URL !== undefined || /^\s*url\s*=\s*"postgres/m.test(opts.config ?? '')) return {}
  const server = process.env.RELAYPAY_TEST_POSTGRES_URL
  if (!server) throw new Error('RELAYPAY_TEST_STORE=postgres needs RELAYPAY_TEST_POSTGRES_URL (a server to make databases on)')
  let url = postgresForDataDir.get(dataDir)
  if (!url) postgresForDataDir.set(dataDir, (url = await createMigratedDatabase(server)))
  return { RELAYPAY_STORE_URL: url }
}

export async function startDaemon(opts: StartOptions = {}): Promise<TestDaemon> {
  const dataDir = opts.dataDir ?? path.join(tempDataDir(), 'data')
  fs.mkdirSync(dataDir, { recursive: true })
  if (opts.config !== undefined) fs.writeFileSync(path.join(dataDir, 'relaypay.toml'), opts.config)
  const store = await storeEnv(dataDir, opts)
  const child = spawn(process.execPath, relaypayArgs(opts.cli ?? cliPath, ['start', '--data-dir', dataDir, '--http-port', '0']), {
    // Port 0: tests run in parallel, each daemon with its own embedded relay.
    env: { ...process.env, RELAYPAY_LOG_LEVEL: 'info', RELAYPAY_NOSTR_EMBEDDED_RELAY_PORT: '0', ...mockEnv(opts), ...store, ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const secrets = new SecretLedger()
  secrets.addFromConfig(opts.config)
  for (const [key, value] of Object.entries(opts.env ?? {})) if (/TOKEN|SECRET|MACAROON/i.test(key)) secrets.add(`env ${key}`, value)
  let output = ''
  child.stdout!.on('data', chunk => (output += chunk))
  child.stderr!.on('data', chunk => (output += chunk))
  const exited = new Promise<number | null>(resolve => child.on('exit', code => resolve(code)))

  // The daemon writes <dataDir>/daemon.json once it listens; a stale file from a killed run names another pid.
  // A standby is found by its probe server's log line instead, once its secrets are written.
  const probesUrl = () => /"url":"([^"]+)"[^\n]*"msg":"probes answering/.exec(output)?.[1]
  const servingUrl = () => {
    try {
      const info = JSON.parse(fs.readFileSync(path.join(dataDir, 'daemon.json'), 'utf8'))
      return info.pid === child.pid ? (info.url as string) : undefined
    } catch {
      return undefined // not written yet
    }
  }
  const found = (limitMs: number, find: () => string | undefined) => new Promise<string>((resolve, reject) => {
    const started = Date.now()
    const poll = setInterval(() => {
      const url = find()
      if (url !== undefined) {
        clearInterval(poll)
        resolve(url)
        return
      }
      // Generous: eight test runs share two cores at times, and a start then takes well over 20 s.
      if (Date.now() - started > limitMs) {
        clearInterval(poll)
        child.kill('SIGKILL') // a daemon that never answered must not outlive the test
        reject(new Error(`daemon did not start within ${limitMs / 1000} s:\n${output}`))
      }
    }, 25)
    exited.then(code => {
      clearInterval(poll)
      reject(new Error(`daemon exited with ${code} before listening:\n${output}`))
    })
  })
  const tokenFile = path.join(dataDir, 'admin.token')
  const url = await found(opts.startTimeoutMs ?? startLimitMs, opts.untilProbes ? () => (fs.existsSync(tokenFile) ? probesUrl() : undefined) : servingUrl)
  // A token the configuration sets is not written to the data dir.
  const configured = opts.env?.RELAYPAY_AUTH_ADMIN_TOKEN ?? /^\s*admin_token\s*=\s*"([^"]+)"/m.exec(opts.config ?? '')?.[1]
  const adminToken = configured ?? fs.readFileSync(path.join(dataDir, 'admin.token'), 'utf8').trim()
  secrets.add('the admin token', adminToken)
  // Files the daemon removes later (admin.enroll once an admin enrolls) are read while they exist.
  secrets.addFromDataDir(dataDir)
  // The books in PostgreSQL are read when the daemon stops (async: not at exit, where only the files are read).
  const booksUrl = store.RELAYPAY_STORE_URL
  const addFromBooks = async () => {
    if (booksUrl && !scanned) await secrets.addFromPostgres(booksUrl)
  }

  // Every daemon's log is scanned once it stops (for secrets, and for a key written twice in one JSON line); one a
  // test forgot to stop is scanned as the test process exits.
  let scanned = false
  const leaks = (): string[] => {
    scanned = true
    process.off('exit', scanAtExit)
    secrets.addFromDataDir(dataDir)
    return [...secrets.leaksIn(output), ...duplicateKeyLines(output)]
  }
  const failOnLeaks = () => {
    const found = leaks()
    if (found.length > 0) throw new Error(`the daemon in ${dataDir} logged secrets or a key twice:\n${found.join('\n')}`)
  }
  function scanAtExit() {
    const found = leaks()
    if (found.length === 0) return
    process.stderr.write(`the daemon in ${dataDir} logged secrets or a key twice:\n${found.join('\n')}\n`)
    process.exitCode = 1
  }
  process.on('exit', scanAtExit)

  return {
    url,
    dataDir,
    adminToken,
    process: child,
    secrets,
    logs: () => output,
    exited,
    async waitUntilServing(limitMs = startLimitMs) {
      await found(limitMs, servingUrl)
    },
    async request(method, urlPath, ropts = {}) {
      secrets.addFromHeaders(ropts.headers, `${method} ${urlPath}`)
      const res = await fetch(url + urlPath, {
        method,
        headers: { ...(ropts.body !== undefined ? { 'content-type': 'application/json' } : {}), ...ropts.headers },
        body: ropts.rawBody ?? (ropts.body !== undefined ? JSON.stringify(ropts.body) : undefined),
      })
      const text = await res.text()
      let json: unknown
      try {
        json = JSON.parse(text)
      } catch {
        json = undefined
      }
      secrets.addFromJson(json, `${method} ${urlPath}`)
      return { status: res.status, json, text, headers: res.headers }
    },
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM')
      const code = await exited
      await addFromBooks()
      if (!scanned) failOnLeaks()
      return code
    },
    async kill() {
      if (child.exitCode === null) child.kill('SIGKILL')
      await exited
      await addFromBooks()
      if (!scanned) failOnLeaks()
    },
  }
}
