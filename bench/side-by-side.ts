// Builds side by side (BENCH_ROOTS: repo roots, comma separated; default this one): for "no regression" and
// "faster" claims that must compare an old build with a new one under the same load. Run by run, each root's daemon
// in turn on a fresh data dir (the order reversed every other run, so no build always gets the warmer or the
// quieter slot), measures
//   - internal payments per second over HTTP at c=32 (bench/payments.ts: invoices made before the clock starts),
//   - Nostr GetUserInfo round trips per second through the embedded relay at 8 and 64 in flight (bench/nostr.ts;
//     BENCH_SIDE_PARTS=payments leaves it out),
// with the daemon's CPU per operation, which depends far less on what else the machine runs than the rates do, and
// the machine's 1-minute load average when the row was taken. BENCH_SIDE_RUNS sets the runs (default 3). Each root
// must be built (`npm run build` in it).
import os from 'node:os'
import path from 'node:path'
import { startDaemon } from '../test/support/daemon.js'
import { repoRoot } from '../test/support/paths.js'
import { benchPayments, paymentBenchConfig } from './payments.js'
import { benchNostr, nostrBenchConfig } from './nostr.js'

export interface SideBySideRow {
  root: string
  run: number
  loadAverage: number
  paymentsPerSecondC32: number
  paymentP99MsC32: number
  daemonCpuMsPerPayment: number | null
  roundTripsPerSecond?: Record<string, number>
  daemonCpuMsPerRoundTrip?: Record<string, number | null>
}

export interface SideBySideOptions {
  roots: string[]
  runs: number
  durationMs: number
  paymentsPerLevel: number
  /** Measure the Nostr round trips as well (default true). */
  nostr?: boolean
}

export async function benchSideBySide(opts: SideBySideOptions) {
  const rows: SideBySideRow[] = []
  for (let run = 1; run <= opts.runs; run++) {
    const order = run % 2 === 1 ? opts.roots : [...opts.roots].reverse()
    for (const root of order) {
      const cli = path.join(root, 'build/bin/relaypay.js')
      const env = { RELAYPAY_LOG_LEVEL: 'warn' }
      const payDaemon = await startDaemon({ cli, config: paymentBenchConfig('full'), env })
      const payments = await benchPayments({ daemon: payDaemon, concurrencies: [32], paymentsPerLevel: opts.paymentsPerLevel }).finally(() => payDaemon.stop())
      const c32 = payments.results.c32!
      const row: SideBySideRow = {
        root,
        run,
        loadAverage: Math.round(os.loadavg()[0]! * 100) / 100,
        paymentsPerSecondC32: c32.paymentsPerSecond,
        paymentP99MsC32: c32.p99Ms,
        daemonCpuMsPerPayment: c32.daemonCpuMsPerPayment,
      }
      if (opts.nostr !== false) {
        const nostrDaemon = await startDaemon({ cli, config: nostrBenchConfig, env })
        const nostr = await benchNostr({ daemon: nostrDaemon, durationMs: opts.durationMs, inFlight: [8, 64], operations: ['GetUserInfo'] }).finally(() => nostrDaemon.stop())
        row.roundTripsPerSecond = Object.fromEntries(nostr.rows.map(r => [`inFlight${r.inFlight}`, r.roundTripsPerSecond]))
        row.daemonCpuMsPerRoundTrip = Object.fromEntries(nostr.rows.map(r => [`inFlight${r.inFlight}`, r.daemonCpuMsPerRoundTrip]))
      }
      rows.push(row)
      process.stderr.write(`side by side: run ${run} ${root}: ${JSON.stringify(row)}\n`)
    }
  }
  return { roots: opts.roots, runs: opts.runs, rows, summary: summarize(opts.roots, rows) }
}

/** Per root: the median of its runs' payment rate and CPU per payment, and each as a ratio to the first root's. */
function summarize(roots: string[], rows: SideBySideRow[]) {
  const median = (values: number[]) => {
    const sorted = values.filter(Number.isFinite).sort((a, b) => a - b)
    if (sorted.length === 0) return null
    const mid = sorted.length >> 1
    return Math.round((sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2) * 1000) / 1000
  }
  const of = (root: string) => {
    const mine = rows.filter(row => row.root === root)
    return {
      medianPaymentsPerSecondC32: median(mine.map(row => row.paymentsPerSecondC32)),
      medianDaemonCpuMsPerPayment: median(mine.map(row => row.daemonCpuMsPerPayment ?? NaN)),
    }
  }
  const base = of(roots[0]!)
  const ratio = (a: number | null, b: number | null) => (a === null || b === null || b === 0 ? null : Math.round((a / b) * 1000) / 1000)
  return Object.fromEntries(
    roots.map(root => {
      const mine = of(root)
      return [root, {
        ...mine,
        paymentsPerSecondToFirst: ratio(mine.medianPaymentsPerSecondC32, base.medianPaymentsPerSecondC32),
        cpuPerPaymentToFirst: ratio(mine.medianDaemonCpuMsPerPayment, base.medianDaemonCpuMsPerPayment),
      }]
    }),
  )
}

export function sideBySideOptionsFromEnv(env: NodeJS.ProcessEnv, durationMs: number, paymentsPerLevel: number): SideBySideOptions {
  return {
    roots: env.BENCH_ROOTS?.split(',').filter(Boolean) ?? [repoRoot],
    runs: Number(env.BENCH_SIDE_RUNS ?? 3),
    durationMs,
    paymentsPerLevel,
    nostr: (env.BENCH_SIDE_PARTS ?? 'payments,nostr').split(',').includes('nostr'),
  }
}
