// What the relay attack tests and `npm run bench -- attack` share: seeding a relay store with what an attacker
// would read, running the attacker in a process of its own (relay-attacker.ts), and measuring what a user sees
// meanwhile: GET /api/health, and a fresh wallet's first RPC over the embedded relay (its connect included).
import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import { spawn } from 'node:child_process'
import path from 'node:path'
import { openEventStore } from '../../src/relay/event-store.js'
import { repoRoot } from './paths.js'
import { appProfile, PubClient } from './pub-client.js'
import type { AttackPlan, AttackReport } from './relay-attacker.js'
import type { TestDaemon } from './daemon.js'

export type { AttackPlan, AttackReport }

const hex = (bytes: number) => crypto.randomBytes(bytes).toString('hex')

/**
 * Writes `ephemeral` kind-21000 events and `stored` kind-1 events straight into <dataDir>/relay.sqlite, before the
 * daemon starts: what a relay holds after a busy while (or after running as a general relay). They are addressed to
 * nobody the daemon serves and their signatures are random: the daemon never reads them, only the attacker does.
 */
export function seedRelayStore(dataDir: string, counts: { ephemeral: number; stored: number; contentBytes?: number }): void {
  const store = openEventStore({ dataDir, ephemeralRetentionSeconds: 600 })
  const now = Math.floor(Date.now() / 1000)
  const content = 'x'.repeat(counts.contentBytes ?? 200)
  const make = (kind: number, i: number) => ({
    id: hex(32),
    pubkey: hex(32),
    created_at: now - (i % 500),
    kind,
    tags: [['p', hex(32)]],
    content,
    sig: hex(64),
  })
  const items = [
    ...Array.from({ length: counts.ephemeral }, (_, i) => ({ event: make(21000, i), now })),
    ...Array.from({ length: counts.stored }, (_, i) => ({ event: make(1, i), now })),
  ]
  for (let i = 0; i < items.length; i += 1000) store.saveBatch(items.slice(i, i + 1000))
  store.close()
}

/** Runs the attacker in its own node process; resolves with its report. */
export function runAttacker(plan: AttackPlan): Promise<AttackReport> {
  const script = path.join(repoRoot, 'build/test/support/relay-attacker.js')
  const planFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'relaypay-attack-')), 'plan.json')
  fs.writeFileSync(planFile, JSON.stringify(plan))
  const child = spawn(process.execPath, [script, planFile], { stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  let err = ''
  child.stdout.on('data', chunk => (out += chunk))
  child.stderr.on('data', chunk => (err += chunk))
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), plan.durationMs + 30_000)
    child.on('exit', code => {
      clearTimeout(timer)
      const line = out.trim().split('\n').pop() ?? ''
      try {
        resolve(JSON.parse(line) as AttackReport)
      } catch {
        reject(new Error(`attacker exited ${code} without a report: ${err.slice(0, 2000)}`))
      }
    })
  })
}

export interface Watch {
  /** Milliseconds per GET /api/health, in order; a failed one counts as Infinity. */
  health: number[]
  /** Milliseconds per fresh wallet's GetUserInfo over the relay (connect included); a failed one: Infinity. */
  rpc: number[]
  /** Of each fresh wallet's RPC: the connection to the relay (ms) and the call after it (ms); Infinity if failed. */
  rpcParts: { connectMs: number; callMs: number }[]
  stop(): Promise<void>
}

/**
 * Samples health every `healthEveryMs` and a fresh wallet's RPC every `rpcEveryMs` until stopped; each fresh wallet
 * connects from an address of its own (127.0.x.y).
 */
export function watchDaemon(daemon: TestDaemon, opts: { healthEveryMs?: number; rpcEveryMs?: number } = {}): Watch {
  const health: number[] = []
  const rpc: number[] = []
  const rpcParts: Watch['rpcParts'] = []
  let running = true
  const { pubkey, relays } = appProfile(daemon.dataDir)
  const healthLoop = (async () => {
    while (running) {
      const started = performance.now()
      try {
        const res = await fetch(`${daemon.url}/api/health`, { signal: AbortSignal.timeout(10_000) })
        await res.text()
        health.push(res.ok ? performance.now() - started : Infinity)
      } catch {
        health.push(Infinity)
      }
      await new Promise(resolve => setTimeout(resolve, opts.healthEveryMs ?? 100))
    }
  })()
  let wallets = 0
  const rpcLoop = (async () => {
    while (running) {
      // Each from an address of its own, as new users are: the relay budgets keys per address.
      const n = wallets++
      const localAddress = `127.0.${1 + (Math.floor(n / 250) % 250)}.${1 + (n % 250)}`
      const started = performance.now()
      let client: PubClient | undefined
      let connectMs = Infinity
      try {
        client = await PubClient.connect({ relays, appPubkey: pubkey, timeoutMs: 10_000, localAddress })
        connectMs = performance.now() - started
        await client.ok('GetUserInfo')
        rpc.push(performance.now() - started)
        rpcParts.push({ connectMs, callMs: performance.now() - started - connectMs })
      } catch {
        rpc.push(Infinity)
        rpcParts.push({ connectMs, callMs: Infinity })
      } finally {
        client?.close()
      }
      await new Promise(resolve => setTimeout(resolve, opts.rpcEveryMs ?? 1000))
    }
  })()
  return {
    health,
    rpc,
    rpcParts,
    async stop() {
      running = false
      await Promise.all([healthLoop, rpcLoop])
    },
  }
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!
}

/** Reasons whose text starts with `prefix`, summed. */
export function refusals(report: AttackReport, prefix: string): number {
  return Object.entries(report.reasons).reduce((sum, [reason, n]) => sum + (reason.startsWith(prefix) ? n : 0), 0)
}
