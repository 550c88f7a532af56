// A helper thread that takes jobs in batches, shared by the relay's event store (src/relay/save-queue.ts) and the
// signature thread (src/nostr-crypto/schnorr-thread.ts). Jobs given in one turn of the event loop travel in one
// message; the worker answers each message with one result per job, in order, and each job's `done` is called in
// the order the jobs were given. If the worker cannot start or fails, what it held and everything after runs on
// this thread through `runHere` instead, still batched per turn and in the same order: nothing is lost or reordered.
import { Worker } from 'node:worker_threads'
import type { Logger } from 'pino'
import { smallWorker } from './worker-limits.js'

export interface BatchWorker<J, R> {
  /** Runs the job with the others given in this turn; `done` gets its result. */
  run(job: J, done: (result: R) => void): void
  /** Sends what is queued, waits for every batch the worker holds, then stops it; later jobs run on this thread. */
  close(): Promise<void>
}

export interface BatchWorkerOptions<J, R> {
  /** The worker's module: it answers each message (J[]) with R[]. Absent: every batch runs on this thread. */
  module?: URL
  workerData?: unknown
  /** The same work on this thread, one result per job in order. Must not throw. */
  runHere(jobs: J[]): R[]
  /** Bounds one message (and how long the worker is busy with it). */
  maxBatch: number
  /** Names the worker in the log line that says it failed. */
  name: string
  log?: Logger
}

interface Pending<J, R> {
  job: J
  done(result: R): void
}

export function startBatchWorker<J, R>(opts: BatchWorkerOptions<J, R>): BatchWorker<J, R> {
  let worker: Worker | undefined
  /** Batches the worker holds, oldest first; then jobs not yet sent. */
  let inFlight: Pending<J, R>[][] = []
  let queued: Pending<J, R>[] = []
  let scheduled = false
  let idle: (() => void)[] = []

  const deliver = (batch: Pending<J, R>[], results: R[]) => batch.forEach((pending, i) => pending.done(results[i]!))
  const runBatchHere = (batch: Pending<J, R>[]) => deliver(batch, opts.runHere(batch.map(pending => pending.job)))
  const settleIdle = () => {
    if (inFlight.length > 0) return
    const waiting = idle
    idle = []
    for (const resolve of waiting) resolve()
  }
  /** Without the worker: the batches it held run here, oldest first. */
  const fallBack = (reason: string | undefined) => {
    if (!worker) return
    if (reason) opts.log?.error({ reason }, `${opts.name} stopped; its work runs on the main thread`)
    const gone = worker
    worker = undefined
    const held = inFlight
    inFlight = []
    for (const batch of held) runBatchHere(batch)
    void gone.terminate()
    settleIdle()
  }

  if (opts.module) {
    try {
      worker = new Worker(opts.module, { workerData: opts.workerData, resourceLimits: smallWorker })
      worker.on('message', (results: R[]) => {
        const batch = inFlight.shift()
        if (batch) deliver(batch, results)
        // Idle, the worker must not keep a stopping process alive.
        if (inFlight.length === 0) worker?.unref()
        settleIdle()
      })
      worker.on('error', err => fallBack(err.message))
      worker.on('exit', code => fallBack(`exit code ${code}`))
      worker.unref()
    } catch (err) {
      worker = undefined
      opts.log?.error({ err }, `${opts.name} did not start; its work runs on the main thread`)
    }
  }

  const flush = () => {
    scheduled = false
    while (queued.length > 0) {
      const batch = queued.splice(0, opts.maxBatch)
      if (!worker) {
        runBatchHere(batch)
        continue
      }
      inFlight.push(batch)
      worker.ref() // a batch in the worker keeps the process alive until it is answered
      worker.postMessage(batch.map(pending => pending.job))
    }
  }

  return {
    run(job, done) {
      queued.push({ job, done })
      if (scheduled) return
      scheduled = true
      setImmediate(flush)
    },
    async close() {
      flush()
      if (inFlight.length > 0) await new Promise<void>(resolve => idle.push(resolve))
      fallBack(undefined)
    },
  }
}
