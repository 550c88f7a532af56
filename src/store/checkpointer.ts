// WAL checkpoints off the event loop. SQLite's automatic checkpoint runs inside whichever COMMIT pushes the WAL
// past 1000 pages: that commit then copies the pages into the database file and fsyncs it — milliseconds during
// which the one thread serving every request does nothing else (under a payment load, about one group commit in
// four waited for it). Here a worker thread with its own connection runs a PASSIVE checkpoint (it never blocks a
// writer or a reader) a few times a second. When one completes between two commits, the next commit starts the
// WAL over. Under a write load without pauses a checkpoint never quite catches up, so the daemon's connection
// keeps an automatic checkpoint at a ten times higher mark as the bound: by then nearly every page is already
// copied and it only has the rest to copy. If the worker fails, SQLite's default mark is restored.
import { Worker } from 'node:worker_threads'
import type { Logger } from 'pino'
import type { Db } from './index.js'

export interface Checkpointer {
  /** Stops the worker; a checkpoint it is in the middle of completes or is safely abandoned by SQLite. */
  stop(): void
}

export interface CheckpointerOptions {
  intervalMs?: number
  /** WAL file size kept after a reset (bytes). */
  journalSizeLimit?: number
  log?: Logger
}

const sqliteDefaultAutocheckpoint = 1000
/** WAL pages at which the daemon's own connection still checkpoints (the bound under a load without pauses). */
export const backgroundAutocheckpoint = 10_000

export function startCheckpointer(db: Db, opts: CheckpointerOptions = {}): Checkpointer {
  const intervalMs = opts.intervalMs ?? 250
  let stopped = false
  const worker = new Worker(new URL('./checkpoint-worker.js', import.meta.url), {
    workerData: { file: db.name, intervalMs, synchronous: Number(db.pragma('synchronous', { simple: true })) },
  })
  db.pragma(`wal_autocheckpoint = ${backgroundAutocheckpoint}`)
  db.pragma(`journal_size_limit = ${opts.journalSizeLimit ?? 64 * 1024 * 1024}`)
  const fallBack = (reason: string) => {
    if (stopped) return
    stopped = true
    if (db.open) db.pragma(`wal_autocheckpoint = ${sqliteDefaultAutocheckpoint}`)
    opts.log?.error({ reason }, 'the WAL checkpoint worker stopped; checkpoints run inside commits again')
  }
  worker.on('message', (message: { error?: string }) => {
    if (message.error) opts.log?.warn({ reason: message.error }, 'a WAL checkpoint failed; the next one retries')
  })
  worker.on('error', err => fallBack(err.message))
  worker.on('exit', code => fallBack(`exit code ${code}`))
  // The worker must not keep a stopping process alive.
  worker.unref()
  return {
    stop() {
      if (stopped) return
      stopped = true
      void worker.terminate()
    },
  }
}
