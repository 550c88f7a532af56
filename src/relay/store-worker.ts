// The thread behind save-queue.ts: its own connection to relay.sqlite, storing each batch of events in one
// transaction and answering with one result per event, in order.
import { parentPort, workerData } from 'node:worker_threads'
import { openEventStore, type SaveOutcome } from './event-store.js'
import type { NostrEvent } from './nostr-event.js'

export interface StoreWorkerData {
  dataDir: string
  ephemeralRetentionSeconds: number
}

export type StoreBatch = { event: NostrEvent; now: number }[]
/** One per event: its outcome, or the message of the error that rolled it (or the whole batch) back. */
export type StoreBatchResult = ({ outcome: SaveOutcome } | { error: string })[]

const store = openEventStore(workerData as StoreWorkerData)

parentPort!.on('message', (batch: StoreBatch) => {
  let results: StoreBatchResult
  try {
    results = store.saveBatch(batch).map(r => (r instanceof Error ? { error: r.message } : { outcome: r }))
  } catch (err) {
    results = batch.map(() => ({ error: (err as Error).message }))
  }
  parentPort!.postMessage(results)
})
