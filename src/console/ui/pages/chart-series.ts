// The charts' series, per minute, from the daemon's metrics records (upstream's byte formats, src/metrics/records.ts):
// a bundle sample is 8 bytes (unix seconds, value), a usage record is TLV entries. Every series has a slot for every
// minute from the first record to the last, so that nothing is drawn across minutes without data:
// - a count (payments, failures) is 0 in a minute the daemon recorded and nothing happened in;
// - an average (latency) is null (a gap) in a minute without a call;
// - a balance holds its last value while the daemon kept recording (balances are written only when they change)
//   and is null where the daemon recorded nothing (it was not running): a gap, not a line across it.

const bytes = (base64: string) => Uint8Array.from(atob(base64), c => c.charCodeAt(0))
const u32 = (b: Uint8Array, at: number) => ((b[at]! << 24) | (b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!) >>> 0
const minuteOf = (unixSeconds: number) => Math.floor(unixSeconds / 60) * 60

/** The usage TLV types read here (src/metrics/records.ts usageField). */
const usage = { processedAt: 2, parse: 3, auth: 4, validate: 5, handle: 6, success: 10 } as const

function samples(list: string[]): [number, number][] {
  return list.map(bytes).filter(b => b.length === 8).map(b => [u32(b, 0), u32(b, 4)])
}

/** A usage record's TLV fields: type → value (4-byte integers and 1-byte flags). */
function usageFields(record: Uint8Array): Map<number, number> {
  const fields = new Map<number, number>()
  for (let at = 0; at + 2 <= record.length; ) {
    const type = record[at]!
    const length = record[at + 1]!
    if (length === 4) fields.set(type, u32(record, at + 2))
    if (length === 1) fields.set(type, record[at + 2]!)
    at += 2 + length
  }
  return fields
}

export interface BundleReport { apps: Record<string, { app_bundles: Record<string, { base_64_data: string[] }> }> }
export interface UsageReport { apps: Record<string, { app_metrics: Record<string, { base_64_tlvs: string[] }> }> }

/** One failed call: which operation, for which app, in which minute. */
export interface FailedCalls { minute: number; operation: string; app: string; count: number }

export interface Series {
  /** Unix seconds of each minute, first to last. */
  minutes: number[]
  payments: (number | null)[]
  volume: (number | null)[]
  usersBalance: (number | null)[]
  nodeAssets: (number | null)[]
  latencyMs: (number | null)[]
  failedPayments: (number | null)[]
  failedCalls: (number | null)[]
  /** The failed calls by minute, operation and app, for the list a click on the errors chart opens. */
  failures: FailedCalls[]
  totals: { payments: number; balancePoints: number; latencyMinutes: number; failures: number }
}

const movement = /^(paidAnInvoice|user2user|paidAnAddress)_/

const add = (map: Map<number, number>, minute: number, value: number) => map.set(minute, (map.get(minute) ?? 0) + value)

export function buildSeries(bundle: BundleReport, usageReport: UsageReport): Series {
  const count = new Map<number, number>()
  const volume = new Map<number, number>()
  const failedPayments = new Map<number, number>()
  const failedCalls = new Map<number, number>()
  const latency = new Map<number, { sum: number; n: number }>()
  const failures = new Map<string, FailedCalls>()
  const users: [number, number][] = []
  const node: [number, number][] = []
  /** Every second at which the daemon recorded anything: where it was running. */
  const recorded: number[] = []
  for (const app of Object.values(bundle.apps)) {
    for (const [name, data] of Object.entries(app.app_bundles)) {
      const points = samples(data.base_64_data)
      for (const [at] of points) recorded.push(at)
      if (movement.test(name)) {
        for (const [at, value] of points) {
          if (name.endsWith('_failed')) {
            add(failedPayments, minuteOf(at), 1)
            continue
          }
          add(count, minuteOf(at), 1)
          add(volume, minuteOf(at), value)
        }
      }
      if (name === 'usersBalance') users.push(...points)
      if (name === 'totalLndBalance') node.push(...points)
    }
  }
  for (const [appId, app] of Object.entries(usageReport.apps)) {
    for (const [operation, data] of Object.entries(app.app_metrics)) {
      for (const record of data.base_64_tlvs.map(bytes)) {
        const f = usageFields(record)
        const at = f.get(usage.processedAt)
        if (at === undefined) continue
        recorded.push(at)
        const minute = minuteOf(at)
        const us = (f.get(usage.parse) ?? 0) + (f.get(usage.auth) ?? 0) + (f.get(usage.validate) ?? 0) + (f.get(usage.handle) ?? 0)
        const slot = latency.get(minute) ?? { sum: 0, n: 0 }
        slot.sum += us
        slot.n += 1
        latency.set(minute, slot)
        if (f.get(usage.success) === 0) {
          add(failedCalls, minute, 1)
          const key = `${minute} ${appId} ${operation}`
          const entry = failures.get(key) ?? { minute, operation, app: appId, count: 0 }
          entry.count += 1
          failures.set(key, entry)
        }
      }
    }
  }
  recorded.sort((a, b) => a - b)
  const minutes = recorded.length === 0 ? [] : range(minuteOf(recorded[0]!), minuteOf(recorded[recorded.length - 1]!))
  const running = runningMinutes(recorded)
  const countIn = (map: Map<number, number>) => minutes.map(m => map.get(m) ?? (running.has(m) ? 0 : null))
  return {
    minutes,
    payments: countIn(count),
    volume: countIn(volume),
    usersBalance: held(minutes, users, running),
    nodeAssets: held(minutes, node, running),
    latencyMs: minutes.map(m => {
      const slot = latency.get(m)
      return slot ? Math.round(slot.sum / slot.n / 1000) : null
    }),
    failedPayments: countIn(failedPayments),
    failedCalls: countIn(failedCalls),
    failures: [...failures.values()].sort((a, b) => a.minute - b.minute || b.count - a.count),
    totals: {
      payments: [...count.values()].reduce((a, b) => a + b, 0),
      balancePoints: users.length + node.length,
      latencyMinutes: latency.size,
      failures: [...failedPayments.values(), ...failedCalls.values()].reduce((a, b) => a + b, 0),
    },
  }
}

function range(first: number, last: number): number[] {
  const minutes: number[] = []
  for (let m = first; m <= last; m += 60) minutes.push(m)
  return minutes
}

/**
 * The minutes the daemon was running: those it recorded in, and those between two records close enough together
 * to be its ordinary cadence (balances and memory are sampled every `[metrics] sample_seconds`, 60 by default).
 * Two records further apart than three times the usual spacing (and at least three minutes) leave the minutes
 * between them unknown.
 */
function runningMinutes(recorded: number[]): Set<number> {
  const running = new Set(recorded.map(minuteOf))
  const spacings = recorded.slice(1).map((at, i) => at - recorded[i]!).filter(d => d > 0).sort((a, b) => a - b)
  const usual = spacings[Math.floor(spacings.length / 2)] ?? 0
  const longest = Math.max(180, usual * 3)
  for (let i = 1; i < recorded.length; i++) {
    if (recorded[i]! - recorded[i - 1]! > longest) continue
    for (let m = minuteOf(recorded[i - 1]!); m <= minuteOf(recorded[i]!); m += 60) running.add(m)
  }
  return running
}

/** A balance written only when it changed: its last value in each running minute, null before it and where the daemon was not. */
function held(minutes: number[], points: [number, number][], running: Set<number>): (number | null)[] {
  const sorted = [...points].sort((a, b) => a[0] - b[0])
  let i = 0
  let last: number | null = null
  return minutes.map(m => {
    while (i < sorted.length && sorted[i]![0] < m + 60) last = sorted[i++]![1]
    if (!running.has(m)) {
      // A stop forgets the value: after a gap the line starts again at the daemon's next sample.
      if (i >= sorted.length || sorted[i]![0] >= m + 60) last = null
      return null
    }
    return last
  })
}

/**
 * An axis' ticks: both ends of its range and up to two between, placed on whole values as their labels are written,
 * none twice (a count from 0 to 1 has two ticks, not "0, 0, 1, 1").
 */
export function axisSplits(lo: number, hi: number): number[] {
  const between = [lo + (hi - lo) / 3, lo + ((hi - lo) * 2) / 3].map(Math.round).filter(v => v > lo && v < hi)
  return [...new Set([lo, ...between, hi])]
}
