// Measured windows of bench/payments-regtest.ts: a closed loop of workers (each starts its next operation when the
// last one ended) for a time or over a list, and what the window cost each process: the daemon, this process (the
// load generator, and in the bare client's windows the client itself) and each LND node, per operation.
import os from 'node:os'
import { cpuWindow, processCpuMs } from './process-stats.js'

export interface Loop {
  /** Each successful operation's time, start to end. */
  latenciesMs: number[]
  errors: number
  /** What the first failure said, to tell a slow path from a broken one. */
  firstError?: string
  elapsedMs: number
}

/**
 * `concurrency` workers run `op` until `durationMs` has passed, or until each of `count` indexes was taken once.
 * `op` returns false (or throws) for a failure, which counts as an error and not as an operation.
 */
export async function closedLoop(
  shape: { concurrency: number } & ({ durationMs: number } | { count: number }),
  op: (worker: number, index: number) => Promise<boolean>,
): Promise<Loop> {
  const latenciesMs: number[] = []
  let errors = 0
  let firstError: string | undefined
  let next = 0
  const started = performance.now()
  const more = 'durationMs' in shape ? () => performance.now() < started + shape.durationMs : () => next < shape.count
  await Promise.all(
    Array.from({ length: shape.concurrency }, async (_, worker) => {
      while (more()) {
        const index = next++
        const t0 = performance.now()
        const ok = await op(worker, index).catch((err: unknown) => {
          firstError ??= err instanceof Error ? err.message : String(err)
          return false
        })
        if (ok) latenciesMs.push(performance.now() - t0)
        else {
          errors++
          firstError ??= 'the operation answered with a failure'
        }
      }
    }),
  )
  return { latenciesMs, errors, ...(firstError ? { firstError } : {}), elapsedMs: performance.now() - started }
}

/** Process ids whose CPU a window reads: the daemon's and each LND node's. */
export interface WatchedPids {
  daemon: number | undefined
  lnd: Record<string, number>
}

export interface WindowCosts {
  daemonCpuMsPerOp: number | null
  benchCpuMsPerOp: number
  lndCpuMsPerOp: Record<string, number | null>
}

/** CPU of every watched process from now until end(operations). */
export function costWindow(pids: WatchedPids) {
  const own = cpuWindow(pids.daemon)
  const lndBefore = Object.entries(pids.lnd).map(([name, pid]) => [name, pid, processCpuMs(pid)] as const)
  return {
    end(operations: number): WindowCosts {
      const { daemonCpuMsPerOp, clientCpuMsPerOp } = own.end(operations)
      const lndCpuMsPerOp = Object.fromEntries(
        lndBefore.map(([name, pid, before]) => {
          const after = processCpuMs(pid)
          return [name, before === null || after === null ? null : round((after - before) / Math.max(1, operations))]
        }),
      )
      return { daemonCpuMsPerOp, benchCpuMsPerOp: clientCpuMsPerOp, lndCpuMsPerOp }
    },
  }
}

/** One side's figures in one window; `latenciesMs` is kept for pooling the rounds and left out of the report. */
export interface WindowFigures extends WindowCosts {
  ops: number
  errors: number
  firstError?: string
  seconds: number
  opsPerSecond: number
  p50Ms: number
  p99Ms: number
  latenciesMs: number[]
  profile?: string
}

export function figures(loop: Loop, costs: WindowCosts, profile?: string): WindowFigures {
  const ops = loop.latenciesMs.length
  return {
    ops,
    errors: loop.errors,
    ...(loop.firstError ? { firstError: loop.firstError } : {}),
    seconds: round(loop.elapsedMs / 1000),
    opsPerSecond: round((ops / loop.elapsedMs) * 1000),
    ...percentiles(loop.latenciesMs),
    ...costs,
    latenciesMs: loop.latenciesMs,
    ...(profile ? { profile } : {}),
  }
}

/** Several windows of one side as one: operations over time, latencies pooled, CPU weighted by operations. */
export function pooled(windows: WindowFigures[]) {
  const ops = windows.reduce((sum, w) => sum + w.ops, 0)
  const seconds = windows.reduce((sum, w) => sum + w.seconds, 0)
  const weighted = (cpu: (w: WindowFigures) => number | null) =>
    windows.some(w => cpu(w) === null) ? null : round(windows.reduce((sum, w) => sum + cpu(w)! * w.ops, 0) / Math.max(1, ops))
  const lndNames = Object.keys(windows[0]?.lndCpuMsPerOp ?? {})
  return {
    ops,
    errors: windows.reduce((sum, w) => sum + w.errors, 0),
    opsPerSecond: round(ops / Math.max(seconds, 1e-9)),
    ...percentiles(windows.flatMap(w => w.latenciesMs)),
    daemonCpuMsPerOp: weighted(w => w.daemonCpuMsPerOp),
    benchCpuMsPerOp: weighted(w => w.benchCpuMsPerOp),
    lndCpuMsPerOp: Object.fromEntries(lndNames.map(name => [name, weighted(w => w.lndCpuMsPerOp[name] ?? null)])),
  }
}

export function percentiles(values: number[]): { p50Ms: number; p99Ms: number } {
  const sorted = [...values].sort((a, b) => a - b)
  const at = (q: number) => round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0)
  return { p50Ms: at(0.5), p99Ms: at(0.99) }
}

export const loadAverage = () => os.loadavg().map(round)

export function round(value: number): number {
  return Math.round(value * 100) / 100
}
