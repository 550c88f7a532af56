// The active-daemon lock's own thread (started by active-lock.ts). It holds the lock session and its heartbeats, so
// that they go on while the main thread is busy, and tells the main thread what happens: busy, a wait error, held
// (with the epoch), lost (with the reason), released. It also watches the main thread: one that has not turned for
// `mainStallLimitMs` (a loop that never ends) gives the lock up, so a daemon that can no longer serve cannot hold it.
import { parentPort, workerData } from 'node:worker_threads'
import type { LockTimings, FromLockThread, ToLockThread } from './active-lock-contract.js'
import { takeLock, type HeldSession } from './active-lock-session.js'

const timings = workerData as LockTimings
const port = parentPort!
const say = (message: FromLockThread) => port.postMessage(message)
const stopWaiting = new AbortController()
let held: HeldSession | undefined
let mainSeenAt = performance.now()

port.on('message', (message: ToLockThread) => {
  if (message === 'alive') mainSeenAt = performance.now()
  else if (message === 'stop') stopWaiting.abort()
  else if (message === 'release') void (held ? held.release() : Promise.resolve()).then(() => say({ released: true }))
})

const watchdog = setInterval(() => {
  const quiet = performance.now() - mainSeenAt
  if (held && quiet > timings.mainStallLimitMs) held.drop(`the daemon's main thread has not turned for ${Math.round(quiet)} ms`)
}, timings.heartbeatMs)

try {
  held = await takeLock(
    timings,
    { onBusy: () => say({ busy: true }), onWaitError: message => say({ waitError: message }) },
    stopWaiting.signal,
  )
  say({ held: held.epoch })
  const reason = await held.lost
  // A release is answered by its own message once the session has ended.
  if (reason !== 'released') say({ lost: reason })
} catch (err) {
  say({ failed: { message: (err as Error).message, code: (err as { code?: string }).code } })
}
clearInterval(watchdog)
