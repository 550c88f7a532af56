// Exactly one active daemon per PostgreSQL database (issue 27, "Hot standby"; docs/postgres.md has the design).
// The active one holds a session advisory lock on a connection of its own — never a pooled one, whose session could
// be handed to someone else or closed while idle — and proves each second that it still has it. It fails closed:
// when the session is gone, or when no heartbeat sent in the last 3 s has come back (monotonic clock, not counting
// time its own thread stood still), it is told to stop, even where the server might still count it as the holder. A frozen holder (SIGSTOP, a stalled VM) sends
// nothing, so the server's idle_session_timeout ends its session and frees the lock for a standby. Standbys try the
// lock every 500 ms. The one that gets it bumps the fencing epoch (leader_lease, schema/sql/080) before it serves,
// and every money transaction starts with `checkEpoch`, which reads the epoch FOR SHARE: a daemon that lost the
// lock without noticing yet finds a newer epoch and writes nothing, and the bump waits for transactions in flight.
// Migrations run before the lock is sought (they hold a lock of their own), so the lease table exists.
import type pg from 'pg'
import { pgDriver } from './pg-driver.js'
import type { SqlExecutor } from './sql-store.js'

/** Two-int key of the active-daemon lock ("rpay", 2); the migration lock is ("rpay", 1). */
export const activeLockKey = [0x72706179, 2] as const

export interface ActiveLockOptions {
  url: string
  /** Shown in leader_lease.holder: host, pid, start time. */
  holder: string
  pollMs?: number
  heartbeatMs?: number
  /** No heartbeat answered for this long (counted from when it was sent) → lost. */
  failAfterMs?: number
  /** The server ends this session when it is idle this long: how a frozen holder loses the lock. */
  idleSessionTimeoutMs?: number
  /**
   * Client-side limit on the statements that take the lock (the try, the epoch bump). Not on the heartbeats: the
   * driver's timer fires before a stalled thread reads the answer waiting in its socket, so a busy holder would
   * give the lock up; `failAfterMs`, which discounts the time the thread stood still, judges them instead.
   */
  queryTimeoutMs?: number
  /** How long the epoch bump may wait for money transactions holding the row FOR SHARE. */
  bumpLockTimeoutMs?: number
  /** Stops waiting for the lock (a daemon shutting down while standby). */
  signal?: AbortSignal
  /** Told about errors while waiting (the server unreachable, say); waiting goes on. */
  onWaitError?: (err: Error) => void
  /** Told each time the lock was found held by another daemon. */
  onBusy?: () => void
  /** false: one try only; a lock held elsewhere is refused with ActiveElsewhere instead of waited for. */
  waitForLock?: boolean
}

export interface ActiveLease {
  /** The fencing epoch this holder set when it took the lock. */
  epoch: number
  /** Settles once, with the reason, when the lock is lost or no longer proven: the holder must stop serving. */
  lost: Promise<string>
  /** Gives the lock up (graceful stop): the session ends and a standby takes over at its next try. */
  release(): Promise<void>
}

/** A money transaction of a daemon that is no longer the active one (the store is beneath the bus: its caller turns
 *  this into an OperationError). */
export class NotActive extends Error {
  override readonly name = 'NotActive'
  readonly code = 'not_active'
}

/** The lock is held by another daemon and this one was told not to wait for it. */
export class ActiveElsewhere extends Error {
  override readonly name = 'ActiveElsewhere'
  readonly code = 'active_elsewhere'
}

/** A statement with the driver's per-query timeout (node-postgres reads `query_timeout`; its types omit it). */
const timed = (text: string, values: unknown[], ms: number): pg.QueryConfig => Object.assign({ text, values }, { query_timeout: ms })

/** Waits until this process holds the active-daemon lock, then bumps the epoch and keeps proving the lock. */
export async function acquireActiveLock(opts: ActiveLockOptions): Promise<ActiveLease> {
  const pollMs = opts.pollMs ?? 500
  const queryTimeoutMs = opts.queryTimeoutMs ?? 1500
  for (;;) {
    if (opts.signal?.aborted) throw new Error('stopped while waiting for the active-daemon lock')
    let client: pg.Client | undefined
    try {
      client = new (pgDriver().Client)({
        connectionString: opts.url,
        keepAlive: true,
        application_name: 'relaypay active lock',
        options: `-c idle_session_timeout=${opts.idleSessionTimeoutMs ?? 4000} -c lock_timeout=${opts.bumpLockTimeoutMs ?? 5000}`,
      })
      let sessionError: Error | undefined
      client.on('error', err => (sessionError = err))
      await client.connect()
      // Poll on this one session until the lock is ours; a broken session is replaced by the outer loop.
      for (;;) {
        if (sessionError) throw sessionError
        const { rows } = await client.query(timed('SELECT pg_try_advisory_lock($1, $2) AS held', [...activeLockKey], queryTimeoutMs))
        if (rows[0].held === true) return await hold(client, opts, queryTimeoutMs)
        opts.onBusy?.()
        if (opts.waitForLock === false) throw new ActiveElsewhere('another daemon holds the active-daemon lock')
        await sleep(pollMs, opts.signal)
        if (opts.signal?.aborted) throw new Error('stopped while waiting for the active-daemon lock')
      }
    } catch (err) {
      await client?.end().catch(() => {})
      if (opts.signal?.aborted || err instanceof ActiveElsewhere) throw err
      opts.onWaitError?.(err as Error)
      await sleep(pollMs, opts.signal)
    }
  }
}

async function hold(client: pg.Client, opts: ActiveLockOptions, queryTimeoutMs: number): Promise<ActiveLease> {
  const heartbeatMs = opts.heartbeatMs ?? 1000
  const failAfterMs = opts.failAfterMs ?? 3000
  const { rows } = await client.query(
    timed(
      `INSERT INTO leader_lease (id, epoch, holder, taken_at) VALUES (1, 1, $1, $2)
       ON CONFLICT (id) DO UPDATE SET epoch = leader_lease.epoch + 1, holder = EXCLUDED.holder, taken_at = EXCLUDED.taken_at
       RETURNING epoch::text AS epoch`,
      [opts.holder, Date.now()],
      queryTimeoutMs,
    ),
  )
  const epoch = Number(rows[0].epoch)
  let tellLost!: (reason: string) => void
  const lost = new Promise<string>(resolve => (tellLost = resolve))
  let done = false
  /** performance.now() at which the newest heartbeat that came back was sent. */
  let provenAt = performance.now()
  const stop = (reason: string) => {
    if (done) return
    done = true
    clearInterval(beat)
    tellLost(reason)
    // Ending the session frees the lock at once if the server still counts it as ours.
    client.end().catch(() => {})
  }
  client.on('error', err => stop(`the lock session failed: ${err.message}`))
  client.on('end', () => stop('the lock session ended'))
  let tickedAt = performance.now()
  const stale = () => performance.now() - provenAt > failAfterMs
  const beat = setInterval(() => {
    const now = performance.now()
    // A tick that comes late means this thread stood still (busy, or the process frozen): an answer may be sitting
    // unread in the socket, so that time is not counted against the server. A holder frozen long enough still
    // loses: the server's idle_session_timeout ends its session, which this client reads as soon as it runs again.
    const stood = now - tickedAt - heartbeatMs
    tickedAt = now
    if (stood > 0) provenAt += stood
    if (stale()) {
      // Timers run before the answers waiting on sockets are read: judge again once this turn has read them.
      setImmediate(() => {
        if (stale()) stop(`no heartbeat answered for ${failAfterMs} ms`)
      })
      return
    }
    const sentAt = performance.now()
    client.query('SELECT 1').then(
      () => (provenAt = Math.max(provenAt, sentAt)),
      (err: Error) => stop(`heartbeat failed: ${err.message}`),
    )
  }, heartbeatMs)
  return {
    epoch,
    lost,
    async release() {
      if (done) return
      done = true
      clearInterval(beat)
      tellLost('released')
      await client.query(timed('SELECT pg_advisory_unlock($1, $2)', [...activeLockKey], queryTimeoutMs)).catch(() => {})
      await client.end().catch(() => {})
    },
  }
}

/**
 * The first statement of a money transaction on PostgreSQL: refuses (NotActive) when another daemon has taken over
 * since `epoch`. The share lock lasts to the end of the transaction, so a takeover's bump waits for it.
 */
export async function checkEpoch(tx: SqlExecutor, epoch: number): Promise<void> {
  const row = await tx.one<{ epoch: number }>('SELECT epoch FROM leader_lease WHERE id = 1 FOR SHARE')
  if (!row || row.epoch !== epoch) {
    throw new NotActive(`this daemon is no longer the active one (epoch ${epoch}, now ${row?.epoch ?? 'none'})`)
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise(resolve => {
    const timer = setTimeout(done, ms)
    function done() {
      clearTimeout(timer)
      signal?.removeEventListener('abort', done)
      resolve()
    }
    signal?.addEventListener('abort', done, { once: true })
  })
}
