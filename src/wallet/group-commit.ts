// Group commit: money movements that arrive together share one SQLite transaction, so under `synchronous = full`
// they share one fsync instead of paying for one each. Every movement still runs in its own savepoint, so one
// that is refused (insufficient balance, already paid) rolls back alone; and no caller hears "done" before the
// shared commit is on disk. Movements run in arrival order and each sees the ones before it, exactly as if they
// had been committed one by one.
import type { Db } from '../store/index.js'

export interface GroupCommit {
  /** Runs `work` (synchronous SQL) in the next shared transaction; settles once that transaction has committed. */
  run<T>(work: () => T): Promise<T>
  /** Commits whatever is queued, now (at stop). */
  flush(): void
}

interface Job {
  work: () => unknown
  resolve(value: unknown): void
  reject(error: unknown): void
}

/** Bounds how long one commit holds the database. */
const maxBatch = 256

class BatchAborted extends Error {}

export function groupCommit(db: Db): GroupCommit {
  const queue: Job[] = []
  let scheduled = false
  const savepoint = db.transaction((work: () => unknown) => work())

  const flush = (): void => {
    scheduled = false
    const jobs = queue.splice(0, maxBatch)
    if (queue.length > 0) schedule()
    if (jobs.length === 0) return
    const outcomes: { ok: boolean; value: unknown }[] = []
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
    }
    jobs.forEach((job, i) => (outcomes[i]!.ok ? job.resolve(outcomes[i]!.value) : job.reject(outcomes[i]!.value)))
  }

  const schedule = () => {
    if (scheduled) return
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
      while (queue.length > 0) flush()
    },
  }
}
