// The thread behind save-queue.ts: its own connection to relay.sqlite, storing each batch of events in one
// transaction and answering with one result per event, in order.
import { parentPort, workerData } from 'node:worker_threads'
import { openEventStore } from './event-store.js'
import { storeBatch, type StoreJob } from './save-queue.js'

export interface StoreWorkerData {
  dataDir: string
  ephemeralRetentionSeconds: number
}

const store = openEventStore(workerData as StoreWorkerData)

parentPort!.on('message', (batch: StoreJob[]) => parentPort!.postMessage(storeBatch(store, batch)))
