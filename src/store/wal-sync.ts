// Durability without stopping the event loop, for the one SQLite connection: a sync of the WAL on libuv's thread
// pool (walSyncFor) and a commit that leaves its sync to it (commitWithoutSync). Used by the store's SqlStore
// wrapper and by the Nostr request journal.
import fs from 'node:fs'
import type { Database as Db } from 'better-sqlite3'

/** Makes every WAL frame written so far durable; calls back with an error when it could not. */
export type WalSync = (done: (error: Error | null) => void) => void

/**
 * For a connection in WAL mode with `synchronous = FULL` on a file: a function that fdatasyncs its WAL on libuv's
 * thread pool — the sync SQLite makes inside every COMMIT at that level — so a writer can commit with NORMAL and
 * wait for this instead, without stopping the event loop. Null for any other connection (nothing to add then).
 * The WAL is append-only: one sync makes every commit before it durable, whoever made it.
 */
export function walSyncFor(db: Db): WalSync | null {
  if (db.memory || db.readonly) return null
  const mode = String(db.pragma('journal_mode', { simple: true })).toLowerCase()
  const level = Number(db.pragma('synchronous', { simple: true }))
  if (mode !== 'wal' || level < 2) return null // 2 = FULL, 3 = EXTRA
  const walFile = `${db.name}-wal`
  // One sync at a time: callers that arrive while one runs share the next (the running one may have started
  // before their commit). Under load this turns one fdatasync per caller into one per disk round trip.
  // The descriptor is kept: SQLite truncates and reuses its WAL file but never replaces it while the connection is
  // open (it removes it at the last close). It is reopened after an error, and closed once the connection is.
  let fd: number | undefined
  let running = false
  let waiting: ((error: Error | null) => void)[] = []
  const closeFd = () => {
    if (fd !== undefined) fs.close(fd, () => {})
    fd = undefined
  }
  const withFd = (then: (error: Error | null, fd?: number) => void) => {
    if (fd !== undefined) return then(null, fd)
    fs.open(walFile, 'r', (error, opened) => {
      if (error) return then(error)
      fd = opened
      then(null, opened)
    })
  }
  const start = () => {
    running = true
    const batch = waiting
    waiting = []
    const finish = (error: Error | null) => {
      running = false
      if (error) closeFd() // the next sync opens the file again
      if (!db.open) closeFd()
      for (const done of batch) done(error)
      if (waiting.length > 0) start()
    }
    withFd((openError, opened) => (openError ? finish(openError) : fs.fdatasync(opened!, syncError => finish(syncError))))
  }
  return done => {
    waiting.push(done)
    if (!running) start()
  }
}

/**
 * Runs `work` in one transaction committed with `synchronous = NORMAL` (no fsync inside COMMIT), restoring the
 * connection's level after. For writes whose durability comes from a later sync (`walSyncFor`) or a later
 * durable commit: the WAL keeps commit order, so that later sync covers this one.
 */
export function commitWithoutSync<T>(db: Db, work: () => T): T {
  // Inside an open transaction the level cannot change (nor would it matter: the outer COMMIT decides).
  if (db.inTransaction) return db.transaction(work)()
  const level = Number(db.pragma('synchronous', { simple: true }))
  if (level < 2) return db.transaction(work)()
  db.pragma('synchronous = NORMAL')
  try {
    return db.transaction(work)()
  } finally {
    db.pragma(`synchronous = ${level === 3 ? 'EXTRA' : 'FULL'}`)
  }
}
