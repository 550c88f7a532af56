// Group commit: money movements that arrive together share one SQLite transaction, so under `synchronous = full`
// they share one fsync instead of paying for one each. Every movement that shares it runs in its own savepoint, so
// one that is refused (insufficient balance, already paid) rolls back alone (a movement alone in its batch has the
// transaction to itself); and no caller hears "done" before the shared commit is on disk. Movements run in
// arrival order and each sees the ones before it, exactly as if they had been committed one by one.
//
// The shared transaction is a `syncOffLoop` one (src/store/sqlite-sql-store.ts): it commits without the fsync
// inside COMMIT and the WAL is fdatasync'ed on libuv's thread pool before the batch's callers are answered, so the
// event loop parses and runs the next requests meanwhile instead of sitting in fsync. What a caller is told, and
// every event emitted after it (pushes, callbacks, a node payment), therefore still waits for the disk.
//
// On PostgreSQL each movement is a transaction of its own on the pool (the server groups commits itself), retried
// after a serialization failure or deadlock. The movement's code is the same on both engines: it takes `tx`.
//
// `fence` (the standby's epoch check) runs first in every transaction that moves money: a daemon that lost the
// active lock rolls back instead of committing.
import type { SqlExecutor, SqlStore, SqlTransaction } from '../store/index.js'

/** Refuses (throws) inside a money transaction when this daemon may no longer write (a stale epoch). */
export type Fence = (tx: SqlExecutor) => Promise<void>

export interface GroupCommit {
  /** Runs `work` in the next shared transaction (its own on PostgreSQL); settles once that is durable. */
  run<T>(work: (tx: SqlTransaction) => Promise<T>): Promise<T>
  /** Commits whatever is queued, durable when it settles, and waits for a batch under way (at stop). */
  flush(): Promise<void>
}

export interface GroupCommitOptions {
  fence?: Fence
}

interface Job {
  work: (tx: SqlTransaction) => Promise<unknown>
  resolve(value: unknown): void
  reject(error: unknown): void
}

/** Bounds how long one commit holds the database. */
const maxBatch = 256

const nothingQueued = new Error('nothing queued')

export function groupCommit(sql: SqlStore, opts: GroupCommitOptions = {}): GroupCommit {
  const { fence } = opts
  if (sql.engine === 'postgres') {
    return {
      run: work =>
        sql.transaction(async tx => {
          if (fence) await fence(tx)
          return work(tx)
        }),
      flush: async () => {},
    }
  }

  const queue: Job[] = []
  /** The batch being committed and synced, if any. */
  let running: Promise<void> | null = null

  /**
   * Commits the next batch. The store begins a transaction at the start of an event-loop turn (after every
   * request parsed in this one), so the batch is taken from the queue only once the transaction has begun: all
   * that arrived meanwhile joins it, without a turn of its own for gathering.
   */
  const commit = (syncOffLoop: boolean, taken?: Job[]): Promise<void> => {
    let jobs: Job[] = []
    return sql
      .transaction(
        async tx => {
          jobs = taken ?? queue.splice(0, maxBatch)
          // Taken by flush() meanwhile: roll back the empty transaction (no commit, no sync).
          if (jobs.length === 0) throw nothingQueued
          if (fence) await fence(tx)
          // A movement alone in its batch needs no savepoint: the transaction is its own, so a failure rolls it all
          // back and the movement hears its own error (below). The usual case when the daemon is not busy.
          if (jobs.length === 1) return [{ ok: true, value: await jobs[0]!.work(tx) }]
          const results: { ok: boolean; value: unknown }[] = []
          for (const job of jobs) {
            try {
              results.push({ ok: true, value: await tx.savepoint(job.work) })
            } catch (error) {
              results.push({ ok: false, value: error })
            }
          }
          return results
        },
        { syncOffLoop },
      )
      .then(
        outcomes => jobs.forEach((job, i) => (outcomes[i]!.ok ? job.resolve(outcomes[i]!.value) : job.reject(outcomes[i]!.value))),
        // Not committed, or committed but not known to be on disk: nobody may hear "done" for it.
        error => jobs.forEach(job => job.reject(error)),
      )
  }

  const schedule = () => {
    // While a batch commits and waits for its sync the next one gathers; it commits when that sync is done (as
    // SQLite's own fsync inside COMMIT made it wait before), so batches stay as large as the disk makes them.
    if (running) return
    running = commit(true).finally(() => {
      running = null
      if (queue.length > 0) schedule()
    })
  }

  return {
    run<T>(work: (tx: SqlTransaction) => Promise<T>): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        queue.push({ work, resolve: resolve as (value: unknown) => void, reject })
        schedule()
      })
    },
    async flush() {
      // What is queued commits now, durable in SQLite's own COMMIT; a batch under way finishes as it began.
      while (queue.length > 0) await commit(false, queue.splice(0, maxBatch))
      while (running) await running
    },
  }
}

/** One money transaction of its own (not grouped): the fence first, then `work`, on either engine. */
export type MoneyTransaction = <T>(work: (tx: SqlTransaction) => Promise<T>) => Promise<T>

export function moneyTransaction(sql: SqlStore, fence?: Fence): MoneyTransaction {
  return work =>
    sql.transaction(async tx => {
      if (fence) await fence(tx)
      return work(tx)
    })
}
