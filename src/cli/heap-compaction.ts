// One compacting collection of the old generation a minute, riding on a full collection V8 makes anyway.
//
// A full collection frees the garbage but leaves the pages it lived on committed, part-used, unless V8 picks them
// for compaction, and under a steady load it picks few. Over an hour of mixed traffic the main thread's heap stayed
// at 35 MB alive while its committed size crept from 57 to 73 MB, and the process from 190 to 210 MB
// (docs/observability.md, "Memory"). V8's `--compact-on-every-full-gc` moves the live objects off every page and
// gives the emptied ones back, but set for good it made every collection under a heavy payment load a longer pause
// (the invoices' p99 from 68–86 to 121–147 ms). So it is set for one full collection at a time: armed once a
// minute, cleared as soon as the main thread has made a full collection. Under a heavy load (a full collection
// every few seconds) one in a dozen or more compacts; under a light one, most do, and those are seconds apart.
// The flag is the process's: a worker's full collection in the same moment compacts too, which is no harm.
import { PerformanceObserver, constants, type PerformanceEntry } from 'node:perf_hooks'
import v8 from 'node:v8'

const defaultIntervalMs = 60_000

/** Whether a `gc` performance entry is a full (mark-compact) collection; Node 20's typings have no `detail`. */
export function isFullCollection(entry: PerformanceEntry): boolean {
  return (entry as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR
}

/** Starts the schedule; the returned function stops it (and clears the flag if it is armed). */
export function compactOncePerInterval(intervalMs = defaultIntervalMs): () => void {
  let observer: PerformanceObserver | undefined
  const disarm = () => {
    observer?.disconnect()
    observer = undefined
    v8.setFlagsFromString('--no-compact-on-every-full-gc')
  }
  const arm = () => {
    if (observer) return
    observer = new PerformanceObserver(list => {
      if (list.getEntries().some(isFullCollection)) disarm()
    })
    observer.observe({ entryTypes: ['gc'] })
    v8.setFlagsFromString('--compact-on-every-full-gc')
  }
  const timer = setInterval(arm, intervalMs)
  timer.unref()
  return () => {
    clearInterval(timer)
    if (observer) disarm()
  }
}
