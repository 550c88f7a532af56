// The start-up audit of a large journal, on a worker thread with its own read-only connection (auditLedgerFile): a
// read transaction in WAL mode sees one consistent snapshot while the daemon's connection goes on writing.
import { parentPort, workerData } from 'node:worker_threads'
import { auditLedgerFile } from './audit.js'

auditLedgerFile((workerData as { file: string }).file).then(
  report => parentPort!.postMessage({ report }),
  err => parentPort!.postMessage({ error: (err as Error).message }),
)
