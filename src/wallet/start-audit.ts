// The ledger audit at start. A small journal is audited before the daemon serves (well under a second). A large
// one is audited on a worker thread while the daemon already serves — the audit reads every journal row, ~10 s at
// a million on a shared 2-core machine — and until its verdict the outgoing gate holds every payment and transfer
// (they wait, they are not refused), so no money leaves a wallet before the books are proven; receiving goes on.
// Both paths run the same full audit (src/wallet/audit.ts): nothing is taken on trust from an earlier run.
import { Worker } from 'node:worker_threads'
import Database from 'better-sqlite3'
import type { Db } from '../store/index.js'
import { auditLedger, type AuditReport } from './audit.js'

/** Journals up to this many entries are audited before the daemon serves. */
export const foregroundAuditMaxEntries = 100_000

export interface StartAudit {
  /** The verdict: the report, from the worker or from the audit that already ran. */
  report: Promise<AuditReport>
  /** True when the audit runs on the worker (the daemon serves meanwhile). */
  background: boolean
  /** Stops a background audit that is still running (daemon stop). */
  cancel(): void
}

export function startAudit(opts: { db: Db; file: string; backgroundAboveEntries?: number }): StartAudit {
  const limit = opts.backgroundAboveEntries ?? foregroundAuditMaxEntries
  // The largest id is a cheap upper bound of the row count (entries are never deleted).
  const entries = (opts.db.prepare('SELECT COALESCE(MAX(id), 0) FROM ledger_entries').pluck().get() as number) ?? 0
  if (entries <= limit) return { report: Promise.resolve(auditOnOwnConnection(opts.file)), background: false, cancel: () => {} }
  const worker = new Worker(new URL('./audit-worker.js', import.meta.url), { workerData: { file: opts.file } })
  const report = new Promise<AuditReport>((resolve, reject) => {
    worker.once('message', (message: { report?: AuditReport; error?: string }) =>
      message.report ? resolve(message.report) : reject(new Error(message.error ?? 'no report')),
    )
    worker.once('error', reject)
    worker.once('exit', code => reject(new Error(`the audit worker stopped (exit code ${code}) before its verdict`)))
  })
  return { report, background: true, cancel: () => void worker.terminate() }
}

/**
 * The foreground audit reads every wallet and journal row once. On the daemon's own connection those pages would
 * stay in its 16 MB page cache (about 28 MB of RSS with 100k wallets) though payments need few of them; a
 * connection of its own, with SQLite's default 2 MB cache, is closed with them. Nothing writes before it is done.
 */
function auditOnOwnConnection(file: string): AuditReport {
  const db = new Database(file, { readonly: true, fileMustExist: true })
  try {
    return auditLedger(db)
  } finally {
    db.close()
  }
}

