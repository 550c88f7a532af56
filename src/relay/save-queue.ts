// Storing events off the relaying thread. Every relay round trip stores two events (the request and its reply),
// each an SQLite transaction of several index writes: ~0.1-0.2 ms apiece on a small machine, on the thread that
// also checks, answers and broadcasts everything (and, in the offline default, runs the whole daemon). Events that
// arrive in one turn of the event loop go to a worker thread (src/threads/batch-worker.ts) with its own connection
// to relay.sqlite and are stored there in one transaction, each in its own savepoint (a failure rolls back alone).
// An event's OK and its broadcast wait for that commit, so nothing is acknowledged or relayed before it is stored;
// queries on this thread's connection see it from then on (WAL). If the worker cannot start or fails, batches are
// stored on this thread instead, in the same order.
import type { Logger } from 'pino'
import { startBatchWorker } from '../threads/batch-worker.js'
import type { EventStore, SaveOutcome } from './event-store.js'
import type { NostrEvent } from './nostr-event.js'
import type { StoreWorkerData } from './store-worker.js'

export type SaveResult = { outcome: SaveOutcome } | { error: unknown }

export interface SaveQueue {
  /** Stores the event with whatever else arrives in this turn; `done` runs after the shared commit. */
  save(event: NostrEvent, nowSeconds: number, done: (result: SaveResult) => void): void
  /** Stores what is queued and waits for what the worker holds, then stops the worker (before the store closes). */
  close(): Promise<void>
}

export type StoreJob = { event: NostrEvent; now: number }
/** One per event: its outcome, or the message of the error that rolled it (or the whole batch) back. */
export type StoreJobResult = { outcome: SaveOutcome } | { error: string }

/** Stores a batch in one transaction (on whichever thread holds `store`); never throws. */
export function storeBatch(store: EventStore, batch: StoreJob[]): StoreJobResult[] {
  try {
    return store.saveBatch(batch).map(r => (r instanceof Error ? { error: r.message } : { outcome: r }))
  } catch (err) {
    return batch.map(() => ({ error: (err as Error).message }))
  }
}

/** Bounds one transaction (and how long one batch holds the database). */
const maxBatch = 512

export interface SaveQueueOptions {
  /** Store in a worker thread on its own connection to the store's file; absent: on this thread. */
  worker?: StoreWorkerData
  log?: Logger
}

export function saveQueue(store: EventStore, opts: SaveQueueOptions = {}): SaveQueue {
  const batches = startBatchWorker<StoreJob, StoreJobResult>({
    ...(opts.worker ? { module: new URL('./store-worker.js', import.meta.url), workerData: opts.worker } : {}),
    runHere: batch => storeBatch(store, batch),
    maxBatch,
    name: 'the relay store worker',
    ...(opts.log ? { log: opts.log } : {}),
  })
  return {
    save(event, now, done) {
      batches.run({ event, now }, result => done('outcome' in result ? result : { error: new Error(result.error) }))
    },
    close: () => batches.close(),
  }
}
