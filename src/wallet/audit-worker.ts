// The start-up audit of a large journal, on a worker thread with its own read-only connection (auditLedgerFile): a
// read transaction in WAL mode sees one consistent snapshot while the daemon's connection goes on writing.
import { parentPort, workerData } from 'node:worker_threads'
import { auditLedgerFile } from './audit.js'

try {
  parentPort!.postMessage({ report: auditLedgerFile((workerData as { file: string }).file) })
} catch (err) {
  parentPort!.postMessage({ error: (err as Error).message })
}
