// Preloaded into a daemon under test (`NODE_OPTIONS=--import <this file>`, BENCH_LOOP_DELAY_FILE=<file>): the main
// thread's event-loop delay, measured by node's own histogram (perf_hooks.monitorEventLoopDelay, 10 ms resolution),
// written to the file as JSON every BENCH_LOOP_DELAY_MS (default 10 s) and then reset, so each write covers one
// interval: {at, p50Ms, p99Ms, maxMs}; beside it the main thread's memory at that moment (V8 heap used, external and
// array buffers, in MB), to tell a heap that grows from memory held outside it (SQLite's page caches, buffers).
// The heap in use at a given moment is anywhere in the collection cycle, from what is alive to the top of the
// room V8 lets it grow into: `heapAfterFullGcMb` is the heap in use as the last full collection was reported (a
// performance observer, a moment after it ends), which is about what is alive, and what grows if something leaks.
import fs from 'node:fs'
import { PerformanceObserver, monitorEventLoopDelay } from 'node:perf_hooks'
import { isMainThread } from 'node:worker_threads'
import { isFullCollection } from '../src/cli/heap-compaction.js'

const file = process.env.BENCH_LOOP_DELAY_FILE
if (file && isMainThread) {
  const histogram = monitorEventLoopDelay({ resolution: 10 })
  histogram.enable()
  const ms = (ns: number) => Math.round(ns / 1e4) / 100
  const mb = (bytes: number) => Math.round(bytes / 1024 / 102.4) / 10
  let heapAfterFullGcMb: number | null = null
  new PerformanceObserver(list => {
    if (list.getEntries().some(isFullCollection)) heapAfterFullGcMb = mb(process.memoryUsage().heapUsed)
  }).observe({ entryTypes: ['gc'] })
  setInterval(() => {
    const memory = process.memoryUsage()
    fs.writeFileSync(
      file,
      JSON.stringify({
        at: Date.now(),
        p50Ms: ms(histogram.percentile(50)),
        p99Ms: ms(histogram.percentile(99)),
        maxMs: ms(histogram.max),
        heapUsedMb: mb(memory.heapUsed),
        heapAfterFullGcMb,
        externalMb: mb(memory.external),
        arrayBuffersMb: mb(memory.arrayBuffers),
      }),
    )
    histogram.reset()
  }, Number(process.env.BENCH_LOOP_DELAY_MS ?? 10_000)).unref()
}
