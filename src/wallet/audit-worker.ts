// The start-up audit of a large journal, on a worker thread with its own read-only connection: a read transaction
// in WAL mode sees one consistent snapshot while the daemon's connection goes on writing.
import { parentPort, workerData } from 'node:worker_threads'
import Database from 'better-sqlite3'
import { auditLedger } from './audit.js'

const db = new Database((workerData as { file: string }).file, { readonly: true, fileMustExist: true })
try {
  parentPort!.postMessage({ report: auditLedger(db) })
} catch (err) {
  parentPort!.postMessage({ error: (err as Error).message })
} finally {
  db.close()
}
