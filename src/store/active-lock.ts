// Exactly one active daemon per PostgreSQL database (docs/postgres.md has the design). The active one holds a session
// advisory lock on a connection of its own — never a pooled one, whose session could be handed to someone else or
// closed while idle — and proves each second that it still has it. That session lives on a thread of its own
// (active-lock-worker.ts): a main thread that stands still for seconds (start-up under load, a large read, a GC
// pause, both cores taken by other work) used to miss its heartbeats, PostgreSQL's idle_session_timeout ended the
// session and the only active daemon stepped down. The lock fails closed all the same: when the session is gone, or
// when no heartbeat sent in the last 3 s has come back, it is told to stop, even where the server might still count it
// as the holder. A frozen holder (SIGSTOP, a stalled VM) sends nothing from any thread, so the server's
// idle_session_timeout ends its session and frees the lock for a standby; a main thread that has not turned for 30 s
// (a loop that never ends) gives the lock up too. Standbys try the lock every 500 ms. The one that gets it bumps the
// fencing epoch (leader_lease, schema/sql/080) before it serves, and every money transaction starts with
// `checkEpoch`, which reads the epoch FOR SHARE: a daemon that lost the lock without noticing yet finds a newer epoch
// and writes nothing, and the bump waits for transactions in flight. Migrations run before the lock is sought (they
// hold a lock of their own), so the lease table exists.
import { Worker } from 'node:worker_threads'
import { smallWorker } from '../threads/index.js'
import { ActiveElsewhere, activeLockKey, lockHolder, type FromLockThread, type LockTimings, type ToLockThread } from './active-lock-contract.js'
import type { SqlExecutor } from './sql-store.js'

export { ActiveElsewhere, activeLockKey, lockHolder }

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
   * driver's timer fires before a descheduled thread reads the answer waiting in its socket, so a busy holder would
   * give the lock up; `failAfterMs`, which discounts the time the thread stood still, judges them instead.
   */
  queryTimeoutMs?: number
  /** How long the epoch bump may wait for money transactions holding the row FOR SHARE. */
  bumpLockTimeoutMs?: number
  /** A main thread that has not turned for this long gives the lock up (it could not serve anyway). */
  mainStallLimitMs?: number
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

/** Waits until this process holds the active-daemon lock, then bumps the epoch and keeps proving the lock. */
export function acquireActiveLock(opts: ActiveLockOptions): Promise<ActiveLease> {
  const timings: LockTimings = {
    url: opts.url,
    holder: opts.holder,
    pollMs: opts.pollMs ?? 500,
    heartbeatMs: opts.heartbeatMs ?? 1000,
    failAfterMs: opts.failAfterMs ?? 3000,
    idleSessionTimeoutMs: opts.idleSessionTimeoutMs ?? 4000,
    queryTimeoutMs: opts.queryTimeoutMs ?? 1500,
    bumpLockTimeoutMs: opts.bumpLockTimeoutMs ?? 5000,
    waitForLock: opts.waitForLock ?? true,
    mainStallLimitMs: opts.mainStallLimitMs ?? 30_000,
  }
  const worker = new Worker(new URL('./active-lock-worker.js', import.meta.url), { workerData: timings, resourceLimits: smallWorker })
  const tell = (message: ToLockThread) => worker.postMessage(message)
  // The main thread's sign of life for the lock thread's watchdog; it must not keep a stopping process alive.
  const alive = setInterval(() => tell('alive'), timings.heartbeatMs)
  alive.unref()
  const onAbort = () => tell('stop')
  opts.signal?.addEventListener('abort', onAbort, { once: true })
  if (opts.signal?.aborted) onAbort()

  let tellLost!: (reason: string) => void
  const lost = new Promise<string>(resolve => (tellLost = resolve))
  let released: (() => void) | undefined
  let ended = false
  const end = () => {
    if (ended) return
    ended = true
    clearInterval(alive)
    opts.signal?.removeEventListener('abort', onAbort)
    void worker.terminate()
  }

  return new Promise<ActiveLease>((resolve, reject) => {
    let holding = false
    const gone = (reason: string) => {
      if (holding) tellLost(reason)
      else reject(new Error(reason))
      released?.()
      end()
    }
    worker.on('error', err => gone(`the active-lock thread failed: ${err.message}`))
    worker.on('exit', code => gone(`the active-lock thread exited (code ${code})`))
    worker.on('message', (message: FromLockThread) => {
      if ('busy' in message) opts.onBusy?.()
      else if ('waitError' in message) opts.onWaitError?.(new Error(message.waitError))
      else if ('failed' in message) {
        const { message: text, code } = message.failed
        reject(code === 'active_elsewhere' ? new ActiveElsewhere(text) : Object.assign(new Error(text), code ? { code } : {}))
        end()
      } else if ('held' in message) {
        holding = true
        resolve({
          epoch: message.held,
          lost,
          release: async () => {
            if (ended) return
            tellLost('released')
            await new Promise<void>(done => {
              released = done
              tell('release')
            })
            end()
          },
        })
      } else if ('lost' in message) {
        tellLost(message.lost)
        end()
      } else if ('released' in message) {
        released?.()
      }
    })
  })
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
