// Parked debit requests expire. A request waiting for the user's decision holds its requester (an app, an ATM
// session) in suspense; past its lifetime it is taken off the list, the requester hears GFY 3 "Expired Request"
// (with the spec's `delta`), and RespondToDebit on it is answered not_found. The expiry time is stored with the
// request, so a restart neither forgets nor extends it: the first sweep after the relays are up answers what ran
// out while the daemon was down. Upstream never parks requests (it pushes and forgets); the default lifetime, ten
// minutes, is the age past which a kind-21000 request is dropped and the retry_after of a parked manage request.
import type { Logger } from 'pino'
import { type Clock } from '../bus/index.js'
import type { ClinkSender } from './wire.js'
import type { DebitAnswer } from './debit-answers.js'
import { gfy } from './gfy.js'
import type { DebitStore, ParkedRequest } from './debit-store.js'

export const defaultDebitRequestLifetimeMs = 10 * 60_000
/** Requests answered per query of a sweep (the sweep loops until none are left). */
const sweepBatch = 100

export interface DebitExpiryDeps {
  store: DebitStore
  outbox(): ClinkSender | undefined
  /** Sends the requester of a parked request (already taken off the list) its answer. */
  answerParked(box: ClinkSender, parked: ParkedRequest, payload: DebitAnswer): void
  clock: Clock
  lifetimeMs: number
  log: Logger
}

export function expiredAnswer(parked: ParkedRequest, now: number): DebitAnswer {
  return gfy(3, { delta: { max_delta_ms: parked.expiresAt - parked.createdAt, actual_delta_ms: now - parked.createdAt } })
}

export function debitExpiry(deps: DebitExpiryDeps) {
  const { store, clock, log } = deps
  // Often enough that a requester hears within a quarter of the lifetime (at most 30 s) after it ran out.
  const sweepEveryMs = Math.min(30_000, Math.max(1000, Math.floor(deps.lifetimeMs / 4)))
  let timer: NodeJS.Timeout | undefined

  /** Answers every request that ran out; without an outbox they wait (still parked) for the next sweep. */
  async function sweep(): Promise<number> {
    const box = deps.outbox()
    if (!box) return 0
    let answered = 0
    for (;;) {
      const now = clock.now()
      const batch = await store.expiredBy(now, sweepBatch)
      for (const parked of batch) {
        // Unparking first: a decision arriving at the same moment finds nothing, and one answer goes out.
        if (!(await store.unpark(parked.requestId))) continue
        deps.answerParked(box, parked, expiredAnswer(parked, now))
        answered++
      }
      if (batch.length < sweepBatch) break
    }
    if (answered > 0) log.info({ answered }, 'parked debit requests expired')
    return answered
  }

  // One sweep at a time: a slow one (a database under load) is not joined by the next tick's.
  let sweeping: Promise<void> | undefined
  const guardedSweep = (): Promise<void> =>
    (sweeping ??= sweep()
      .then(() => {}, err => log.error({ err }, 'sweeping expired debit requests failed'))
      .finally(() => (sweeping = undefined)))

  return {
    lifetimeMs: deps.lifetimeMs,
    isExpired: (parked: ParkedRequest) => parked.expiresAt <= clock.now(),
    sweep: guardedSweep,
    start(): void {
      timer = setInterval(() => void guardedSweep(), sweepEveryMs)
      timer.unref()
    },
    stop(): void {
      clearInterval(timer)
    },
  }
}

export type DebitExpiry = ReturnType<typeof debitExpiry>
