// Payroll's part of the config (`[payroll]`) and the clock its calendar runs on.
//
// `today_override` exists for tests that start the real daemon as a child process and need a fixed "today"
// (month-end clamping over several ticks, paydays becoming due): payroll's clock then starts at 00:00 UTC plus
// the current time of day on that day and runs at the real pace. Only payroll's calendar moves (its "today",
// contract and row timestamps); the rates room keeps the daemon's clock. It is refused outside test mode
// (`[node] mock`, off unless asked for), so a node with real money never pays on a
// shifted calendar.
import type { Clock } from '../../bus/index.js'
import type { Config } from '../../config/index.js'
import { dayStartMs } from './paydays.js'

const msPerDay = 86_400_000

export interface PayrollSettings {
  firstTickMs: number
  tickMs: number
  todayOverride?: string
}

export function payrollSettings(config: Config): PayrollSettings {
  const { first_tick_seconds, tick_seconds, today_override } = config.payroll
  const testMode = config.node.mock
  if (today_override !== undefined && !testMode) {
    throw new Error('payroll.today_override is for tests: it needs [node] mock = true')
  }
  return { firstTickMs: first_tick_seconds * 1000, tickMs: tick_seconds * 1000, todayOverride: today_override }
}

/** The daemon's clock, moved by whole days so that "today" at start is `todayOverride`. */
export function payrollClock(clock: Clock, todayOverride: string | undefined): Clock {
  if (todayOverride === undefined) return clock
  const startedAt = clock.now()
  const shift = dayStartMs(todayOverride) - (startedAt - (startedAt % msPerDay))
  return { now: () => clock.now() + shift }
}
