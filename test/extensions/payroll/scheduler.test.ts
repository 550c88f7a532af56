// When the scheduler ticks (docs/payroll.md, "The tick": first pass about 20 s after start, then every 5 minutes),
// driven by a manual timer source: ticks never overlap, an operator's tick waits its turn, and stop ends it all.
import { setImmediate as nextTurn } from 'node:timers/promises'
import { pino } from 'pino'
import { suite } from '../../support/suite.js'
import * as assert from 'uvu/assert'
import { startScheduler, type SchedulerTimers, type TickResult } from '../../../src/extensions/payroll/scheduler.js'

/** Timers that fire only when the test moves time. */
function manualTimers() {
  let now = 0
  let pending: { at: number; fn: () => void }[] = []
  const timers: SchedulerTimers = {
    after(ms, fn) {
      const timer = { at: now + ms, fn }
      pending.push(timer)
      return () => {
        pending = pending.filter(t => t !== timer)
      }
    },
  }
  return {
    timers,
    pendingCount: () => pending.length,
    async advance(ms: number) {
      const end = now + ms
      for (;;) {
        const due = pending.filter(t => t.at <= end).sort((a, b) => a.at - b.at)[0]
        if (!due) break
        pending = pending.filter(t => t !== due)
        now = due.at
        due.fn()
        for (let i = 0; i < 5; i++) await nextTurn()
      }
      now = end
      for (let i = 0; i < 5; i++) await nextTurn()
    },
  }
}

const log = pino({ level: 'silent' })
const empty: TickResult = { contracts: 0, payouts: [] }
const times = { firstTickMs: 20_000, tickMs: 300_000 }

const timing = suite('the scheduler ticks 20 s after start, then 5 minutes after each tick ends')

timing('no tick before the first delay; one at it; the next a full interval later', async () => {
  const clock = manualTimers()
  let ticks = 0
  const scheduler = startScheduler(times, async () => (ticks++, empty), { timers: clock.timers, log })
  await clock.advance(19_999)
  assert.is(ticks, 0)
  await clock.advance(1)
  assert.is(ticks, 1)
  await clock.advance(299_999)
  assert.is(ticks, 1)
  await clock.advance(1)
  assert.is(ticks, 2)
  await scheduler.stop()
})

timing('a slow tick delays the next one: ticks never overlap', async () => {
  const clock = manualTimers()
  let running = 0
  let most = 0
  let release: (() => void) | undefined
  const scheduler = startScheduler(
    times,
    async () => {
      running++
      most = Math.max(most, running)
      await new Promise<void>(resolve => (release = resolve))
      running--
      return empty
    },
    { timers: clock.timers, log },
  )
  await clock.advance(20_000)
  assert.is(running, 1)
  const operators = scheduler.tickNow()
  await clock.advance(600_000) // the timer waits for the running tick to end before it is set again
  assert.is(most, 1)
  assert.is(clock.pendingCount(), 0)
  release!()
  await clock.advance(0)
  assert.is(running, 1, "the operator's tick runs after the timer's")
  release!()
  assert.equal(await operators, empty)
  await clock.advance(300_000)
  assert.is(running, 1, 'the timer ticks again a full interval after its own tick ended')
  release!()
  await scheduler.stop()
  assert.is(most, 1)
})

timing('a failing tick is logged and the timer carries on', async () => {
  const clock = manualTimers()
  let ticks = 0
  const scheduler = startScheduler(
    times,
    async () => {
      ticks++
      throw new Error('database is locked')
    },
    { timers: clock.timers, log },
  )
  await clock.advance(20_000 + 300_000)
  assert.is(ticks, 2)
  await scheduler.stop()
})

timing('stop cancels the timer: no tick afterwards, and tickNow does nothing', async () => {
  const clock = manualTimers()
  let ticks = 0
  const scheduler = startScheduler(times, async () => (ticks++, empty), { timers: clock.timers, log })
  await scheduler.stop()
  await clock.advance(3_600_000)
  assert.is(ticks, 0)
  assert.equal(await scheduler.tickNow(), empty)
  assert.is(ticks, 0)
})

timing.run()
