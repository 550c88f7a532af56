// Events that arrive in one turn of the event loop are stored in one SQLite transaction. Every relay round trip
// stores two events (the request and its reply); one commit each wrote the same few pages to the WAL again and
// again, and stores were ~15% of the relay's time at 64 requests in flight. Each event still runs in its own
// savepoint (a failure rolls back alone), and its OK and broadcast wait for the shared commit, so nothing is
// acknowledged or relayed before it is stored.
import type { EventStore, SaveOutcome } from './event-store.js'
import type { NostrEvent } from './nostr-event.js'

export type SaveResult = { outcome: SaveOutcome } | { error: unknown }

export interface SaveQueue {
  /** Stores the event with whatever else arrives in this turn; `done` runs after the shared commit. */
  save(event: NostrEvent, nowSeconds: number, done: (result: SaveResult) => void): void
  /** Stores what is queued now (before the store closes). */
  flush(): void
}

interface Pending {
  event: NostrEvent
  now: number
  done(result: SaveResult): void
}

/** Bounds how long one commit holds the relay's thread. */
const maxBatch = 512

export function saveQueue(store: EventStore): SaveQueue {
  let queue: Pending[] = []
  let scheduled = false

  const flush = () => {
    scheduled = false
    while (queue.length > 0) {
      const batch = queue.slice(0, maxBatch)
      queue = queue.slice(batch.length)
      let results: SaveResult[]
      try {
        results = store.saveBatch(batch).map(r => (r instanceof Error ? { error: r } : { outcome: r }))
      } catch (error) {
        results = batch.map(() => ({ error }))
      }
      batch.forEach((pending, i) => pending.done(results[i]!))
    }
  }

  return {
    save(event, now, done) {
      queue.push({ event, now, done })
      if (scheduled) return
      scheduled = true
      setImmediate(flush)
    },
    flush,
  }
}
