// The cost of a payment as the journal grows, and memory with many users, for one or more builds
// side by side (BENCH_FLAT_ROOTS: repo roots, comma separated; default this one), run by run alternating.
//   - daemon CPU per internal payment (c32) on a seeded journal of 10k and of 1M rows, and their ratio
//   - RSS with 100k users after start and after load
// The seeded databases are budget.ts's (cached in the OS temp dir), each build's own: seeded with that build's
// schema. BENCH_PROFILE_DIR profiles each window. BENCH_FLAT_STORE=postgres puts the books on PostgreSQL instead
// (bench/postgres-server.ts's server, or RELAYPAY_TEST_POSTGRES_URL's): the seed is moved there with the build's own
// `relaypay store copy`, the ratio is of the daemon's and the server's CPU together, and RSS is not measured.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { startDaemon, tempDataDir, type TestDaemon } from '../test/support/daemon.js'
import { repoRoot } from '../test/support/paths.js'
import { auditVerdict, seededDatabaseOf } from './budget.js'
import { benchPayments, paymentBenchConfig } from './payments.js'
import { processRssMb } from './process-stats.js'
import { onBenchPostgres, type BenchPostgres } from './postgres-server.js'

export interface FlatCostOptions {
  roots: string[]
  runs: number
  payments: number
  /** Only the RSS measurement (BENCH_FLAT_ONLY=rss). */
  rssOnly?: boolean
  /** The books' engine (BENCH_FLAT_STORE; default sqlite). */
  store?: 'sqlite' | 'postgres'
  profileDir?: string
}

async function onSeeded<T>(
  root: string,
  seed: { users: number; ledgerEntries: number },
  env: Record<string, string>,
  measure: (daemon: TestDaemon) => Promise<T>,
  postgres?: BenchPostgres,
) {
  const file = await seededDatabaseOf(root, seed)
  const dataDir = path.join(tempDataDir(), 'data')
  fs.mkdirSync(dataDir, { recursive: true })
  fs.copyFileSync(file, path.join(dataDir, 'relaypay.sqlite'))
  const cli = path.join(root, 'build/bin/relaypay.js')
  // The copy proves itself (row counts and the audit on both sides) and exits 0 only then.
  if (postgres) await promisify(execFile)(process.execPath, [cli, 'store', 'copy', '--from', dataDir, '--to', postgres.url, '--json'], { maxBuffer: 1 << 24 })
  const daemon = await startDaemon({
    cli,
    dataDir,
    config: paymentBenchConfig('full', postgres?.url),
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
      const perPayment = (size: string) => async (daemon: TestDaemon, postgres?: BenchPostgres) => {
        const c32 = (await benchPayments({ daemon, concurrencies: [32], paymentsPerLevel: opts.payments, ...(postgres ? { postgres } : {}), ...(opts.profileDir ? { profileDir: path.join(opts.profileDir, tag, size) } : {}) })).results.c32!
        // On PostgreSQL a payment's cost is the daemon's and the server's together.
        return { ...c32, cpuMsPerPayment: postgres ? (c32.daemonAndPostgresCpuMsPerPayment ?? null) : c32.daemonCpuMsPerPayment }
      }
      const seeded = async (seed: { users: number; ledgerEntries: number }, size: string) => {
        if (opts.store !== 'postgres') return onSeeded(root, seed, withDir(profiling(tag), size), daemon => perPayment(size)(daemon))
        const result = await onBenchPostgres(postgres => onSeeded(root, seed, withDir(profiling(tag), size), daemon => perPayment(size)(daemon, postgres), postgres))
        if ('skipped' in result) throw new Error(`flat cost on PostgreSQL: ${result.skipped}`)
        return result
      }
      const skipped = { cpuMsPerPayment: null, daemonCpuMsPerPayment: null, paymentsPerSecond: null }
      const small = opts.rssOnly ? skipped : await seeded({ users: 1_000, ledgerEntries: 10_000 }, 'small')
      const large = opts.rssOnly ? skipped : await seeded({ users: 1_000, ledgerEntries: 1_000_000 }, 'large')
      const rss =
        opts.store === 'postgres'
          ? null
          : await onSeeded(root, { users: 100_000, ledgerEntries: 0 }, {}, async daemon => {
              const afterStartMb = processRssMb(daemon.process.pid)
              const load = await benchPayments({ daemon, concurrencies: [32], paymentsPerLevel: Math.min(opts.payments, 2000) })
              return { afterStartMb, afterLoadMb: processRssMb(daemon.process.pid), paymentsPerSecond: load.results.c32!.paymentsPerSecond }
            })
      const run = {
        root,
        store: opts.store ?? 'sqlite',
        loadAverage: os.loadavg().map(x => Math.round(x * 100) / 100),
        smallCpuMsPerPayment: small.cpuMsPerPayment,
        largeCpuMsPerPayment: large.cpuMsPerPayment,
        ratio: small.cpuMsPerPayment && large.cpuMsPerPayment ? Math.round((large.cpuMsPerPayment / small.cpuMsPerPayment) * 1000) / 1000 : null,
        ...(opts.store === 'postgres' ? { smallDaemonCpuMsPerPayment: small.daemonCpuMsPerPayment, largeDaemonCpuMsPerPayment: large.daemonCpuMsPerPayment } : {}),
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
    store: process.env.BENCH_FLAT_STORE === 'postgres' ? 'postgres' : 'sqlite',
    ...(process.env.BENCH_PROFILE_DIR ? { profileDir: process.env.BENCH_PROFILE_DIR } : {}),
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.stdout.write(JSON.stringify(await benchFlatCost(flatCostOptionsFromEnv()), null, 2) + '\n')
}
