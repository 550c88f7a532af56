// One daemon per data dir: a running daemon holds an exclusive SQLite lock on `daemon.lock` in its data dir for as
// long as it runs. SQLite's locks are the operating system's record locks, so the kernel lets go of them when the
// process ends in any way (kill -9 included): no stale lock to clean up, and a second `relaypay start` on the same
// data dir (by mistake, or with a restored config that names the live dir) is refused before it touches anything.
// `daemon.pid` beside it names the holder for the refusal.
import Database from 'better-sqlite3'
import fs from 'node:fs'
import path from 'node:path'

const lockFile = 'daemon.lock'
const pidFile = 'daemon.pid'

/** Another live daemon serves this data dir. */
export class DataDirInUse extends Error {
  override name = 'DataDirInUse'
  readonly code = 'data_dir_in_use'
  constructor(readonly dataDir: string, readonly pid: number | undefined) {
    super(
      `another relaypay daemon${pid ? ` (pid ${pid})` : ''} serves the data dir ${dataDir}: stop it first, or give this ` +
        'one a data dir of its own (a standby on PostgreSQL has its own data dir too)',
    )
  }
}

export interface DataDirLock {
  /** Lets go of the lock (at the end of a clean stop; an exit lets go of it anyway). */
  release(): void
}

/** Takes the data dir for this process, or throws DataDirInUse. The data dir must exist. */
export function lockDataDir(dataDir: string): DataDirLock {
  const db = new Database(path.join(dataDir, lockFile))
  try {
    db.pragma('busy_timeout = 0')
    db.pragma('locking_mode = EXCLUSIVE')
    // Never committed: the write lock lasts as long as the connection.
    db.exec('BEGIN EXCLUSIVE')
  } catch (err) {
    db.close()
    if ((err as { code?: string }).code === 'SQLITE_BUSY') throw new DataDirInUse(dataDir, holderPid(dataDir))
    throw err
  }
  fs.writeFileSync(path.join(dataDir, pidFile), `${process.pid}\n`, { mode: 0o600 })
  return {
    release() {
      if (holderPid(dataDir) === process.pid) fs.rmSync(path.join(dataDir, pidFile), { force: true })
      db.close()
    },
  }
}

function holderPid(dataDir: string): number | undefined {
  try {
    const pid = Number(fs.readFileSync(path.join(dataDir, pidFile), 'utf8').trim())
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined
  } catch {
    return undefined
  }
}
