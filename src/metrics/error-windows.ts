// Request totals and failures over sliding windows (GetErrorStats): one counter pair per second, kept for 24 hours
// and saved to a file so the windows survive a restart.
import fs from 'node:fs'
import path from 'node:path'
import type { Clock } from '../bus/index.js'
import { unixSeconds } from '../units/index.js'

export const errorWindows = { past24h: 86_400, past6h: 21_600, past1h: 3_600, past10m: 600, past1m: 60 } as const
export type ErrorWindowName = keyof typeof errorWindows

export interface ErrorStat {
  from_unix: number
  total: number
  errors: number
}

export type ErrorStatsReport = Record<ErrorWindowName, ErrorStat>

export interface ErrorCounters {
  record(ok: boolean): void
  report(): ErrorStatsReport
  /** Writes the counters to their file (atomically: a crash mid-write leaves the previous file). */
  persist(): void
  reset(): void
}

/** [unix second, successes, failures] */
type SecondCount = [number, number, number]

const keptSeconds = errorWindows.past24h

export function openErrorCounters(opts: { file: string; clock: Clock }): ErrorCounters {
  const { file, clock } = opts
  const nowSecond = () => unixSeconds(clock.now())
  let seconds: SecondCount[] = load(file)

  /** Drops seconds that left the longest window. */
  function prune(now: number) {
    const oldest = now - keptSeconds
    let drop = 0
    while (drop < seconds.length && seconds[drop]![0] <= oldest) drop++
    if (drop > 0) seconds = seconds.slice(drop)
  }

  return {
    record(ok) {
      const now = nowSecond()
      prune(now)
      const last = seconds[seconds.length - 1]
      // A clock that stepped back counts into the newest second rather than reordering the list.
      if (last && last[0] >= now) last[ok ? 1 : 2]++
      else seconds.push([now, ok ? 1 : 0, ok ? 0 : 1])
    },
    report() {
      const now = nowSecond()
      prune(now)
      const entries = Object.entries(errorWindows).map(([name, length]) => {
        let total = 0
        let errors = 0
        for (const [second, ok, failed] of seconds) {
          if (second <= now - length) continue
          total += ok + failed
          errors += failed
        }
        return [name, { from_unix: now - length, total, errors }]
      })
      return Object.fromEntries(entries) as ErrorStatsReport
    },
    persist() {
      prune(nowSecond())
      fs.mkdirSync(path.dirname(file), { recursive: true })
      const temporary = `${file}.${process.pid}.tmp`
      fs.writeFileSync(temporary, JSON.stringify(seconds))
      fs.renameSync(temporary, file)
    },
    reset() {
      seconds = []
      fs.rmSync(file, { force: true })
    },
  }
}

/** A missing or unreadable file starts empty: losing counters must not stop the daemon. */
function load(file: string): SecondCount[] {
  let parsed: unknown
  try {
    parsed = JSON.parse(fs.readFileSync(file, 'utf8'))
  } catch {
    return []
  }
  if (!Array.isArray(parsed)) return []
  const counts = parsed.filter(
    (row): row is SecondCount =>
      Array.isArray(row) && row.length === 3 && row.every(n => Number.isSafeInteger(n) && n >= 0),
  )
  return counts.sort((a, b) => a[0] - b[0])
}
