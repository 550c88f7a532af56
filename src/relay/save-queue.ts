// Storing events in batches. An event is an SQLite transaction of several index writes: ~0.1-0.2 ms apiece on a
// small machine. (A round trip's request and reply, ephemeral, are written only when their addressee did not hear
// them live: recent-events.ts keeps them in memory.) Events that arrive in one turn of the
// relay thread's event loop are stored in one transaction, each in its own savepoint (a failure rolls back alone),
// through src/threads/batch-worker.ts run on this thread: the relay has a thread of its own
// (src/relay/relay-thread.ts), so a second one for the store would only add a hop.
// A stored kind's OK and its broadcast wait for that commit, so nothing is acknowledged or relayed before it is
// stored; an ephemeral event is relayed first, its OK waits for the commit.
import type { Logger } from 'pino'
import { startBatchWorker } from '../threads/index.js'
import type { EventStore, SaveOutcome, SaveSource } from './event-store.js'
import type { NostrEvent } from './nostr-event.js'

export type SaveResult = { outcome: SaveOutcome } | { error: unknown }

export interface SaveQueue {
  /** Stores the event with whatever else arrives in this turn; `done` runs after the shared commit. */
  save(event: NostrEvent, nowSeconds: number, done: (result: SaveResult) => void, source?: SaveSource): void
  /** Stores what is queued (before the store closes). */
  close(): Promise<void>
}

export type StoreJob = { event: NostrEvent; now: number; source?: SaveSource }
/** One per event: its outcome, or the message of the error that rolled it (or the whole batch) back. */
export type StoreJobResult = { outcome: SaveOutcome } | { error: string }

/** Stores a batch in one transaction; never throws. */
export function storeBatch(store: EventStore, batch: StoreJob[]): StoreJobResult[] {
  try {
    return store.saveBatch(batch).map(r => (r instanceof Error ? { error: r.message } : { outcome: r }))
  } catch (err) {
    return batch.map(() => ({ error: (err as Error).message }))
  }
}

/** Bounds one transaction (and how long one batch holds the relay thread). */
const maxBatch = 512

export function saveQueue(store: EventStore, opts: { log?: Logger } = {}): SaveQueue {
  const batches = startBatchWorker<StoreJob, StoreJobResult>({
    runHere: batch => storeBatch(store, batch),
    maxBatch,
    name: 'the relay store',
    ...(opts.log ? { log: opts.log } : {}),
  })
  return {
    save(event, now, done, source) {
      batches.run({ event, now, ...(source ? { source } : {}) }, result =>
        done('outcome' in result ? result : { error: new Error(result.error) }),
      )
    },
    close: () => batches.close(),
  }
}
