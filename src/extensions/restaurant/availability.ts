// Availability windows: weekly `days` with a `start`–`end` time of day in the
// restaurant's timezone. An `end` at or before `start` crosses midnight, so the window's tail belongs to the
// next day: a Friday 22:00–02:00 window covers Saturday 01:30. An item without windows is always available.

export const weekdays = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const
export type Weekday = (typeof weekdays)[number]

export interface Window {
  days: readonly string[]
  start: string
  end: string
}

export interface LocalTime {
  weekday: Weekday
  /** Minutes since local midnight. */
  minute: number
}

const englishWeekday: Record<string, Weekday> = {
  Mon: 'mon', Tue: 'tue', Wed: 'wed', Thu: 'thu', Fri: 'fri', Sat: 'sat', Sun: 'sun',
}

/** The weekday and time of day at `nowMs` on the wall clocks of `timeZone` (IANA). */
export function localTime(nowMs: number, timeZone: string): LocalTime {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    weekday: 'short',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(new Date(nowMs))
  const part = (type: string) => parts.find(p => p.type === type)?.value ?? ''
  return { weekday: englishWeekday[part('weekday')]!, minute: Number(part('hour')) * 60 + Number(part('minute')) }
}

function minutes(timeOfDay: string): number {
  const [hours, mins] = timeOfDay.split(':').map(Number)
  return hours! * 60 + mins!
}

function previousDay(day: Weekday): Weekday {
  return weekdays[(weekdays.indexOf(day) + 6) % 7]!
}

export function inWindow(window: Window, at: LocalTime): boolean {
  const start = minutes(window.start)
  const end = minutes(window.end)
  if (start < end) return window.days.includes(at.weekday) && at.minute >= start && at.minute < end
  // Crosses midnight: from `start` to midnight on a listed day, then until `end` on the day after it.
  return (
    (window.days.includes(at.weekday) && at.minute >= start) ||
    (window.days.includes(previousDay(at.weekday)) && at.minute < end)
  )
}

export function availableAt(windows: readonly Window[], nowMs: number, timeZone: string): boolean {
  if (windows.length === 0) return true
  const at = localTime(nowMs, timeZone)
  return windows.some(window => inWindow(window, at))
}

/**
 * When an item that is not available now next becomes so: the weekday and the start of the first window that opens
 * after `nowMs` in the restaurant's timezone (within a week); undefined when it has no window.
 */
export function nextOpening(windows: readonly Window[], nowMs: number, timeZone: string): { weekday: Weekday; start: string; today: boolean } | undefined {
  const at = localTime(nowMs, timeZone)
  const today = weekdays.indexOf(at.weekday)
  let best: { inMinutes: number; weekday: Weekday; start: string } | undefined
  for (const window of windows) {
    for (let ahead = 0; ahead <= 7; ahead++) {
      const weekday = weekdays[(today + ahead) % 7]!
      if (!window.days.includes(weekday)) continue
      const inMinutes = ahead * 1440 + minutes(window.start) - at.minute
      if (inMinutes <= 0) continue
      if (!best || inMinutes < best.inMinutes) best = { inMinutes, weekday, start: window.start }
      break
    }
  }
  return best && { weekday: best.weekday, start: best.start, today: best.inMinutes < 1440 - at.minute }
}
