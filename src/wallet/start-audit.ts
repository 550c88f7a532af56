// The ledger audit at start. A small journal is audited before the daemon serves (well under a second). A large
// one is audited once the daemon serves, so that it does not slow the start — the audit reads every journal row,
// ~10 s at a million on a shared 2-core machine — and until its verdict the outgoing gate holds every payment and
// transfer (they wait, they are not refused), so no money leaves a wallet before the books are proven; receiving
// goes on. Both paths run the same full audit (src/wallet/audit.ts) in one read-only snapshot: on SQLite on a
// read-only connection of its own (a large journal on a worker thread), on PostgreSQL on the store's pool (the
// server does the reading; the daemon only receives the sums). Nothing is taken on trust from an earlier run.
import { Worker } from 'node:worker_threads'
import type { SqlStore } from '../store/index.js'
import { auditLedger, auditLedgerFile, type AuditReport } from './audit.js'

/** Journals up to this many entries are audited before the daemon serves. */
export const foregroundAuditMaxEntries = 100_000

export interface StartAudit {
  /** The verdict: the report, from the worker or from the audit that already ran. */
  report: Promise<AuditReport>
  /** True when the audit runs once the daemon serves (the daemon serves meanwhile). */
  background: boolean
  /** Stops a background audit that has not started yet, or its worker (daemon stop). */
  cancel(): void
}

export interface StartAuditOptions {
  /** The wallet's store: it counts the journal, and on PostgreSQL it runs the audit. */
  sql: SqlStore
  /** The SQLite database file, audited on a read-only connection of its own; required on SQLite. */
  file?: string
  backgroundAboveEntries?: number
  /** A background audit starts once this settles (the daemon serves): it would compete with the start. */
  backgroundAfter?: Promise<unknown>
}

export async function startAudit(opts: StartAuditOptions): Promise<StartAudit> {
  const limit = opts.backgroundAboveEntries ?? foregroundAuditMaxEntries
  const postgres = opts.sql.engine === 'postgres'
  const file = opts.file
  if (!postgres && file === undefined) throw new Error('the SQLite start audit needs the database file')
  const audit = (): Promise<AuditReport> => (postgres ? auditLedger(opts.sql) : auditLedgerFile(file!))
  // The largest id is a cheap upper bound of the row count (entries are never deleted).
  const entries = Number((await opts.sql.one<{ n: number }>('SELECT COALESCE(MAX(id), 0) AS n FROM ledger_entries'))?.n ?? 0)
  if (entries <= limit) {
    // Before the daemon serves, as said above: on PostgreSQL the audit is queries, so its verdict is awaited here
    // (it was left to settle while the start went on, and its log line could come after the daemon served).
    const report = audit()
    await report.catch(() => {})
    return { report, background: false, cancel: () => {} }
  }
  let worker: Worker | undefined
  let cancelled = false
  const onWorker = () =>
    new Promise<AuditReport>((resolve, reject) => {
      const started = (worker = new Worker(new URL('./audit-worker.js', import.meta.url), { workerData: { file } }))
      started.once('message', (message: { report?: AuditReport; error?: string }) =>
        message.report ? resolve(message.report) : reject(new Error(message.error ?? 'no report')),
      )
      started.once('error', reject)
      started.once('exit', code => reject(new Error(`the audit worker stopped (exit code ${code}) before its verdict`)))
    })
  const run = () => {
    if (cancelled) return Promise.reject(new Error('the audit was cancelled before it started'))
    return postgres ? auditLedger(opts.sql) : onWorker()
  }
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
