// The active-daemon lock's session itself, run on the lock's own thread (active-lock-worker.ts): it connects, tries
// the lock until it is ours, bumps the fencing epoch and proves the lock each second. Nothing here touches the
// daemon's main thread, so a main thread that stands still for seconds (start-up, a large read, a long GC, a busy
// machine) does not stop the heartbeats.
import os from 'node:os'
import type pg from 'pg'
import { pgDriver } from './pg-driver.js'
import { activeLockKey, ActiveElsewhere, holderProcess, type LockTimings } from './active-lock-contract.js'

/**
 * How long a start that may not wait (not a standby) still waits for a lock whose holder is a dead process of this
 * host: its session is being ended, and the server frees the lock once its backend reads the closed socket (on a
 * busy machine, not always before a restart on the same books asks).
 */
const deadHolderGraceMs = 15_000

/** Whether `holder` names a process of this host that no longer runs. */
function deadLocalHolder(holder: string): boolean {
  const named = holderProcess(holder)
  if (!named || named.host !== os.hostname() || named.pid === process.pid) return false
  try {
    process.kill(named.pid, 0)
    return false
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH'
  }
}

export interface SessionEvents {
  onBusy(): void
  onWaitError(message: string): void
}

export interface HeldSession {
  epoch: number
  lost: Promise<string>
  /** Ends the session because of `reason` (settles `lost` with it). */
  drop(reason: string): void
  release(): Promise<void>
}

/** A statement with the driver's per-query timeout (node-postgres reads `query_timeout`; its types omit it). */
const timed = (text: string, values: unknown[], ms: number): pg.QueryConfig => Object.assign({ text, values }, { query_timeout: ms })

/** Waits until this process holds the active-daemon lock, then bumps the epoch and keeps proving the lock. */
export async function takeLock(t: LockTimings, events: SessionEvents, signal: AbortSignal): Promise<HeldSession> {
  const started = performance.now()
  for (;;) {
    if (signal.aborted) throw new Error('stopped while waiting for the active-daemon lock')
    let client: pg.Client | undefined
    try {
      client = new (pgDriver().Client)({
        connectionString: t.url,
        keepAlive: true,
        application_name: 'relaypay active lock',
        options: `-c idle_session_timeout=${t.idleSessionTimeoutMs} -c lock_timeout=${t.bumpLockTimeoutMs}`,
      })
      let sessionError: Error | undefined
      client.on('error', err => (sessionError = err))
      await client.connect()
      // Poll on this one session until the lock is ours; a broken session is replaced by the outer loop.
      for (;;) {
        if (sessionError) throw sessionError
        const { rows } = await client.query(timed('SELECT pg_try_advisory_lock($1, $2) AS held', [...activeLockKey], t.queryTimeoutMs))
        if (rows[0].held === true) return await hold(client, t)
        events.onBusy()
        if (!t.waitForLock) {
          const holder = await lastHolder(client, t)
          if (!deadLocalHolder(holder) || performance.now() - started > deadHolderGraceMs) {
            throw new ActiveElsewhere(`another daemon holds these books (${holder})`)
          }
        }
        await sleep(t.pollMs, signal)
        if (signal.aborted) throw new Error('stopped while waiting for the active-daemon lock')
      }
    } catch (err) {
      await client?.end().catch(() => {})
      if (signal.aborted || err instanceof ActiveElsewhere) throw err
      events.onWaitError((err as Error).message)
      await sleep(t.pollMs, signal)
    }
  }
}

/** Who took the lock last (host, pid, since when): the holder now, while the lock is held elsewhere. */
async function lastHolder(client: pg.Client, t: LockTimings): Promise<string> {
  const { rows } = await client
    .query(timed('SELECT holder FROM leader_lease WHERE id = 1', [], t.queryTimeoutMs))
    .catch(() => ({ rows: [] as { holder: string }[] }))
  return (rows[0] as { holder?: string } | undefined)?.holder ?? 'holder not recorded yet'
}

async function hold(client: pg.Client, t: LockTimings): Promise<HeldSession> {
  const { rows } = await client.query(
    timed(
      `INSERT INTO leader_lease (id, epoch, holder, taken_at) VALUES (1, 1, $1, $2)
       ON CONFLICT (id) DO UPDATE SET epoch = leader_lease.epoch + 1, holder = EXCLUDED.holder, taken_at = EXCLUDED.taken_at
       RETURNING epoch::text AS epoch`,
      [t.holder, Date.now()],
      t.queryTimeoutMs,
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
  const stale = () => performance.now() - provenAt > t.failAfterMs
  const beat = setInterval(() => {
    const now = performance.now()
    // This thread only sends heartbeats, but the process can still be descheduled or frozen. A tick that comes late
    // means the thread stood still: an answer may be sitting unread in the socket, so that time is not counted
    // against the server. A holder frozen long enough still loses: the server's idle_session_timeout ends its
    // session, which this client reads as soon as it runs again.
    const stood = now - tickedAt - t.heartbeatMs
    tickedAt = now
    if (stood > 0) provenAt += stood
    if (stale()) {
      // Timers run before the answers waiting on sockets are read: judge again once this turn has read them.
      setImmediate(() => {
        if (stale()) stop(`no heartbeat answered for ${t.failAfterMs} ms`)
      })
      return
    }
    const sentAt = performance.now()
    client.query('SELECT 1').then(
      () => (provenAt = Math.max(provenAt, sentAt)),
      (err: Error) => stop(`heartbeat failed: ${err.message}`),
    )
  }, t.heartbeatMs)
  return {
    epoch,
    lost,
    drop: stop,
    async release() {
      if (done) return
      done = true
      clearInterval(beat)
      tellLost('released')
      await client.query(timed('SELECT pg_advisory_unlock($1, $2)', [...activeLockKey], t.queryTimeoutMs)).catch(() => {})
      await client.end().catch(() => {})
    },
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise(resolve => {
    const timer = setTimeout(done, ms)
    function done() {
      clearTimeout(timer)
      signal.removeEventListener('abort', done)
      resolve()
    }
    signal.addEventListener('abort', done, { once: true })
  })
}
