// WAL checkpoints off the event loop. SQLite's automatic checkpoint runs inside whichever COMMIT pushes the WAL
// past 1000 pages: that commit then copies the pages into the database file and fsyncs it — milliseconds during
// which the one thread serving every request does nothing else (under a payment load, about one group commit in
// four waited for it). Here one worker thread per process, with its own connection to each database it watches,
// runs a PASSIVE checkpoint (it never blocks a writer or a reader) a few times a second. When one completes
// between two commits, the next commit starts the WAL over. Under a write load without pauses a checkpoint never
// quite catches up, so the watched connection keeps an automatic checkpoint at a ten times higher mark as the
// bound: by then nearly every page is already copied and only the rest is left. If the worker fails, SQLite's
// default mark is restored on every watched connection.
import { Worker } from 'node:worker_threads'
import type { Logger } from 'pino'
import type { Database } from 'better-sqlite3'
import { smallWorker } from '../threads/index.js'

export interface CheckpointWorker {
  /** Checkpoints `db`'s file in the background from now on; the result stops watching it (before it closes). */
  watch(db: Database): () => void
  /** Stops the worker; a checkpoint it is in the middle of completes or is safely abandoned by SQLite. */
  stop(): void
}

const sqliteDefaultAutocheckpoint = 1000
/** WAL pages at which a watched connection still checkpoints itself (the bound under a load without pauses). */
export const backgroundAutocheckpoint = 10_000
/** WAL file size kept when it starts over (bytes). */
const journalSizeLimit = 64 * 1024 * 1024

export function startCheckpointWorker(opts: { intervalMs?: number; log?: Logger } = {}): CheckpointWorker {
  const watched = new Set<Database>()
  let stopped = false
  const worker = new Worker(new URL('./checkpoint-worker.js', import.meta.url), {
    workerData: { intervalMs: opts.intervalMs ?? 250 },
    resourceLimits: smallWorker,
  })
  const fallBack = (reason: string) => {
    if (stopped) return
    stopped = true
    for (const db of watched) if (db.open) db.pragma(`wal_autocheckpoint = ${sqliteDefaultAutocheckpoint}`)
    opts.log?.error({ reason }, 'the WAL checkpoint worker stopped; checkpoints run inside commits again')
  }
  worker.on('message', (message: { file: string; error: string }) => {
    opts.log?.warn({ file: message.file, reason: message.error }, 'a WAL checkpoint failed; the next one retries')
  })
  worker.on('error', err => fallBack(err.message))
  worker.on('exit', code => fallBack(`exit code ${code}`))
  // The worker must not keep a stopping process alive.
  worker.unref()
  return {
    watch(db) {
      if (stopped || db.memory || db.readonly) return () => {}
      db.pragma(`wal_autocheckpoint = ${backgroundAutocheckpoint}`)
      db.pragma(`journal_size_limit = ${journalSizeLimit}`)
      watched.add(db)
      // The same level as the watched connection: at FULL the checkpoint syncs the WAL before it copies from it.
      worker.postMessage({ watch: db.name, synchronous: Number(db.pragma('synchronous', { simple: true })) })
      return () => {
        if (!watched.delete(db)) return
        if (!stopped) worker.postMessage({ unwatch: db.name })
        if (db.open) db.pragma(`wal_autocheckpoint = ${sqliteDefaultAutocheckpoint}`)
      }
    },
    stop() {
      if (stopped) return
      stopped = true
      watched.clear()
      void worker.terminate()
    },
  }
}
