// The checkpoint worker of checkpointer.ts: its own connection to each watched database, checkpointing their WAL
// into the database file on a timer. PASSIVE: it copies what no reader still needs and never waits for a lock.
import { parentPort, workerData } from 'node:worker_threads'
import Database from 'better-sqlite3'

type Watched = { db: Database.Database; checkpoint: Database.Statement }
const { intervalMs } = workerData as { intervalMs: number }
const watched = new Map<string, Watched>()

parentPort!.on('message', (message: { watch?: string; synchronous?: number; unwatch?: string }) => {
  if (message.watch && !watched.has(message.watch)) {
    const db = new Database(message.watch, { fileMustExist: true })
    db.pragma('busy_timeout = 0')
    db.pragma(`synchronous = ${message.synchronous ?? 2}`)
    watched.set(message.watch, { db, checkpoint: db.prepare('PRAGMA wal_checkpoint(PASSIVE)') })
  }
  if (message.unwatch) {
    watched.get(message.unwatch)?.db.close()
    watched.delete(message.unwatch)
  }
})

setInterval(() => {
  for (const [file, { checkpoint }] of watched) {
    try {
      checkpoint.run()
    } catch (err) {
      parentPort!.postMessage({ file, error: (err as Error).message })
    }
  }
}, intervalMs)
