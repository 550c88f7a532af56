// Runs a fuzz campaign: fast-check draws cases from a seeded generator, a pool of workers sends them, and every
// answer is judged by the oracle. Violations are collected (not thrown) so one run reports
// every hole it hit, grouped by operation and problem. CI uses a fixed seed; `npm run fuzz` sets FUZZ_SEED=random
// and FUZZ_SCALE for a longer campaign. The seed is printed so any run can be repeated.
import fc from 'fast-check'
import { shareOfRun } from '../run-share.js'

export interface Violation {
  op: string
  how: string
  request: string
  problems: string[]
}

export interface CampaignResult {
  sent: number
  ms: number
  violations: Violation[]
  /** Answers per operation that got past authentication and validation to the handler (OK or a handler's error). */
  reached: Map<string, number>
}

export interface Judged {
  problems: string[]
  /** The answer came from the handler (not auth or validation). */
  reached: boolean
}

export interface CampaignOptions<C> {
  name: string
  cases: fc.Arbitrary<C>
  /** Sends one case and judges its answer. */
  run(item: C): Promise<Judged>
  label(item: C): { op: string; how: string; request: string }
  requests: number
  /** Cases drawn from the generator at a time. */
  batch: number
  /** Requests in flight at once. */
  concurrency: number
  seed: number
  /** Stop early (and say so) when this much time has passed. */
  timeLimitMs: number
}

/**
 * How long an answer may take before it counts as a hang. ZipMetricsStorages took 30–50 s at load 40 while it
 * deflated through the thread pool; it builds in 2–7 s since it writes in slices on the loop, so it gets no more
 * time than anything else.
 */
export const answerDeadlineMs = 45_000

/** FUZZ_SEED: a number, or `random`; otherwise the file's fixed seed. */
export function campaignSeed(fixed: number): number {
  const env = process.env.FUZZ_SEED
  if (env === 'random') return Math.floor(Math.random() * 2 ** 31)
  return env ? Number(env) : fixed
}

/**
 * FUZZ_SCALE multiplies every campaign's request count (`npm run fuzz`); without it a run with a PostgreSQL half
 * sends half in each half (run-share.ts).
 */
export function scaled(requests: number): number {
  return Math.round(requests * Number(process.env.FUZZ_SCALE ?? shareOfRun()))
}

/** FUZZ_TIME_LIMIT_S overrides a campaign's time limit (the longer `npm run fuzz` runs); halved like `scaled`. */
export function timeLimitMs(defaultSeconds: number): number {
  return (process.env.FUZZ_TIME_LIMIT_S ? Number(process.env.FUZZ_TIME_LIMIT_S) : defaultSeconds * shareOfRun()) * 1000
}

export async function runCampaign<C>(opts: CampaignOptions<C>): Promise<CampaignResult> {
  const started = Date.now()
  const violations: Violation[] = []
  const reached = new Map<string, number>()
  const slowest = new Map<string, number>()
  let sent = 0
  let drawn = 0
  let chunk = 0
  let pending: C[] = []
  // Cases are drawn lazily in seeded chunks, so a million-request campaign never holds more than one chunk.
  const next = (): C | undefined => {
    if (drawn >= opts.requests || Date.now() - started > opts.timeLimitMs) return undefined
    if (pending.length === 0) pending = fc.sample(opts.cases, { seed: opts.seed + chunk++, numRuns: opts.batch })
    drawn++
    return pending.pop()
  }
  // A pool of workers rather than batches: one slow answer holds one worker, not the whole campaign.
  await Promise.all(
    Array.from({ length: opts.concurrency }, async () => {
      for (let item = next(); item !== undefined; item = next()) {
        const began = performance.now()
        let judged: Judged
        try {
          judged = await opts.run(item)
        } catch (err) {
          judged = { problems: [`no answer: ${(err as Error).message}`], reached: false }
        }
        sent++
        const { op, how, request } = opts.label(item)
        slowest.set(op, Math.max(slowest.get(op) ?? 0, performance.now() - began))
        if (judged.reached) reached.set(op, (reached.get(op) ?? 0) + 1)
        if (judged.problems.length > 0) violations.push({ op, how, request: request.slice(0, 600), problems: judged.problems })
      }
    }),
  )
  const ms = Date.now() - started
  const slow = [...slowest].sort((a, b) => b[1] - a[1]).slice(0, 5).map(([op, t]) => `${op} ${Math.round(t)} ms`)
  console.log(
    `[fuzz] ${opts.name}: ${sent} requests in ${(ms / 1000).toFixed(1)} s (${Math.round(sent / (ms / 1000))}/s), seed ${opts.seed}, ` +
      `${violations.length} violations${sent < opts.requests ? `, stopped early at the time limit (${opts.requests} planned)` : ''}; slowest: ${slow.join(', ')}`,
  )
  if (violations.length > 0) console.log(summarise(violations))
  return { sent, ms, violations, reached }
}

/** Violations grouped by operation and problem, with one example each, for a failure message. */
export function summarise(violations: Violation[], limit = 40): string {
  const groups = new Map<string, Violation[]>()
  for (const v of violations) {
    const key = `${v.op}: ${v.problems.join('; ').replace(/\(id [0-9a-f]+\)/, '(id …)').slice(0, 200)}`
    groups.set(key, [...(groups.get(key) ?? []), v])
  }
  return [...groups]
    .slice(0, limit)
    .map(([key, list]) => `${list.length}× ${key}\n    e.g. ${list[0]!.how} — ${list[0]!.request}`)
    .join('\n')
}
