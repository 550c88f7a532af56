// Group commit: money movements that arrive together share one SQLite transaction, so under `synchronous = full`
// they share one fsync instead of paying for one each. Every movement still runs in its own savepoint, so one
// that is refused (insufficient balance, already paid) rolls back alone; and no caller hears "done" before the
// shared commit is on disk. Movements run in arrival order and each sees the ones before it, exactly as if they
// had been committed one by one.
//
// Under `full` in WAL mode the flush of the log to disk happens off the event loop: the batch commits with
// `synchronous = NORMAL` (its frames are written to the WAL, not yet flushed), then the WAL file is fdatasync'ed
// on libuv's thread pool — the very sync SQLite would have made inside COMMIT — and only then are the batch's
// callers answered. The event loop parses and runs the next requests meanwhile instead of sitting in fsync (on a
// shared disk that was ~15% of the loop's time under load). What a caller is told, and every event emitted after
// it (pushes, callbacks, a node payment), therefore still waits for the disk. What may happen earlier is that
// another request *reads* the committed rows before they are durable; whatever it writes in turn lands later in
// the same append-only WAL, so a sync that makes it durable makes those rows durable too.
import { walSyncFor, type Db, type WalSync } from '../store/index.js'

export interface GroupCommit {
  /** Runs `work` (synchronous SQL) in the next shared transaction; settles once that transaction is durable. */
  run<T>(work: () => T): Promise<T>
  /** Commits whatever is queued, now and synchronously durable (at stop). */
  flush(): void
}

export type { WalSync }

export interface GroupCommitOptions {
  /**
   * How a batch is made durable after it commits. Default: fdatasync of the database's WAL file on the thread
   * pool when the connection runs WAL with `synchronous = FULL` on a file; otherwise none (SQLite's own COMMIT
   * is then as durable as the operator configured).
   */
  walSync?: WalSync | null
}

interface Job {
  work: () => unknown
  resolve(value: unknown): void
  reject(error: unknown): void
}

/** Bounds how long one commit holds the database. */
const maxBatch = 256

class BatchAborted extends Error {}

export function groupCommit(db: Db, opts: GroupCommitOptions = {}): GroupCommit {
  const queue: Job[] = []
  let scheduled = false
  let syncing = false
  const savepoint = db.transaction((work: () => unknown) => work())
  const walSync = opts.walSync === undefined ? walSyncFor(db) : opts.walSync
  const relaxed = walSync ? db.prepare('PRAGMA synchronous = NORMAL') : undefined
  const strict = walSync ? db.prepare('PRAGMA synchronous = FULL') : undefined

  const commit = (jobs: Job[], deferSync: boolean): void => {
    const outcomes: { ok: boolean; value: unknown }[] = []
    if (deferSync) relaxed!.run()
    try {
      db.transaction(() => {
        for (const job of jobs) {
          // SQLite itself rolls the whole transaction back on some errors (I/O, disk full); what ran before is gone
          // then, and nothing after may run outside the batch.
          if (!db.inTransaction) throw new BatchAborted('the shared transaction was rolled back')
          try {
            outcomes.push({ ok: true, value: savepoint(job.work) })
          } catch (error) {
            outcomes.push({ ok: false, value: error })
          }
        }
      })()
    } catch (error) {
      for (const job of jobs) job.reject(error)
      return
    } finally {
      // Every other writer (settlements, accounts, extensions) keeps SQLite's own durable COMMIT.
      if (deferSync) strict!.run()
    }
    const answer = () => jobs.forEach((job, i) => (outcomes[i]!.ok ? job.resolve(outcomes[i]!.value) : job.reject(outcomes[i]!.value)))
    if (!deferSync) return answer()
    syncing = true
    walSync!(error => {
      syncing = false
      if (queue.length > 0) schedule()
      if (!error) return answer()
      // The batch is committed but not known to be on disk: nobody may hear "done" for it.
      for (const job of jobs) job.reject(error)
    })
  }

  const flush = (): void => {
    scheduled = false
    if (syncing) return
    const jobs = queue.splice(0, maxBatch)
    if (queue.length > 0) schedule()
    if (jobs.length > 0) commit(jobs, walSync !== null)
  }

  const schedule = () => {
    // While a batch waits for its sync the next one gathers; it commits when that sync is done (as SQLite's own
    // fsync inside COMMIT made it wait before), so batches stay as large as the disk makes them.
    if (scheduled || syncing) return
    scheduled = true
    // After the current macrotask: every request parsed in this turn of the event loop joins the batch.
    setImmediate(flush)
  }

  return {
    run<T>(work: () => T): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        queue.push({ work, resolve: resolve as (value: unknown) => void, reject })
        schedule()
      })
    },
    flush() {
      while (queue.length > 0) commit(queue.splice(0, maxBatch), false)
    },
  }
}
