// The ledger audit at start. A small journal is audited before the daemon serves (well under a second). A large
// one is audited on a worker thread started once the daemon serves, so that it does not slow the start — the audit
// reads every journal row, ~10 s at a million on a shared 2-core machine — and until its verdict the outgoing gate
// holds every payment and transfer (they wait, they are not refused), so no money leaves a wallet before the books
// are proven; receiving goes on. Both paths run the same full audit (src/wallet/audit.ts), each on a read-only
// connection of its own: nothing is taken on trust from an earlier run.
import { Worker } from 'node:worker_threads'
import type { Db } from '../store/index.js'
import { auditLedgerFile, type AuditReport } from './audit.js'

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

export interface StartAuditOptions {
  db: Db
  file: string
  backgroundAboveEntries?: number
  /** A background audit's worker starts once this settles (the daemon serves): it would compete with the start. */
  backgroundAfter?: Promise<unknown>
}

export function startAudit(opts: StartAuditOptions): StartAudit {
  const limit = opts.backgroundAboveEntries ?? foregroundAuditMaxEntries
  // The largest id is a cheap upper bound of the row count (entries are never deleted).
  const entries = (opts.db.prepare('SELECT COALESCE(MAX(id), 0) FROM ledger_entries').pluck().get() as number) ?? 0
  if (entries <= limit) return { report: auditLedgerFile(opts.file), background: false, cancel: () => {} }
  let worker: Worker | undefined
  let cancelled = false
  const run = () =>
    new Promise<AuditReport>((resolve, reject) => {
      if (cancelled) return reject(new Error('the audit was cancelled before it started'))
      const started = (worker = new Worker(new URL('./audit-worker.js', import.meta.url), { workerData: { file: opts.file } }))
      started.once('message', (message: { report?: AuditReport; error?: string }) =>
        message.report ? resolve(message.report) : reject(new Error(message.error ?? 'no report')),
      )
      started.once('error', reject)
      started.once('exit', code => reject(new Error(`the audit worker stopped (exit code ${code}) before its verdict`)))
    })
  const report = (opts.backgroundAfter ?? Promise.resolve()).then(run, run)
  return {
    report,
    background: true,
    cancel: () => {
      cancelled = true
      void worker?.terminate()
    },
  }
}
