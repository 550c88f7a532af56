// What the active-daemon lock's thread and the main thread tell each other, and the timings the lock runs on.

/** Two-int key of the active-daemon lock ("rpay", 2); the migration lock is ("rpay", 1). */
export const activeLockKey = [0x72706179, 2] as const

/** The lock is held by another daemon and this one was told not to wait for it. */
export class ActiveElsewhere extends Error {
  override readonly name = 'ActiveElsewhere'
  readonly code = 'active_elsewhere'
}

/** How a daemon names itself in leader_lease.holder: its host, its pid, when it started. */
export function lockHolder(host: string, pid: number, since: Date): string {
  return `${host} pid ${pid} since ${since.toISOString()}`
}

/** The host and pid of a holder named by lockHolder; undefined for any other text. */
export function holderProcess(holder: string): { host: string; pid: number } | undefined {
  const match = /^(.+) pid (\d+) since \S+$/.exec(holder)
  return match ? { host: match[1]!, pid: Number(match[2]) } : undefined
}

export interface LockTimings {
  url: string
  holder: string
  pollMs: number
  heartbeatMs: number
  failAfterMs: number
  idleSessionTimeoutMs: number
  queryTimeoutMs: number
  bumpLockTimeoutMs: number
  waitForLock: boolean
  mainStallLimitMs: number
}

export type ToLockThread = 'alive' | 'stop' | 'release'

export type FromLockThread =
  | { busy: true }
  | { waitError: string }
  | { held: number }
  | { lost: string }
  | { released: true }
  | { failed: { message: string; code?: string } }
