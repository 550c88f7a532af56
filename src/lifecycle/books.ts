// Where the daemon keeps its books, opened before any room starts. Without `[store] url`: the one SQLite file in the
// data dir, as always. With it: PostgreSQL for every room's tables (migrated here, before the lock is sought: the
// migrations hold a lock of their own, so standbys starting together migrate once), then the active-daemon lock
// (store/active-lock.ts). While another daemon holds it this one is a standby: the probes answer (`/healthz` 200,
// `/readyz` 503 naming why) and nothing else runs — no relay subscription, no LND stream, no money. Once it holds the
// lock it has bumped the fencing epoch, and the caller starts the rooms (docs/postgres.md, "Takeover steps").
//
// The data dir's SQLite file is opened in both cases: the embedded node's tables are one process's by nature and stay
// there, like the embedded relay's own file.
import os from 'node:os'
import type { Logger } from 'pino'
import type { Config } from '../config/index.js'
import type { Probes } from '../health/index.js'
import {
  acquireActiveLock, checkEpoch, forgetPostgresBooks, lockHolder, migratePostgres, notePostgresBooks, openStore, postgresSqlStore, postgresWriteProbe, startCheckpointWorker,
  type ActiveLease, type Db, type SqlExecutor, type SqlStore, type Store,
} from '../store/index.js'

export interface Books {
  engine: 'sqlite' | 'postgres'
  /** The data dir's SQLite store: the embedded node's tables, and every table when there is no `[store] url`. */
  local: Store
  /** Every ported room's tables: PostgreSQL with `[store] url`, else the SQLite file through the same interface. */
  sql: SqlStore
  /** The raw SQLite connection when the books are in SQLite (claims commit off the event loop's fsync there). */
  raw?: Db
  /** PostgreSQL: the lock this daemon holds; `lost` settles when it must stop serving. */
  lease?: ActiveLease
  /** PostgreSQL: the first statement of every money transaction, refusing once another daemon has taken over. */
  fence?: (tx: SqlExecutor) => Promise<void>
  close(): Promise<void>
}

/** The readiness detail of a daemon waiting for the lock. */
export const standbyDetail = 'standby: another daemon holds the books'

export interface OpenBooksDeps {
  log: Logger
  probes: Probes
}

export async function openBooks(config: Config, dataDir: string, { log, probes }: OpenBooksDeps): Promise<Books> {
  const storeLog = log.child({ room: 'store' })
  // One worker checkpoints the ledger's WAL off the event loop (the embedded relay's thread checkpoints its own).
  const checkpoints = startCheckpointWorker({ log: storeLog })
  const local = openStore({ dataDir, synchronous: config.store.synchronous, checkpoints })
  const closeLocal = () => (local.close(), checkpoints.stop())
  if (local.applied.length > 0) log.info({ migrations: local.applied }, 'database migrated')
  const url = config.store.url
  if (url === undefined) {
    forgetPostgresBooks(dataDir)
    probes.set('migrations', true, `${local.applied.length} applied at this start`)
    probes.watchStore(local.db)
    return { engine: 'sqlite', local, sql: local.sql, raw: local.db, close: async () => closeLocal() }
  }

  const sql = postgresSqlStore({
    url,
    max: config.store.pool_size,
    applicationName: 'relaypay',
    onError: err => storeLog.warn({ err: { message: err.message } }, 'a PostgreSQL session failed; the pool replaces it'),
  })
  const closeAll = async () => {
    await sql.close().catch(() => {})
    closeLocal()
  }
  try {
    // Before anything else: from now on no tool takes the data dir's SQLite file for these books.
    notePostgresBooks(dataDir, url)
    const applied = await migratePostgres(sql)
    if (applied.length > 0) log.info({ migrations: applied }, 'PostgreSQL migrated')
    probes.set('migrations', true, `${applied.length} applied on PostgreSQL at this start`)
    probes.watchStoreBy(() => postgresWriteProbe(sql))
    const lease = await waitForLock(config, url, { log: storeLog, probes })
    log.info({ epoch: lease.epoch }, 'this daemon is the active one: starting')
    return {
      engine: 'postgres',
      local,
      sql,
      lease,
      fence: tx => checkEpoch(tx, lease.epoch),
      close: async () => {
        await lease.release()
        await closeAll()
      },
    }
  } catch (err) {
    await closeAll()
    throw err
  }
}

/**
 * Takes the lock, or waits as a standby until it is ours when `[store] standby` says so. Without it a start on books
 * another daemon serves is refused naming that daemon: a second daemon started by mistake must not sit waiting to
 * take over live books. With the embedded node there is no standby: its channels and invoices live in one daemon's
 * data dir, so a second daemon could never take over its money; it refuses to start instead.
 */
async function waitForLock(config: Config, url: string, { log, probes }: OpenBooksDeps): Promise<ActiveLease> {
  const holder = lockHolder(os.hostname(), process.pid, new Date())
  const embedded = config.node.backend === 'embedded'
  const standby = config.store.standby && !embedded
  let told = false
  const lease = await acquireActiveLock({
    url,
    holder,
    waitForLock: standby,
    onBusy: () => {
      if (told || !standby) return
      told = true
      probes.set('start', false, standbyDetail)
      log.info('standby: another daemon holds the books; waiting for its lock')
    },
    onWaitError: err => log.warn({ err: { message: err.message } }, 'standby: could not ask PostgreSQL for the lock; trying again'),
  }).catch(err => {
    if ((err as { code?: string }).code === 'active_elsewhere') {
      const other = (err as Error).message
      throw new Error(
        embedded
          ? `${other}, and with [node] backend = "embedded" there is no standby (the embedded node is one process's): ` +
              'stop the other daemon, or use backend = "lnd" for a standby'
          : `${other}: stop it first, or start this one with [store] standby = true (RELAYPAY_STORE_STANDBY=true) to ` +
              'wait as its standby and take over when it stops',
      )
    }
    throw err
  })
  probes.set('start', false, 'starting (this daemon holds the books)')
  return lease
}

/**
 * What the daemon does when its lease is lost: it may no longer serve (another daemon may be taking over), so it
 * stops within `stopWithinMs` and exits non-zero; a supervisor restarts it, and it comes back as a standby.
 */
export function exitOnLeaseLost(lease: ActiveLease, stop: () => Promise<void>, log: Logger, stopWithinMs = 5000): void {
  void lease.lost.then(reason => {
    if (reason === 'released') return
    log.fatal({ reason }, 'lost the active-daemon lock: stopping; restart to serve as a standby')
    const forced = setTimeout(() => process.exit(3), stopWithinMs)
    stop().finally(() => {
      clearTimeout(forced)
      process.exit(3)
    })
  })
}
