// The checkpoint worker of checkpointer.ts: its own connection to the daemon's database, checkpointing the WAL
// into the database file on a timer. PASSIVE: it copies what no reader still needs and never waits for a lock.
import { parentPort, workerData } from 'node:worker_threads'
import Database from 'better-sqlite3'

const { file, intervalMs, synchronous } = workerData as { file: string; intervalMs: number; synchronous: number }
const db = new Database(file, { fileMustExist: true })
db.pragma('busy_timeout = 0')
// The same level as the daemon's connection: at FULL the checkpoint syncs the WAL before it copies from it, and
// the database file after.
db.pragma(`synchronous = ${synchronous}`)
const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)')

setInterval(() => {
  try {
    checkpoint.run()
  } catch (err) {
    parentPort!.postMessage({ error: (err as Error).message })
  }
}, intervalMs)
