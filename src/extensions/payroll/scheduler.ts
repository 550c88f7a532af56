// The scheduler (docs/payroll.md, "The tick"). A tick visits every active contract with periods left, under that
// contract's lock, and handles at most 12 due periods: a payday before the contract existed is skipped unless
// backfill is on, any other is paid. A failure ends that contract's tick; the fifth failure of one period pauses
// the contract with a reason naming it. Paused contracts are never visited.
import type { Logger } from 'pino'
import type { Clock, Timers } from '../../bus/index.js'
import type { ContractLocks } from './contract-locks.js'
import type { ContractsStore } from './contracts-store.js'
import type { LedgerStore, Payout } from './ledger-store.js'
import { payPeriod, type PayPeriodDeps } from './pay-period.js'
import { dayOfMs, paydayOf } from './paydays.js'

/** MAX_PERIOD_ATTEMPTS: the fifth failure of the same period pauses the contract. */
export const maxPeriodAttempts = 5
/** MAX_CATCH_UP_PERIODS: periods one contract may settle or skip in one tick. */
export const maxCatchUpPeriods = 12
export const skippedBeforeCreationDetail = 'payday before the contract was created; backfill is off'

export interface TickDeps {
  contracts: ContractsStore
  ledger: LedgerStore
  locks: ContractLocks
  pay: PayPeriodDeps
  clock: Clock
  log: Logger
}

export interface TickResult {
  contracts: number
  payouts: Payout[]
}

/** One pass over every active contract with periods left. */
export async function runTick(deps: TickDeps): Promise<TickResult> {
  const ids = await deps.contracts.activeIdsWithPeriodsLeft()
  const payouts: Payout[] = []
  for (const id of ids) {
    try {
      payouts.push(...(await deps.locks.with(id, () => tickContract(deps, id))))
    } catch (err) {
      // One broken contract must not starve the others; it is tried again next tick.
      deps.log.error({ err, contractId: id }, 'payroll tick failed for a contract')
    }
  }
  return { contracts: ids.length, payouts }
}

/** Runs under the contract's lock; re-reads the contract before each period, since pay-now or an edit may have run. */
async function tickContract(deps: TickDeps, id: string): Promise<Payout[]> {
  const { contracts, ledger, clock } = deps
  const today = dayOfMs(clock.now())
  await ledger.expireClaims(id, clock.now())
  const written: Payout[] = []
  for (let handled = 0; handled < maxCatchUpPeriods; handled++) {
    const contract = await contracts.get(id)
    if (!contract || contract.status !== 'active' || contract.periodsDone >= contract.totalPeriods) break
    const period = contract.periodsDone
    const payday = paydayOf(contract.startDate, contract.frequency, period)
    if (payday > today) break

    if (payday < dayOfMs(contract.createdAt) && !contract.backfill) {
      const row = await ledger.skip(
        { contract, period, payday, amountMsat: null, rate: null, rateSource: null, memo: null, detail: skippedBeforeCreationDetail },
        clock.now(),
      )
      if (!row) break
      written.push(row)
      continue
    }

    const row = await payPeriod(deps.pay, { contract, period, payday, today, pricing: contract, paidNote: '' })
    if (!row) break // another payer holds the period; its outcome decides
    written.push(row)
    if (row.status === 'paid') continue
    const failures = await ledger.failures(id, period)
    if (failures >= maxPeriodAttempts) {
      await contracts.pause(id, `period ${period} (${payday}) failed ${failures} times: ${row.detail}`, clock.now())
    }
    break
  }
  return written
}

export interface Scheduler {
  /** Runs one tick after any tick already running; resolves with what it did. */
  tickNow(): Promise<TickResult>
  /** Cancels the timer and waits for a running tick. */
  stop(): Promise<void>
}

export interface SchedulerTimes {
  firstTickMs: number
  tickMs: number
}

/** Where the scheduler's timer comes from: real timers in the daemon, a manual clock in tests. */
export type SchedulerTimers = Timers

/**
 * Ticks `firstTickMs` after start, then `tickMs` after each tick ends, so ticks never overlap. Ticks asked for
 * with tickNow run in turn with the timer's.
 */
export function startScheduler(
  times: SchedulerTimes,
  tick: () => Promise<TickResult>,
  deps: { timers: SchedulerTimers; log: Logger },
): Scheduler {
  let queue: Promise<unknown> = Promise.resolve()
  let cancelTimer: (() => void) | undefined
  let stopped = false

  const enqueue = (): Promise<TickResult> => {
    const next = queue.then(tick)
    queue = next.catch(() => undefined)
    return next
  }
  const onTimer = () => {
    cancelTimer = undefined
    enqueue()
      .then(result => {
        if (result.payouts.length > 0) deps.log.info({ contracts: result.contracts, payouts: result.payouts.length }, 'payroll tick')
      })
      .catch(err => deps.log.error({ err }, 'payroll tick failed'))
      .finally(() => {
        if (!stopped) cancelTimer = deps.timers.after(times.tickMs, onTimer)
      })
  }
  cancelTimer = deps.timers.after(times.firstTickMs, onTimer)

  return {
    tickNow: () => (stopped ? Promise.resolve({ contracts: 0, payouts: [] }) : enqueue()),
    async stop() {
      stopped = true
      cancelTimer?.()
      await queue
    },
  }
}
