// Builds side by side (BENCH_ROOTS: repo roots, comma separated; default this one): for "no regression" and
// "faster" claims that must compare an old build with a new one under the same load. Run by run, each root's daemon
// in turn on a fresh data dir, measures
//   - internal payments per second over HTTP at c=32 (bench/payments.ts: invoices made before the clock starts),
//   - Nostr GetUserInfo round trips per second through the embedded relay at 8 and 64 in flight (bench/nostr.ts),
// with the daemon's CPU per operation, which depends far less on what else the machine runs than the rates do.
// BENCH_SIDE_RUNS sets the runs (default 3). Each root must be built (`npm run build` in it).
import path from 'node:path'
import { startDaemon } from '../test/support/daemon.js'
import { repoRoot } from '../test/support/paths.js'
import { benchPayments, paymentBenchConfig } from './payments.js'
import { benchNostr, nostrBenchConfig } from './nostr.js'

export interface SideBySideRow {
  root: string
  run: number
  paymentsPerSecondC32: number
  paymentP99MsC32: number
  daemonCpuMsPerPayment: number | null
  roundTripsPerSecond: Record<string, number>
  daemonCpuMsPerRoundTrip: Record<string, number | null>
}

export async function benchSideBySide(opts: { roots: string[]; runs: number; durationMs: number; paymentsPerLevel: number }) {
  const rows: SideBySideRow[] = []
  for (let run = 1; run <= opts.runs; run++) {
    for (const root of opts.roots) {
      const cli = path.join(root, 'build/bin/relaypay.js')
      const env = { RELAYPAY_LOG_LEVEL: 'warn' }
      const payDaemon = await startDaemon({ cli, config: paymentBenchConfig('full'), env })
      const payments = await benchPayments({ daemon: payDaemon, concurrencies: [32], paymentsPerLevel: opts.paymentsPerLevel }).finally(() => payDaemon.stop())
      const nostrDaemon = await startDaemon({ cli, config: nostrBenchConfig, env })
      const nostr = await benchNostr({ daemon: nostrDaemon, durationMs: opts.durationMs, inFlight: [8, 64], operations: ['GetUserInfo'] }).finally(() => nostrDaemon.stop())
      const c32 = payments.results.c32!
      rows.push({
        root,
        run,
        paymentsPerSecondC32: c32.paymentsPerSecond,
        paymentP99MsC32: c32.p99Ms,
        daemonCpuMsPerPayment: c32.daemonCpuMsPerPayment,
        roundTripsPerSecond: Object.fromEntries(nostr.rows.map(row => [`inFlight${row.inFlight}`, row.roundTripsPerSecond])),
        daemonCpuMsPerRoundTrip: Object.fromEntries(nostr.rows.map(row => [`inFlight${row.inFlight}`, row.daemonCpuMsPerRoundTrip])),
      })
      process.stderr.write(`side by side: run ${run} ${root}: ${JSON.stringify(rows.at(-1))}\n`)
    }
  }
  return { roots: opts.roots, runs: opts.runs, rows }
}

export function sideBySideOptionsFromEnv(env: NodeJS.ProcessEnv, durationMs: number, paymentsPerLevel: number) {
  return {
    roots: env.BENCH_ROOTS?.split(',').filter(Boolean) ?? [repoRoot],
    runs: Number(env.BENCH_SIDE_RUNS ?? 3),
    durationMs,
    paymentsPerLevel,
  }
}
