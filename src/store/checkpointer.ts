// WAL checkpoints off the event loop. SQLite's automatic checkpoint runs inside whichever COMMIT pushes the WAL
// past 1000 pages: that commit then copies the pages into the database file and fsyncs it — milliseconds during
// which the one thread serving every request does nothing else (under a payment load, about one group commit in
// four waited for it). Here one worker thread per process, with its own connection to each database it watches,
// runs a PASSIVE checkpoint (it never blocks a writer or a reader) a few times a second. When one completes
// between two commits, the next commit starts the WAL over. Under a write load without pauses a checkpoint never
// quite catches up, so the watched connection keeps an automatic checkpoint at a ten times higher mark as the
// bound: by then nearly every page is already copied and only the rest is left. If the worker fails, SQLite's
// default mark is restored on every watched connection.
//
// The thread starts only once a watched WAL reaches `startAtWalPages` (the file's size, looked at twice a second):
// until then SQLite's own mark (1,000 pages) stands, and no commit has reached it. A daemon that writes little never
// starts the thread, which costs about a tenth of a start's CPU (its isolate and better-sqlite3 loaded into it);
// one under a write load starts it within a second of getting busy, before the first commit that would checkpoint.
import fs from 'node:fs'
import { Worker } from 'node:worker_threads'
import type { Logger } from 'pino'
import type { Database } from 'better-sqlite3'
import { smallWorker } from '../threads/index.js'

export interface CheckpointWorker {
  /** Checkpoints `db`'s file in the background from now on; the result stops watching it (before it closes). */
  watch(db: Database): () => void
  /** Stops the worker; a checkpoint it is in the middle of completes or is safely abandoned by SQLite. */
  stop(): void
  /** Whether the thread has started (a watched WAL reached `startAtWalPages`). */
  running(): boolean
}

const sqliteDefaultAutocheckpoint = 1000
/** WAL pages at which a watched connection still checkpoints itself (the bound under a load without pauses). */
export const backgroundAutocheckpoint = 10_000
/** WAL file size kept when it starts over (bytes). */
const journalSizeLimit = 64 * 1024 * 1024
/**
 * WAL pages at which the thread starts: below SQLite's mark, with room for what a busy second writes. A fresh
 * ledger's migration leaves about 370.
 */
const defaultStartAtWalPages = 600
/** How often a watched WAL's size is looked at until the thread runs. */
const walPollMs = 500

export function startCheckpointWorker(opts: { intervalMs?: number; log?: Logger; startAtWalPages?: number } = {}): CheckpointWorker {
  const watched = new Map<Database, { pageBytes: number }>()
  const startAt = opts.startAtWalPages ?? defaultStartAtWalPages
  let stopped = false
  let worker: Worker | undefined
  let poll: NodeJS.Timeout | undefined
  const fallBack = (reason: string) => {
    if (stopped) return
    stopped = true
    for (const db of watched.keys()) if (db.open) db.pragma(`wal_autocheckpoint = ${sqliteDefaultAutocheckpoint}`)
    opts.log?.error({ reason }, 'the WAL checkpoint worker stopped; checkpoints run inside commits again')
  }
  const handOver = (db: Database) => {
    db.pragma(`wal_autocheckpoint = ${backgroundAutocheckpoint}`)
    // The same level as the watched connection: at FULL the checkpoint syncs the WAL before it copies from it.
    worker!.postMessage({ watch: db.name, synchronous: Number(db.pragma('synchronous', { simple: true })) })
  }
  const begin = () => {
    clearInterval(poll)
    worker = new Worker(new URL('./checkpoint-worker.js', import.meta.url), {
      workerData: { intervalMs: opts.intervalMs ?? 250 },
      resourceLimits: smallWorker,
    })
    worker.on('message', (message: { file: string; error: string }) => {
      opts.log?.warn({ file: message.file, reason: message.error }, 'a WAL checkpoint failed; the next one retries')
    })
    worker.on('error', err => fallBack(err.message))
    worker.on('exit', code => fallBack(`exit code ${code}`))
    // The worker must not keep a stopping process alive.
    worker.unref()
    for (const db of watched.keys()) if (db.open) handOver(db)
  }
  const walPages = (db: Database, pageBytes: number) => {
    try {
      return fs.statSync(`${db.name}-wal`).size / pageBytes
    } catch {
      return 0
    }
  }
  const check = () => {
    if (stopped || worker) return
    for (const [db, { pageBytes }] of watched) if (db.open && walPages(db, pageBytes) >= startAt) return begin()
  }
  return {
    watch(db) {
      if (stopped || db.memory || db.readonly) return () => {}
      db.pragma(`journal_size_limit = ${journalSizeLimit}`)
      watched.set(db, { pageBytes: Number(db.pragma('page_size', { simple: true })) })
      if (worker) handOver(db)
      else check()
      if (!worker && !poll) {
        poll = setInterval(check, walPollMs)
        poll.unref()
      }
      return () => {
        if (!watched.delete(db)) return
        if (worker && !stopped) worker.postMessage({ unwatch: db.name })
        if (db.open) db.pragma(`wal_autocheckpoint = ${sqliteDefaultAutocheckpoint}`)
      }
    },
    stop() {
      if (stopped) return
      stopped = true
      clearInterval(poll)
      watched.clear()
      void worker?.terminate()
    },
    running: () => worker !== undefined && !stopped,
  }
}
