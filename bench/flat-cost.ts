// Issue 24, item 3: the cost of a payment as the journal grows, and memory with many users, for one or more builds
// side by side (BENCH_FLAT_ROOTS: repo roots, comma separated; default this one), run by run alternating.
//   - daemon CPU per internal payment (c32) on a seeded journal of 10k and of 1M rows, and their ratio
//   - RSS with 100k users after start and after load
// The seeded databases are budget.ts's (cached in the OS temp dir), each build's own: seeded with that build's
// schema. BENCH_PROFILE_DIR profiles each window.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { startDaemon, tempDataDir, type TestDaemon } from '../test/support/daemon.js'
import { repoRoot } from '../test/support/paths.js'
import { auditVerdict, seededDatabaseOf } from './budget.js'
import { benchPayments, paymentBenchConfig } from './payments.js'
import { processRssMb } from './process-stats.js'

export interface FlatCostOptions {
  roots: string[]
  runs: number
  payments: number
  /** Only the RSS measurement (BENCH_FLAT_ONLY=rss). */
  rssOnly?: boolean
  profileDir?: string
}

async function onSeeded<T>(root: string, seed: { users: number; ledgerEntries: number }, env: Record<string, string>, measure: (daemon: TestDaemon) => Promise<T>) {
  const file = await seededDatabaseOf(root, seed)
  const dataDir = path.join(tempDataDir(), 'data')
  fs.mkdirSync(dataDir, { recursive: true })
  fs.copyFileSync(file, path.join(dataDir, 'relaypay.sqlite'))
  const daemon = await startDaemon({
    cli: path.join(root, 'build/bin/relaypay.js'),
    dataDir,
    config: paymentBenchConfig('full'),
    env: { RELAYPAY_LOG_LEVEL: 'info', ...env },
  })
  try {
    await auditVerdict(daemon) // payments wait for the start-up audit on a large journal
    return await measure(daemon)
  } finally {
    await daemon.stop()
    fs.rmSync(path.dirname(dataDir), { recursive: true, force: true })
  }
}

export async function benchFlatCost(opts: FlatCostOptions) {
  const runs: Record<string, unknown>[] = []
  const profiling = (tag: string): Record<string, string> =>
    opts.profileDir ? { NODE_OPTIONS: `--import ${path.join(path.dirname(new URL(import.meta.url).pathname), 'cpu-profile-preload.js')}`, BENCH_PROFILE_DIR: path.join(opts.profileDir, tag) } : {}
  for (let n = 0; n < opts.runs; n++) {
    for (const root of opts.roots) {
      const tag = `${path.basename(root)}-${n}`
      if (opts.profileDir) for (const size of ['small', 'large']) fs.mkdirSync(path.join(opts.profileDir, tag, size), { recursive: true })
      const perPayment = (size: string) => async (daemon: TestDaemon) =>
        (await benchPayments({ daemon, concurrencies: [32], paymentsPerLevel: opts.payments, ...(opts.profileDir ? { profileDir: path.join(opts.profileDir, tag, size) } : {}) })).results.c32!
      const skipped = { daemonCpuMsPerPayment: null, paymentsPerSecond: null }
      const small = opts.rssOnly ? skipped : await onSeeded(root, { users: 1_000, ledgerEntries: 10_000 }, withDir(profiling(tag), 'small'), perPayment('small'))
      const large = opts.rssOnly ? skipped : await onSeeded(root, { users: 1_000, ledgerEntries: 1_000_000 }, withDir(profiling(tag), 'large'), perPayment('large'))
      const rss = await onSeeded(root, { users: 100_000, ledgerEntries: 0 }, {}, async daemon => {
        const afterStartMb = processRssMb(daemon.process.pid)
        const load = await benchPayments({ daemon, concurrencies: [32], paymentsPerLevel: Math.min(opts.payments, 2000) })
        return { afterStartMb, afterLoadMb: processRssMb(daemon.process.pid), paymentsPerSecond: load.results.c32!.paymentsPerSecond }
      })
      const run = {
        root,
        loadAverage: os.loadavg().map(x => Math.round(x * 100) / 100),
        smallCpuMsPerPayment: small.daemonCpuMsPerPayment,
        largeCpuMsPerPayment: large.daemonCpuMsPerPayment,
        ratio: small.daemonCpuMsPerPayment && large.daemonCpuMsPerPayment ? Math.round((large.daemonCpuMsPerPayment / small.daemonCpuMsPerPayment) * 1000) / 1000 : null,
        smallPaymentsPerSecond: small.paymentsPerSecond,
        largePaymentsPerSecond: large.paymentsPerSecond,
        rssAt100kUsers: rss,
      }
      process.stderr.write(`flat-cost ${JSON.stringify(run)}\n`)
      runs.push(run)
    }
  }
  return { runs }
}

function withDir(env: Record<string, string>, size: string): Record<string, string> {
  return env.BENCH_PROFILE_DIR ? { ...env, BENCH_PROFILE_DIR: path.join(env.BENCH_PROFILE_DIR, size) } : env
}

export function flatCostOptionsFromEnv(): FlatCostOptions {
  return {
    roots: process.env.BENCH_FLAT_ROOTS?.split(',').filter(Boolean) ?? [repoRoot],
    runs: Number(process.env.BENCH_FLAT_RUNS ?? 1),
    payments: Number(process.env.BENCH_PAYMENTS ?? 3000),
    rssOnly: process.env.BENCH_FLAT_ONLY === 'rss',
    ...(process.env.BENCH_PROFILE_DIR ? { profileDir: process.env.BENCH_PROFILE_DIR } : {}),
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.stdout.write(JSON.stringify(await benchFlatCost(flatCostOptionsFromEnv()), null, 2) + '\n')
}
