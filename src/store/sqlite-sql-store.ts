// SqlStore on the daemon's one better-sqlite3 connection: a thin wrapper (statements prepared once per text and
// run synchronously, the answer handed back as a settled promise), so the embedded default keeps its speed.
//
// One connection has one transaction at a time, and a statement run while it is open becomes part of it. So while
// a transaction runs, every other call through this store waits its turn; and a transaction must finish within
// the task it started in (awaiting only `tx`, whose promises are already settled): one that waited on a timer or
// on I/O is rolled back and refused, because code that still uses the raw connection (rooms not yet ported) could
// otherwise have slipped its statements into it. Transactions begin IMMEDIATE (the write lock taken at BEGIN, so
// two processes never deadlock upgrading a read lock); read-only ones take no lock.
//
// `syncOffLoop` transactions (the wallet's group commit) commit with `synchronous = NORMAL` and then fdatasync the
// WAL on the thread pool (walSyncFor), the very sync SQLite would have made inside COMMIT; the store is free for
// others while that sync runs, and the transaction's promise settles after it.
import type Database from 'better-sqlite3'
import { walSyncFor, type WalSync } from './wal-sync.js'
import type { SqlParams, SqlRun, SqlStore, SqlTransaction, TransactionOptions } from './sql-store.js'

type Statement = Database.Statement<unknown[], unknown>

export interface SqliteSqlStoreOptions {
  /** How a `syncOffLoop` commit is made durable; default walSyncFor(db) (null: SQLite's own COMMIT is enough). */
  walSync?: WalSync | null
}

export function sqliteSqlStore(db: Database.Database, opts: SqliteSqlStoreOptions = {}): SqlStore {
  // Asked on first use: the connection's pragmas are set by whoever opened it, after this wrapper is made.
  let walSync: WalSync | null | undefined = opts.walSync
  const walSyncNow = () => (walSync === undefined ? (walSync = walSyncFor(db)) : walSync)
  // The level a `syncOffLoop` commit returns the connection to (walSyncFor syncs only for FULL or EXTRA).
  let strict: string | undefined
  const strictLevel = () => (strict ??= Number(db.pragma('synchronous', { simple: true })) === 3 ? 'EXTRA' : 'FULL')
  const statements = new Map<string, Statement>()
  const prepare = (sql: string): Statement => {
    let statement = statements.get(sql)
    if (!statement) {
      statement = db.prepare(sql)
      if (statements.size >= 2000) statements.clear() // texts come from the code; the bound guards built text
      statements.set(sql, statement)
    }
    return statement
  }
  // better-sqlite3 takes `?` values as arguments and `@name` values as one object. Written out per method rather
  // than through a helper that builds an argument array to spread: a payment runs about twenty statements.
  const direct = {
    many<T>(sql: string, params?: SqlParams): T[] {
      const statement = prepare(sql)
      return (params === undefined ? statement.all() : Array.isArray(params) ? statement.all(...params) : statement.all(params)) as T[]
    },
    one<T>(sql: string, params?: SqlParams): T | undefined {
      const statement = prepare(sql)
      return (params === undefined ? statement.get() : Array.isArray(params) ? statement.get(...params) : statement.get(params)) as T | undefined
    },
    run(sql: string, params?: SqlParams): SqlRun {
      const statement = prepare(sql)
      return { changes: (params === undefined ? statement.run() : Array.isArray(params) ? statement.run(...params) : statement.run(params)).changes }
    },
  }

  /** Set while a transaction is open; settles when it has ended. */
  let open: Promise<void> | null = null
  const settled = <T>(work: () => T): Promise<T> => {
    try {
      return Promise.resolve(work())
    } catch (err) {
      return Promise.reject(err)
    }
  }
  /** Runs `work` now when no transaction is open, else after the open ones have ended. */
  const outside = async <T>(work: () => T): Promise<T> => {
    while (open) await open
    return work()
  }
  const call = <T>(work: () => T): Promise<T> => (open ? outside(work) : settled(work))

  const ended = () => Promise.reject(new Error('the transaction has already ended'))
  const txExecutor = (isOpen: () => boolean, depth = 0): SqlTransaction => {
    const guard = <T>(work: () => T): Promise<T> => (isOpen() ? settled(work) : ended())
    // The statements without a closure per call (the money path's hot loop); the same as guard(() => direct.x).
    const tx: SqlTransaction = {
      engine: 'sqlite',
      many<T>(sql: string, params?: SqlParams): Promise<T[]> {
        if (!isOpen()) return ended()
        try {
          return Promise.resolve(direct.many<T>(sql, params))
        } catch (err) {
          return Promise.reject(err)
        }
      },
      one<T>(sql: string, params?: SqlParams): Promise<T | undefined> {
        if (!isOpen()) return ended()
        try {
          return Promise.resolve(direct.one<T>(sql, params))
        } catch (err) {
          return Promise.reject(err)
        }
      },
      run(sql: string, params?: SqlParams): Promise<SqlRun> {
        if (!isOpen()) return ended()
        try {
          return Promise.resolve(direct.run(sql, params))
        } catch (err) {
          return Promise.reject(err)
        }
      },
      exec: script => guard(() => void db.exec(script)),
      async savepoint<T>(work: (inner: SqlTransaction) => Promise<T>): Promise<T> {
        const name = `sp${depth + 1}`
        // SQLite rolls a whole transaction back by itself on some errors (I/O, disk full): a SAVEPOINT then would
        // open a new transaction outside this one, so nothing more runs.
        await guard(() => {
          if (!db.inTransaction) throw new Error('the transaction was rolled back by SQLite')
          prepare(`SAVEPOINT ${name}`).run()
        })
        let innerOpen = true
        try {
          const result = await work(txExecutor(() => innerOpen && isOpen(), depth + 1))
          innerOpen = false
          await guard(() => prepare(`RELEASE ${name}`).run())
          return result
        } catch (err) {
          innerOpen = false
          if (isOpen() && db.inTransaction) {
            prepare(`ROLLBACK TO ${name}`).run()
            prepare(`RELEASE ${name}`).run()
          }
          throw err
        }
      },
    }
    return tx
  }

  async function transaction<T>(work: (tx: SqlTransaction) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
    // A transaction begins at the start of an event-loop turn. Its `await`s let queued microtasks run between its
    // statements, and a microtask of code still on the raw connection would write into it — and be rolled back
    // with it, silently, if the transaction then fails (found by p27b: a payment recorded that way could vanish
    // after its caller was told). Node drains every microtask before an immediate callback runs, so a transaction
    // begun from one meets no microtask but those of its own chain.
    for (;;) {
      await new Promise<void>(resolve => setImmediate(resolve))
      if (!open) break
      while (open) await open
    }
    if (db.inTransaction) throw new Error('the connection is already inside a transaction opened outside this store')
    let end!: () => void
    open = new Promise(resolve => (end = resolve))
    let active = true
    let leftTheTask = false
    const marker = setImmediate(() => (leftTheTask = true))
    const sync = options.syncOffLoop && !options.readOnly ? walSyncNow() : null
    const level = sync ? strictLevel() : undefined
    if (sync) prepare('PRAGMA synchronous = NORMAL').run()
    let result: T
    try {
      prepare(options.readOnly ? 'BEGIN DEFERRED' : 'BEGIN IMMEDIATE').run()
      try {
        result = await work(txExecutor(() => active))
        if (leftTheTask) {
          throw new Error('a SQLite transaction awaited something besides its own statements; it was rolled back')
        }
      } catch (err) {
        if (db.inTransaction) prepare('ROLLBACK').run()
        throw err
      }
      prepare('COMMIT').run()
    } finally {
      // Every other writer keeps SQLite's own durable COMMIT.
      if (sync) prepare(`PRAGMA synchronous = ${level}`).run()
      active = false
      clearImmediate(marker)
      open = null
      end()
    }
    // Committed; nobody hears of it before it is on disk. A failed sync leaves it committed but not known durable.
    if (sync) await new Promise<void>((resolve, reject) => sync(error => (error ? reject(error) : resolve())))
    return result
  }

  return {
    engine: 'sqlite',
    many: (sql, params) => call(() => direct.many(sql, params)),
    one: (sql, params) => call(() => direct.one(sql, params)),
    run: (sql, params) => call(() => direct.run(sql, params)),
    transaction,
    exec: script => call(() => void db.exec(script)),
    // The connection belongs to whoever opened it (openStore); this wrapper only lets go of its statements.
    close: async () => {
      while (open) await open
      statements.clear()
    },
  }
}
