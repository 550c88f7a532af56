// The performance budget: one JSON summary with every figure and, per floor, met or missed.
//   - internal payments/s over HTTP at concurrency 32 (p50/p99, daemon and client CPU per payment; median of 3 runs)
//   - relay round trips/s with 64 in flight (p50/p99, CPU per round trip; median of 3 runs)
//   - cost per payment with 10k vs 1M journal rows (daemon CPU ms per payment on each, and their ratio)
//   - start time with 1M journal rows (spawn → HTTP ready; the audit verdict, which runs in the background above
//     100k rows, reported apart)
//   - RSS with 100k users, after start and after some load
// Seeded data dirs (bench/seed-ledger.ts) are cached in the OS temp dir by schema and size, and copied per run.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { packageMigrationFolders } from '../src/store/index.js'
import { startDaemon, tempDataDir, type TestDaemon } from '../test/support/daemon.js'
import { benchPayments, paymentBenchConfig, type PaymentBenchResult } from './payments.js'
import { benchNostr, type NostrBenchRow } from './nostr.js'
import { seedLedger, type SeedReport } from './seed-ledger.js'
import { processCpuMs, processRssMb } from './process-stats.js'
import { measureCryptoFloor } from './crypto-floor.js'

export interface BudgetOptions {
  durationMs: number
  /** Payments per measured window (each needs an invoice made before the clock starts). */
  payments: number
  /** Journal sizes compared, and the size the start time is measured at. */
  smallLedgerEntries?: number
  largeLedgerEntries?: number
  rssUsers?: number
}

interface Floor {
  floor: string
  value: number | null
  met: boolean
}

export async function benchBudget(opts: BudgetOptions) {
  const small = opts.smallLedgerEntries ?? 10_000
  const large = opts.largeLedgerEntries ?? 1_000_000
  const rssUsers = opts.rssUsers ?? 100_000

  const payments = await medianOf(
    throughputRuns,
    async () => (await benchPayments({ synchronous: 'full', concurrencies: [32], paymentsPerLevel: opts.payments })).results.c32!,
    run => run.paymentsPerSecond,
  )
  const relay = await medianOf(
    throughputRuns,
    async () => (await benchNostr({ durationMs: opts.durationMs, inFlight: [64], operations: ['GetUserInfo'] })).rows[0]!,
    run => run.roundTripsPerSecond,
  )
  const cryptoFloor = await measureCryptoFloor()

  const atSmall = await onSeeded({ users: 1_000, ledgerEntries: small }, async daemon => perPayment(daemon, opts.payments))
  const atLarge = await onSeeded({ users: 1_000, ledgerEntries: large }, async daemon => perPayment(daemon, opts.payments))
  const costRatio =
    atSmall.result.daemonCpuMsPerPayment && atLarge.result.daemonCpuMsPerPayment
      ? round(atLarge.result.daemonCpuMsPerPayment / atSmall.result.daemonCpuMsPerPayment)
      : null
  const rss = await onSeeded({ users: rssUsers, ledgerEntries: 0 }, async daemon => {
    const afterStartMb = processRssMb(daemon.process.pid)
    const load = await perPayment(daemon, Math.min(opts.payments, 2000))
    return { afterStartMb, afterLoadMb: processRssMb(daemon.process.pid), load }
  })
  const rssPeak = Math.max(rss.result.afterStartMb ?? 0, rss.result.afterLoadMb ?? 0) || null

  const floor = (text: string, value: number | null, met: (v: number) => boolean): Floor => ({
    floor: text,
    value,
    met: value !== null && met(value),
  })
  return {
    paymentsOverHttp: { concurrency: 32, synchronous: 'full', ...payments },
    relayRoundTrips: { ...relay, cryptoFloor },
    costPerPayment: {
      small: { seed: atSmall.seed, start: atSmall.start, ...atSmall.result },
      large: { seed: atLarge.seed, start: atLarge.start, ...atLarge.result },
      ratioLargeToSmall: costRatio,
    },
    startAtLargeLedger: atLarge.start,
    rssAt100kUsers: { seed: rss.seed, start: rss.start, ...rss.result },
    floors: {
      paymentsPerSecond: floor('>= 5000 internal payments/s over HTTP at c32 (the budget)', payments.paymentsPerSecond, v => v >= 5000),
      paymentsPerSecondIssue4: floor('>= 2000 internal payments/s over HTTP at c32 (the first floor)', payments.paymentsPerSecond, v => v >= 2000),
      relayRoundTripsPerSecond: floor('>= 1000 round trips/s, 64 in flight (the budget)', relay.roundTripsPerSecond, v => v >= 1000),
      relayRoundTripsPerSecondIssue5: floor('>= 500 round trips/s (the first floor)', relay.roundTripsPerSecond, v => v >= 500),
      costPerPaymentGrowth: floor(`daemon CPU per payment at ${large} rows within 20% of ${small} rows`, costRatio, v => v <= 1.2),
      startMs: floor(`spawn to HTTP ready < 1000 ms at ${large} journal rows`, atLarge.start.readyMs, v => v < 1000),
      rssMb: floor(`RSS < 200 MB with ${rssUsers} users (after start and after load)`, rssPeak, v => v < 200),
    },
  }
}

/**
 * The two throughput floors are judged on the median of three runs, each on a fresh daemon: on a shared 2-core
 * machine one window differs from the next by up to ±20%. Every run's figure is reported beside the median run.
 */
const throughputRuns = 3

async function medianOf<T>(runs: number, measure: () => Promise<T>, value: (run: T) => number): Promise<T & { runs: number[] }> {
  const results: T[] = []
  for (let i = 0; i < runs; i++) results.push(await measure())
  const sorted = [...results].sort((a, b) => value(a) - value(b))
  return { ...sorted[Math.floor(sorted.length / 2)]!, runs: results.map(value) }
}

async function perPayment(daemon: TestDaemon, count: number): Promise<PaymentBenchResult> {
  return (await benchPayments({ daemon, concurrencies: [32], paymentsPerLevel: count })).results.c32!
}

interface StartFigures {
  /** Spawn → daemon.json (HTTP listening). */
  readyMs: number
  /** CPU the daemon spent until ready: steadier than wall time on a busy machine. */
  readyCpuMs: number | null
  /** When the start-up audit gave its verdict, from the daemon's log (it runs in the background on large journals). */
  auditMs: number | null
  auditBackground: boolean | null
  rssMb: number | null
}

/** Starts a daemon on a copy of a seeded data dir, runs `measure`, stops it. */
async function onSeeded<T>(seed: { users: number; ledgerEntries: number }, measure: (daemon: TestDaemon) => Promise<T>) {
  const { file, report } = seededDatabase(seed)
  const dataDir = path.join(tempDataDir(), 'data')
  fs.mkdirSync(dataDir, { recursive: true })
  fs.copyFileSync(file, path.join(dataDir, 'relaypay.sqlite'))
  const spawned = performance.now()
  const daemon = await startDaemon({ dataDir, config: paymentBenchConfig('full'), env: { RELAYPAY_LOG_LEVEL: 'info' } })
  const readyMs = Math.round(performance.now() - spawned)
  const start: StartFigures = {
    readyMs,
    readyCpuMs: processCpuMs(daemon.process.pid),
    ...(await auditVerdict(daemon)),
    rssMb: processRssMb(daemon.process.pid),
  }
  try {
    return { seed: report, start, result: await measure(daemon) }
  } finally {
    await daemon.stop()
    fs.rmSync(path.dirname(dataDir), { recursive: true, force: true })
  }
}

/** Waits for the audit's log line and reads its duration. */
export async function auditVerdict(daemon: TestDaemon): Promise<{ auditMs: number | null; auditBackground: boolean | null }> {
  for (let waited = 0; waited < 300_000; waited += 100) {
    for (const line of daemon.logs().split('\n')) {
      if (!line.includes('ledger audit')) continue
      try {
        const entry = JSON.parse(line) as { msg?: string; durationMs?: number; background?: boolean }
        if (entry.durationMs !== undefined) return { auditMs: entry.durationMs, auditBackground: entry.background ?? null }
      } catch {
        // not a JSON line
      }
    }
    await new Promise(resolve => setTimeout(resolve, 100))
  }
  return { auditMs: null, auditBackground: null }
}

/**
 * The seeded database of the build at `root`, made with that build's own schema and seeder: a database made by a
 * newer build carries migrations (an index dropped or added) that an older one does not know, and would measure the
 * older build on the newer schema.
 */
export async function seededDatabaseOf(root: string, seed: { users: number; ledgerEntries: number }): Promise<string> {
  const own = (await import(pathToFileURL(path.join(root, 'build/bench/budget.js')).href)) as { seededDatabase: typeof seededDatabase }
  return own.seededDatabase(seed).file
}

/** A seeded database for these sizes, made once per schema and kept in the OS temp dir. */
export function seededDatabase(seed: { users: number; ledgerEntries: number }): { file: string; report: SeedReport } {
  const migrations = packageMigrationFolders().flatMap(dir => fs.readdirSync(dir)).sort().join(',')
  const key = `${seed.users}u-${seed.ledgerEntries}e-${hash(migrations)}`
  const dir = path.join(os.tmpdir(), 'relaypay-bench-seeds', key)
  const file = path.join(dir, 'relaypay.sqlite')
  const reportFile = path.join(dir, 'seed.json')
  if (fs.existsSync(reportFile)) return { file, report: { ...JSON.parse(fs.readFileSync(reportFile, 'utf8')), cached: true } }
  fs.rmSync(dir, { recursive: true, force: true })
  const report = seedLedger({ dataDir: dir, ...seed })
  fs.writeFileSync(reportFile, JSON.stringify(report))
  return { file, report }
}

function hash(text: string): string {
  let h = 0
  for (let i = 0; i < text.length; i++) h = (Math.imul(h, 31) + text.charCodeAt(i)) >>> 0
  return h.toString(36)
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000
}

export type { NostrBenchRow }
