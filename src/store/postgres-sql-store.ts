// SqlStore on PostgreSQL through node-postgres (`pg`): a pool of sessions, each with its timeouts set at connect,
// BIGINT read as a JS number (refused above Number.MAX_SAFE_INTEGER rather than rounded), and transactions on one
// checked-out session with the isolation level in BEGIN (a SET TRANSACTION before BEGIN only warns).
import type pg from 'pg'
import { pgDriver } from './pg-driver.js'
import { pgValues, toPgStatement } from './placeholders.js'
import {
  retryDelayMs,
  sqlErrorKind,
  type Isolation,
  type SqlExecutor,
  type SqlParams,
  type SqlStore,
  type SqlTransaction,
  type TransactionOptions,
} from './sql-store.js'

export interface PostgresStoreOptions {
  url: string
  /** Sessions in the pool (default 10). */
  max?: number
  /** Longest a statement may run (default 5 s). */
  statementTimeoutMs?: number
  /** Longest a statement waits for a row or table lock (default 2 s). */
  lockTimeoutMs?: number
  /**
   * A session idle inside a transaction this long is ended by the server, freeing its locks (default 6 s). Idle here
   * means the server waits for the daemon's next statement, which is also what a busy host looks like: with every
   * core taken (load 24 on two cores) the daemon's main thread stood still for more than 3 s inside a transaction,
   * the server ended it, and the request was answered "the database failed". A frozen daemon (SIGSTOP) must still
   * free its row locks, and the epoch row it holds FOR SHARE, in time for a standby's takeover: the standby takes
   * the lock 4–4.5 s after the freeze (the lock session's idle_session_timeout, then its next try), and its epoch
   * bump waits up to 5 s for this, so it serves about 6.5 s after the freeze, within the 10 s a takeover may take.
   */
  idleInTransactionTimeoutMs?: number
  /** Told about errors of idle sessions (a restarted server, a dropped connection); the pool replaces them. */
  onError?: (err: Error) => void
  applicationName?: string
}

const INT8 = 20

/** BIGINT as a JS number: every msat amount and unix-ms time fits; a value that would lose digits is an error. */
export function parseInt8(text: string): number {
  const value = Number(text)
  if (!Number.isSafeInteger(value)) throw new RangeError(`BIGINT ${text} is beyond Number.MAX_SAFE_INTEGER`)
  return value
}

const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8 && format !== 'binary' ? parseInt8 : pgDriver().types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
}

class CommitUnknown extends Error {
  override readonly name = 'CommitUnknown'
  readonly code = 'commit_outcome_unknown'
}

/** Distinct statement texts prepared by name per session; the daemon's own are a few hundred. */
const maxNamedStatements = 2000

const beginFor = (isolation: Isolation, readOnly: boolean) =>
  `BEGIN ISOLATION LEVEL ${isolation.toUpperCase()}${readOnly ? ' READ ONLY' : ''}`

export function postgresSqlStore(opts: PostgresStoreOptions): SqlStore {
  const settings = {
    statement_timeout: opts.statementTimeoutMs ?? 5000,
    lock_timeout: opts.lockTimeoutMs ?? 2000,
    idle_in_transaction_session_timeout: opts.idleInTransactionTimeoutMs ?? 6000,
  }
  const pool = new (pgDriver().Pool)({
    connectionString: opts.url,
    max: opts.max ?? 10,
    keepAlive: true,
    types,
    application_name: opts.applicationName ?? 'relaypay',
    options: Object.entries(settings)
      .map(([key, value]) => `-c ${key}=${value}`)
      .join(' '),
  })
  // Every session reports its errors once, through its own listener: a running query also rejects with them, and
  // an idle one is dropped from the pool. The pool re-emits an idle session's error, and an error event nobody
  // listens to would crash the process, so the pool has a listener too (the report was made already).
  pool.on('connect', client => client.on('error', err => opts.onError?.(err)))
  pool.on('error', () => {})

  // Each statement is prepared once per session under a name of its own and then only bound and run: unnamed, the
  // server parsed and planned every one of a payment's statements again (its CPU per payment matched the daemon's).
  // A bounded set: a text past it (one built with a varying number of values) runs unnamed, as before.
  const names = new Map<string, string>()
  const nameOf = (text: string): string | undefined => {
    let name = names.get(text)
    if (name === undefined && names.size < maxNamedStatements) names.set(text, (name = `relaypay_${names.size}`))
    return name
  }
  const query = async (client: pg.Pool | pg.PoolClient, sql: string, params: SqlParams | undefined) => {
    const statement = toPgStatement(sql)
    const name = nameOf(statement.text)
    return client.query({ ...(name ? { name } : {}), text: statement.text, values: pgValues(statement, params) })
  }
  const on = (client: pg.Pool | pg.PoolClient): SqlExecutor => ({
    engine: 'postgres',
    many: async <T>(sql: string, params?: SqlParams) => (await query(client, sql, params)).rows as T[],
    one: async <T>(sql: string, params?: SqlParams) => (await query(client, sql, params)).rows[0] as T | undefined,
    run: async (sql: string, params?: SqlParams) => ({ changes: (await query(client, sql, params)).rowCount ?? 0 }),
    // No values: the simple query protocol, which takes several statements in one text.
    exec: async (script: string) => void (await client.query(script)),
  })

  async function attempt<T>(work: (tx: SqlTransaction) => Promise<T>, begin: string): Promise<T> {
    const client = await pool.connect()
    let broken: Error | undefined
    let active = true
    const guarded = on(client)
    const executor = (isOpen: () => boolean, depth: number): SqlTransaction => ({
      engine: 'postgres',
      many: (sql, params) => (isOpen() ? guarded.many(sql, params) : ended()),
      one: (sql, params) => (isOpen() ? guarded.one(sql, params) : ended()),
      run: (sql, params) => (isOpen() ? guarded.run(sql, params) : ended()),
      exec: script => (isOpen() ? guarded.exec(script) : ended()),
      async savepoint<S>(inner: (tx: SqlTransaction) => Promise<S>): Promise<S> {
        if (!isOpen()) return ended()
        const name = `sp${depth + 1}`
        await client.query(`SAVEPOINT ${name}`)
        let innerOpen = true
        try {
          const result = await inner(executor(() => innerOpen && isOpen(), depth + 1))
          innerOpen = false
          await client.query(`RELEASE SAVEPOINT ${name}`)
          return result
        } catch (err) {
          innerOpen = false
          // A serialization failure or deadlock must end the whole attempt (it is retried from BEGIN).
          const kind = sqlErrorKind(err)
          if (kind === 'serialization' || kind === 'deadlock' || kind === 'connection' || !isOpen()) throw err
          await client.query(`ROLLBACK TO SAVEPOINT ${name}`)
          await client.query(`RELEASE SAVEPOINT ${name}`)
          throw err
        }
      },
    })
    const tx = executor(() => active, 0)
    try {
      await client.query(begin)
      let result: T
      try {
        result = await work(tx)
      } catch (err) {
        active = false
        await client.query('ROLLBACK').catch((rollbackError: Error) => (broken = rollbackError))
        throw err
      }
      active = false
      try {
        await client.query('COMMIT')
      } catch (err) {
        // The server refused the commit (a serialization failure found at COMMIT): nothing was applied.
        if (err instanceof pgDriver().DatabaseError && sqlErrorKind(err) !== 'connection') throw err
        // The session went away with the COMMIT on the wire: it may or may not have been applied. Never retried
        // here; the caller's exactly-once key (processed requests, unique references) decides on a new attempt.
        broken = err as Error
        throw new CommitUnknown(`the connection was lost during COMMIT; the transaction may have been applied: ${(err as Error).message}`)
      }
      return result
    } catch (err) {
      if (sqlErrorKind(err) === 'connection') broken = err as Error
      throw err
    } finally {
      active = false
      client.release(broken)
    }
  }

  return {
    ...on(pool),
    async transaction<T>(work: (tx: SqlTransaction) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
      const begin = beginFor(options.isolation ?? 'read committed', options.readOnly ?? false)
      const retries = options.retries ?? 3
      for (let tries = 1; ; tries++) {
        try {
          return await attempt(work, begin)
        } catch (err) {
          const kind = sqlErrorKind(err)
          if ((kind !== 'serialization' && kind !== 'deadlock') || tries > retries) throw err
          await new Promise(resolve => setTimeout(resolve, retryDelayMs(tries)))
        }
      }
    },
    close: () => pool.end(),
  }
}

function ended(): Promise<never> {
  return Promise.reject(new Error('the transaction has already ended'))
}
