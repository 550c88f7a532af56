// Storing events off the relaying thread. Every relay round trip stores two events (the request and its reply),
// each an SQLite transaction of several index writes: ~0.1-0.2 ms apiece on a small machine, on the thread that
// also checks, answers and broadcasts everything (and, in the offline default, runs the whole daemon). Events that
// arrive in one turn of the event loop go to a worker thread with its own connection to relay.sqlite and are
// stored there in one transaction, each in its own savepoint (a failure rolls back alone). An event's OK and its
// broadcast wait for that commit, so nothing is acknowledged or relayed before it is stored; queries on this
// thread's connection see it from then on (WAL). If the worker cannot start or fails, batches are stored on this
// thread instead, in the same order.
import { Worker } from 'node:worker_threads'
import type { Logger } from 'pino'
import type { EventStore, SaveOutcome } from './event-store.js'
import type { NostrEvent } from './nostr-event.js'
import type { StoreBatch, StoreBatchResult, StoreWorkerData } from './store-worker.js'
import { smallWorker } from '../store/worker-limits.js'

export type SaveResult = { outcome: SaveOutcome } | { error: unknown }

export interface SaveQueue {
  /** Stores the event with whatever else arrives in this turn; `done` runs after the shared commit. */
  save(event: NostrEvent, nowSeconds: number, done: (result: SaveResult) => void): void
  /** Stores what is queued and waits for what the worker holds, then stops the worker (before the store closes). */
  close(): Promise<void>
}

interface Pending {
  event: NostrEvent
  now: number
  done(result: SaveResult): void
}

/** Bounds one transaction (and how long one batch holds the database). */
const maxBatch = 512

export interface SaveQueueOptions {
  /** Store in a worker thread on its own connection to the store's file; absent: on this thread. */
  worker?: StoreWorkerData
  log?: Logger
}

export function saveQueue(store: EventStore, opts: SaveQueueOptions = {}): SaveQueue {
  let queued: Pending[] = []
  let inFlight: Pending[][] = []
  let scheduled = false
  let worker: Worker | undefined
  let idle: (() => void)[] = []

  const storeHere = (batch: Pending[]) => {
    let results: SaveResult[]
    try {
      results = store.saveBatch(batch).map(r => (r instanceof Error ? { error: r } : { outcome: r }))
    } catch (error) {
      results = batch.map(() => ({ error }))
    }
    batch.forEach((pending, i) => pending.done(results[i]!))
  }
  const settleIdle = () => {
    if (inFlight.length > 0 || queued.length > 0) return
    const waiting = idle
    idle = []
    for (const resolve of waiting) resolve()
  }
  /** Without the worker: what it held and what is queued is stored here, oldest first. */
  const fallBack = (reason: string | undefined) => {
    if (!worker) return
    if (reason) opts.log?.error({ reason }, 'the relay store worker stopped; events are stored on the relaying thread')
    const gone = worker
    worker = undefined
    const held = inFlight
    inFlight = []
    for (const batch of held) storeHere(batch)
    void gone.terminate()
    settleIdle()
  }

  if (opts.worker) {
    try {
      worker = new Worker(new URL('./store-worker.js', import.meta.url), { workerData: opts.worker, resourceLimits: smallWorker })
      worker.on('message', (results: StoreBatchResult) => {
        const batch = inFlight.shift()
        batch?.forEach((pending, i) => {
          const result = results[i]!
          pending.done('outcome' in result ? result : { error: new Error(result.error) })
        })
        if (inFlight.length === 0) worker?.unref()
        settleIdle()
      })
      worker.on('error', err => fallBack(err.message))
      worker.on('exit', code => fallBack(`exit code ${code}`))
      worker.unref()
    } catch (err) {
      worker = undefined
      opts.log?.error({ err }, 'the relay store worker did not start; events are stored on the relaying thread')
    }
  }

  const flush = () => {
    scheduled = false
    while (queued.length > 0) {
      const batch = queued.splice(0, maxBatch)
      if (!worker) {
        storeHere(batch)
        continue
      }
      inFlight.push(batch)
      worker.ref() // a batch in the worker keeps the process alive until it is answered
      worker.postMessage(batch.map(({ event, now }) => ({ event, now })) satisfies StoreBatch)
    }
    settleIdle()
  }

  return {
    save(event, now, done) {
      queued.push({ event, now, done })
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
