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
import type { RelayLimits } from './limits.js'

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

/** The OK a client gets for an event offered for storage: accepted, and the reason with its NIP-01 prefix. */
export function okOfSave(outcome: SaveOutcome, limits: Pick<RelayLimits, 'maxStoreBytes' | 'maxAuthorBytes' | 'maxAddressBytes'>): [boolean, string] {
  switch (outcome) {
    case 'stored':
      return [true, '']
    case 'duplicate':
      return [true, 'duplicate: already have this event']
    case 'newer-exists':
      // As khatru does: the address already holds a newer version, which is what the client wants kept anyway.
      return [true, 'duplicate: have a newer version of this event']
    case 'full':
      return [false, `blocked: the relay's storage is full (${limits.maxStoreBytes} bytes)`]
    case 'author-full':
      return [false, `blocked: this author's storage budget (${limits.maxAuthorBytes} bytes) is used up`]
    case 'address-full':
      return [false, `blocked: your address's storage budget (${limits.maxAddressBytes} bytes) is used up`]
    case 'deleted':
      return [false, 'blocked: the author deleted this event (NIP-09)']
  }
}
