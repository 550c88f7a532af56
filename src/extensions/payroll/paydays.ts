// Paydays (docs/payroll.md, "Paydays"): period k's payday is always computed from the anchor, never from the
// previous payday, so a clamped month does not drag later paydays (Jan 31 → Feb 28/29 → Mar 31, not Mar 28). Days
// are UTC calendar days written `YYYY-MM-DD`, whatever the time zone of the daemon's host.

export type Frequency = 'daily' | 'weekly' | 'biweekly' | 'monthly' | 'quarterly' | 'yearly'

const msPerDay = 86_400_000
const daysPerPeriod: Partial<Record<Frequency, number>> = { daily: 1, weekly: 7, biweekly: 14 }
const monthsPerPeriod: Partial<Record<Frequency, number>> = { monthly: 1, quarterly: 3, yearly: 12 }

/** The payday of period `period` (0-based) of a schedule anchored on `startDate`. */
export function paydayOf(startDate: string, frequency: Frequency, period: number): string {
  const [year, month, day] = dayParts(startDate)
  const days = daysPerPeriod[frequency]
  if (days !== undefined) return dayOfMs(utcMs(year, month, day) + period * days * msPerDay)
  const monthIndex = month - 1 + period * monthsPerPeriod[frequency]!
  const targetYear = year + Math.floor(monthIndex / 12)
  const targetMonth = (monthIndex % 12) + 1
  return formatDay(targetYear, targetMonth, Math.min(day, daysInMonth(targetYear, targetMonth)))
}

export interface Schedule {
  paydays: { period: number; payday: string }[]
  /** Payday of the last period; null when no period is left. */
  ends_on: string | null
}

/** Paydays of periods `fromPeriod … totalPeriods − 1`, with the payday of the contract's last period. */
export function scheduleOf(startDate: string, frequency: Frequency, fromPeriod: number, totalPeriods: number): Schedule {
  const paydays: Schedule['paydays'] = []
  for (let period = fromPeriod; period < totalPeriods; period++) {
    paydays.push({ period, payday: paydayOf(startDate, frequency, period) })
  }
  return { paydays, ends_on: fromPeriod < totalPeriods ? paydayOf(startDate, frequency, totalPeriods - 1) : null }
}

/** The UTC day containing the instant `ms` (unix milliseconds). */
export function dayOfMs(ms: number): string {
  const date = new Date(Math.floor(ms / msPerDay) * msPerDay)
  return formatDay(date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate())
}

/** Unix ms of 00:00 UTC on `day`. */
export function dayStartMs(day: string): number {
  const [year, month, date] = dayParts(day)
  return utcMs(year, month, date)
}

/** True when `day` still has four year digits (a long contract can reach past 9999-12-31). */
export function isFourDigitYear(day: string): boolean {
  return /^\d{4}-/.test(day)
}

/** Date.UTC, except that years 0–99 stay themselves instead of becoming 1900–1999. */
function utcMs(year: number, month: number, day: number): number {
  return new Date(0).setUTCFullYear(year, month - 1, day)
}

function dayParts(day: string): [number, number, number] {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day)
  if (!m) throw new RangeError(`not a YYYY-MM-DD day: ${day}`)
  return [Number(m[1]), Number(m[2]), Number(m[3])]
}

function daysInMonth(year: number, month: number): number {
  return new Date(utcMs(year, month + 1, 0)).getUTCDate()
}

/** Years past 9999 keep all their digits; isFourDigitYear tells them apart. */
function formatDay(year: number, month: number, day: number): string {
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`
}
