// Calendar days in UTC: paydays and closed days of rates all turn at 00:00 UTC. A day is its
// `YYYY-MM-DD` text; these functions are pure, and "today" always comes from the injected clock.

const msPerDay = 86_400_000
const dayText = /^(\d{4})-(\d{2})-(\d{2})$/

/** True when `text` is `YYYY-MM-DD` naming a real calendar day. */
export function isUtcDay(text: string): boolean {
  const m = dayText.exec(text)
  if (!m) return false
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])]
  return mo >= 1 && mo <= 12 && d >= 1 && d <= daysInMonth(y, mo)
}

/** The UTC day containing the instant `ms` (unix milliseconds). */
export function utcDayOf(ms: number): string {
  return new Date(Math.floor(ms / msPerDay) * msPerDay).toISOString().slice(0, 10)
}

/** Unix seconds of 00:00 UTC on `day`. */
export function utcDayStartSeconds(day: string): number {
  const [y, mo, d] = parts(day)
  return Date.UTC(y, mo - 1, d) / 1000
}

/** The day `years` calendar years before `day`; 29 February becomes 28 February in a common year. */
export function yearsBefore(day: string, years: number): string {
  const [y, mo, d] = parts(day)
  const year = y - years
  return formatDay(year, mo, Math.min(d, daysInMonth(year, mo)))
}

/** `DD-MM-YYYY`, the date format of CoinGecko's history endpoint. */
export function dayMonthYear(day: string): string {
  const [y, mo, d] = parts(day)
  return `${pad(d, 2)}-${pad(mo, 2)}-${pad(y, 4)}`
}

function parts(day: string): [number, number, number] {
  const m = dayText.exec(day)
  if (!m) throw new RangeError(`not a YYYY-MM-DD day: ${day}`)
  return [Number(m[1]), Number(m[2]), Number(m[3])]
}

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate()
}

function formatDay(y: number, mo: number, d: number): string {
  return `${pad(y, 4)}-${pad(mo, 2)}-${pad(d, 2)}`
}

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0')
}
