// Preloaded into a daemon under test (`NODE_OPTIONS=--import <this file>`, BENCH_LOOP_DELAY_FILE=<file>): the main
// thread's event-loop delay, measured by node's own histogram (perf_hooks.monitorEventLoopDelay, 10 ms resolution),
// written to the file as JSON every BENCH_LOOP_DELAY_MS (default 10 s) and then reset, so each write covers one
// interval: {at, p50Ms, p99Ms, maxMs}; beside it the main thread's memory at that moment (V8 heap used, external and
// array buffers, in MB), to tell a heap that grows from memory held outside it (SQLite's page caches, buffers).
import fs from 'node:fs'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { isMainThread } from 'node:worker_threads'

const file = process.env.BENCH_LOOP_DELAY_FILE
if (file && isMainThread) {
  const histogram = monitorEventLoopDelay({ resolution: 10 })
  histogram.enable()
  const ms = (ns: number) => Math.round(ns / 1e4) / 100
  setInterval(() => {
    const memory = process.memoryUsage()
    const mb = (bytes: number) => Math.round(bytes / 1024 / 102.4) / 10
    fs.writeFileSync(
      file,
      JSON.stringify({
        at: Date.now(),
        p50Ms: ms(histogram.percentile(50)),
        p99Ms: ms(histogram.percentile(99)),
        maxMs: ms(histogram.max),
        heapUsedMb: mb(memory.heapUsed),
        externalMb: mb(memory.external),
        arrayBuffersMb: mb(memory.arrayBuffers),
      }),
    )
    histogram.reset()
  }, Number(process.env.BENCH_LOOP_DELAY_MS ?? 10_000)).unref()
}
