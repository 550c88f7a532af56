// The engine-neutral way into the database: the same async calls on SQLite (better-sqlite3) and on
// PostgreSQL (pg), so a room's storage is written once and runs on either. SQL text is the shared subset both
// engines speak (SQLite ≥ 3.35 has RETURNING and ON CONFLICT); parameters are `?` with an array or `@name` with an
// object, on both. Column aliases that must keep capitals are quoted (`AS "btcRate"`): PostgreSQL folds unquoted
// names to lower case.

export type SqlEngine = 'sqlite' | 'postgres'

/** `?` placeholders take an array, `@name` placeholders an object. */
export type SqlParams = readonly unknown[] | Readonly<Record<string, unknown>>

export interface SqlRun {
  /** Rows the statement inserted, updated or deleted. */
  changes: number
}

/** What a statement can be run on: the store itself, or the connection of an open transaction. */
export interface SqlExecutor {
  readonly engine: SqlEngine
  /** Every row of a query (or of a statement with RETURNING). */
  many<T = Record<string, unknown>>(sql: string, params?: SqlParams): Promise<T[]>
  /** The first row, or undefined. */
  one<T = Record<string, unknown>>(sql: string, params?: SqlParams): Promise<T | undefined>
  /** A statement without result rows. */
  run(sql: string, params?: SqlParams): Promise<SqlRun>
  /** A script of several statements without parameters (migrations). */
  exec(script: string): Promise<void>
}

/** The connection of an open transaction. */
export interface SqlTransaction extends SqlExecutor {
  /**
   * Runs `work` in a savepoint of this transaction: when it throws, only its own statements are rolled back and
   * the error is thrown on; the transaction goes on. Savepoints nest.
   */
  savepoint<T>(work: (tx: SqlTransaction) => Promise<T>): Promise<T>
}

export type Isolation = 'read committed' | 'repeatable read' | 'serializable'

export interface TransactionOptions {
  /**
   * PostgreSQL's isolation level (default read committed: money paths use guarded single-row UPDATEs and row
   * locks; docs/postgres.md has the table per path). SQLite is always serializable: one writer at a time.
   */
  isolation?: Isolation
  readOnly?: boolean
  /**
   * How many times the whole function is run again after a serialization failure (40001) or a deadlock (40P01),
   * with jittered backoff. Default 3. The function must therefore be safe to run again: only database work
   * inside, nothing sent anywhere before the commit.
   */
  retries?: number
  /**
   * SQLite in WAL mode with `synchronous = FULL`: commit without the fsync inside COMMIT and fdatasync the WAL on
   * libuv's thread pool instead, settling only once that sync is done (the event loop runs meanwhile; another
   * caller may read the rows before they are durable, and whatever it writes lands later in the same WAL). For the
   * wallet's group commit. Ignored elsewhere (PostgreSQL syncs in COMMIT, and groups commits itself).
   */
  syncOffLoop?: boolean
}

export interface SqlStore extends SqlExecutor {
  /**
   * Runs `work` in one transaction on one connection and commits when it resolves; rolls back when it throws.
   * Inside, use only `tx`: the store itself waits (SQLite) or is another connection (PostgreSQL). `work` awaits
   * nothing but `tx` — on SQLite a transaction that waits on anything else is rolled back and refused, since the
   * one connection cannot serve others while it is open.
   */
  transaction<T>(work: (tx: SqlTransaction) => Promise<T>, options?: TransactionOptions): Promise<T>
  close(): Promise<void>
}

export type SqlErrorKind =
  | 'unique'
  | 'check'
  | 'foreign_key'
  | 'not_null'
  | 'serialization'
  | 'deadlock'
  | 'lock_timeout'
  | 'statement_timeout'
  | 'unavailable'
  | 'connection'

const postgresKinds: Record<string, SqlErrorKind> = {
  '23505': 'unique',
  '23514': 'check',
  '23503': 'foreign_key',
  '23502': 'not_null',
  '40001': 'serialization',
  '40P01': 'deadlock',
  '55P03': 'lock_timeout',
  '57014': 'statement_timeout', // query_canceled: statement_timeout, or a cancel request
  '53000': 'unavailable', // insufficient_resources
  '53100': 'unavailable', // disk_full
  '53200': 'unavailable', // out_of_memory
  '53300': 'unavailable', // too_many_connections
  '57P01': 'connection', // admin shutdown
  '57P05': 'connection', // idle session timeout
  '25P03': 'connection', // idle in transaction timeout
  '57P02': 'connection', // the server crashed: every session ends
  '57P03': 'connection', // the server is starting or shutting down
  '08006': 'connection',
  '08003': 'connection',
  // node-postgres and Node's socket: the session or the server went away with no answer from the server
  ECONNREFUSED: 'connection',
  ECONNRESET: 'connection',
  EPIPE: 'connection',
  ETIMEDOUT: 'connection',
}

/** node-postgres's own errors for a session that is gone carry no code, only these words. */
const lostSession = /^(Connection terminated|Client has encountered a connection error|Client was closed|Query read timeout)/

const sqliteKinds: Record<string, SqlErrorKind> = {
  SQLITE_CONSTRAINT_UNIQUE: 'unique',
  SQLITE_CONSTRAINT_PRIMARYKEY: 'unique',
  SQLITE_CONSTRAINT_CHECK: 'check',
  SQLITE_CONSTRAINT_FOREIGNKEY: 'foreign_key',
  SQLITE_CONSTRAINT_NOTNULL: 'not_null',
  SQLITE_BUSY: 'lock_timeout',
}

/** What a database error means, the same on both engines; undefined for anything else. */
export function sqlErrorKind(err: unknown): SqlErrorKind | undefined {
  const code = (err as { code?: unknown } | null)?.code
  if (typeof code !== 'string') return err instanceof Error && lostSession.test(err.message) ? 'connection' : undefined
  return postgresKinds[code] ?? sqliteKinds[code] ?? (/^08/.test(code) ? 'connection' : undefined)
}

/** Kinds that say the database could not do the work in time or at all, whatever the work was. */
const faultKinds = new Set<SqlErrorKind | undefined>(['connection', 'lock_timeout', 'statement_timeout', 'unavailable'])

/**
 * A fault of the database rather than of the operation: the session or the server went away, a COMMIT's answer was
 * lost (`commit_outcome_unknown`), this daemon is no longer the active one (`not_active`), or the server was too slow
 * or short of resources to do the work (a lock or statement timeout, a server out of connections or disk — as under
 * a crash recovery on a loaded host, where a payment met a statement timeout and was answered "internal error"). The
 * transaction that met it applied nothing or, for a lost COMMIT, may have; earlier transactions of the same operation
 * stand. So the caller is told that the outcome is unknown, never that nothing happened.
 */
export function isStoreFault(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code
  return code === 'commit_outcome_unknown' || code === 'not_active' || faultKinds.has(sqlErrorKind(err))
}

/** Delay before retry `attempt` (1-based): 50 ms doubling to at most 1 s, each ±50 % at random (as LND does). */
export function retryDelayMs(attempt: number, random: () => number = Math.random): number {
  const base = Math.min(1000, 50 * 2 ** (attempt - 1))
  return Math.round(base * (0.5 + random()))
}
