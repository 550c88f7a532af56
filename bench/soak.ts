// `npm run bench -- soak`: a long run of mixed traffic at a steady rate, with a CPU hog on one core, watched from
// outside. The traffic is the chaos campaign's mixed load without its fault (test/chaos/mixed-load.ts): internal
// and external payments, payments from outside, restaurant orders, payroll ticks and kind-21000 payments, one cycle
// every BENCH_SOAK_CYCLE_MS, each checked against the exact balance every wallet must hold; beside it an NWC client
// (get_balance, make_invoice) and a CLINK payer (offer requests) call once a second each.
// Every BENCH_SOAK_SAMPLE_MS (default a minute) it samples the daemon's RSS, open file descriptors, main-thread
// event-loop delay (p99 over the interval, from bench/loop-delay-preload.ts), the main thread's heap (in use at the
// sample, and in use just after its last full collection), the relay's store (bytes counted against its quota, and
// its files) and the payments database's files. At the end: `relaypay audit` on the stopped daemon's data and the
// whole (what all wallets hold = what came in from outside less what left).
// The payments database and the relay's write-ahead log are reported, not judged: the books keep every payment by
// design, and the log is bounded by SQLite's checkpoints.
// "Grows without bound" is judged on the second half: a series whose last sample is more than a quarter above the
// largest of the first half grows (the first half is the warm-up: caches and pools fill). The heap is judged on its
// figure after a full collection: at a random moment it is anywhere between what is alive and the top of the room V8
// lets it grow into, and a last sample at that top said "grows" of a heap whose live part was flat all hour.
// BENCH_SOAK_MS sets the length (default an hour).
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import Database from 'better-sqlite3'
import { createChaosWorld, assertBalances, type ChaosWorld } from '../test/chaos/chaos-world.js'
import { runCycle, type CycleFault } from '../test/chaos/mixed-load.js'
import { loadMixes } from '../test/chaos/load-mixes.js'
import { seededRandom } from '../test/chaos/seeded-random.js'
import { audit, ok } from '../test/support/money.js'
import { appProfile } from '../test/support/pub-client.js'
import { NwcTestClient } from '../test/support/nwc-client.js'
import { ClinkClient } from '../test/clink/clink-client.js'
import { processRssMb } from './process-stats.js'
import { decodeNoffer } from '../src/nostr-codecs/index.js'
import { clinkOfferKind } from '../src/nostr-kinds/index.js'

const loopDelayPreload = fileURLToPath(new URL('./loop-delay-preload.js', import.meta.url))
const memoryPreload = fileURLToPath(new URL('./memory-preload.js', import.meta.url))

export interface SoakOptions {
  durationMs?: number
  sampleMs?: number
  /** One load cycle starts this often (a cycle that runs longer delays the next). */
  cycleMs?: number
  /** A busy loop on one core for the whole run (default true). */
  hog?: boolean
}

export interface SoakSample {
  minute: number
  rssMb: number | null
  openFds: number | null
  loopDelayP99Ms: number | null
  /** The main thread's V8 heap in use, and memory outside it held by JS objects (external), at the sample. */
  heapUsedMb: number | null
  /** The main thread's heap in use just after its last full collection (about what is alive): the heap's series. */
  heapAfterFullGcMb: number | null
  externalMb: number | null
  /**
   * With BENCH_MEMORY_DIR set (bench/memory-preload.ts in the daemon too): the V8 heap committed by each of the
   * daemon's threads, by its entry module ('main' for the main thread), in MB.
   */
  threadHeapsMb?: Record<string, number>
  relayStoreBytes: number | null
  /** The relay's database file, and its write-ahead log apart: the log is reused from its start after each
   * checkpoint (SQLite's, every 1,000 pages), so it grows to about 4 MB and no further. */
  relayFileBytes: number
  relayWalBytes: number
  paymentsDbFileBytes: number
  cycles: number
}

export interface SoakReport {
  durationMs: number
  cycles: number
  operationsSent: number
  operationsAcknowledged: number
  nwcCalls: { ok: number; failed: number }
  clinkRequests: { ok: number; failed: number }
  samples: SoakSample[]
  /** Per series: the largest sample of the first half, the last sample, and whether it grew past a quarter above. */
  growth: Record<string, { firstHalfMax: number | null; last: number | null; grows: boolean }>
  auditClean: boolean
  wholeMatches: boolean
  floors: Record<string, boolean>
}

/** The fault of a soak: none. */
const noFault: CycleFault = { name: 'nothing', strike: async () => 'up' }

export async function benchSoak(opts: SoakOptions = {}): Promise<SoakReport> {
  const durationMs = opts.durationMs ?? 3_600_000
  const sampleMs = opts.sampleMs ?? 60_000
  const cycleMs = opts.cycleMs ?? 2000
  const delayFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'relaypay-soak-')), 'loop-delay.json')
  const memoryDir = process.env.BENCH_MEMORY_DIR
  if (memoryDir) fs.mkdirSync(memoryDir, { recursive: true })
  const env = {
    NODE_OPTIONS: `--import ${loopDelayPreload}${memoryDir ? ` --import ${memoryPreload}` : ''}`,
    BENCH_LOOP_DELAY_FILE: delayFile,
    BENCH_LOOP_DELAY_MS: String(sampleMs),
    RELAYPAY_LOG_LEVEL: 'warn',
    ...(memoryDir ? { BENCH_MEMORY_DIR: memoryDir } : {}),
  }
  const world = await createChaosWorld({ env })
  const hog = opts.hog === false ? undefined : spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' })
  const random = seededRandom(Number(process.env.BENCH_SOAK_SEED ?? Date.now() % 1_000_000_007))
  const started = Date.now()
  const until = started + durationMs
  let running = true
  let cycles = 0
  let sent = 0
  let acked = 0
  const nwcCalls = { ok: 0, failed: 0 }
  const clinkRequests = { ok: 0, failed: 0 }
  const samples: SoakSample[] = []
  let stopped = false
  try {
    const side = await sideTraffic(world, () => running, nwcCalls, clinkRequests)
    const sampler = (async () => {
      for (let minute = 1; running; minute++) {
        await sleepUntil(started + minute * sampleMs, () => running)
        if (!running) break
        samples.push(sample(world, minute, delayFile, cycles))
        process.stderr.write(`soak: ${JSON.stringify(samples[samples.length - 1])}\n`)
      }
    })()
    for (let cycle = 1; Date.now() < until; cycle++) {
      const cycleStarted = Date.now()
      const stats = await runCycle(world, random, loadMixes.mixed, cycle, noFault)
      await assertBalances(world, `soak cycle ${cycle}`)
      cycles = cycle
      sent += stats.sent
      acked += stats.acked
      await sleepUntil(Math.min(until, cycleStarted + cycleMs), () => true)
    }
    running = false
    await Promise.all([side.done, sampler])
    side.close()
    await world.daemon.stop()
    stopped = true
    const books = await audit(world.dataDir)
    const growth = Object.fromEntries(
      (['rssMb', 'heapAfterFullGcMb', 'openFds', 'loopDelayP99Ms', 'relayStoreBytes', 'relayFileBytes'] as const).map(series => [
        series,
        growthOf(samples.map(s => s[series])),
      ]),
    )
    const lastRss = samples[samples.length - 1]?.rssMb ?? null
    return {
      durationMs: Date.now() - started,
      cycles,
      operationsSent: sent,
      operationsAcknowledged: acked,
      nwcCalls,
      clinkRequests,
      samples,
      growth,
      auditClean: books.ok,
      wholeMatches: books.walletsTotalMsat === world.netInflowMsat,
      floors: {
        nothingGrowsWithoutBound: Object.values(growth).every(g => !g.grows),
        rssUnder200Mb: lastRss !== null && lastRss < 200,
        auditClean: books.ok,
        nothingLost: books.walletsTotalMsat === world.netInflowMsat,
        sideTrafficAnswered: nwcCalls.failed === 0 && clinkRequests.failed === 0,
      },
    }
  } finally {
    running = false
    hog?.kill('SIGKILL')
    if (!stopped) await world.close().catch(() => undefined)
    else world.closeClients()
  }
}

/** NWC and CLINK calls once a second each, until `running()` is false. */
async function sideTraffic(world: ChaosWorld, running: () => boolean, nwc: { ok: number; failed: number }, clink: { ok: number; failed: number }) {
  const { relays } = appProfile(world.dataDir)
  const { bob, carol } = world.http
  const { connection_uri: uri } = await ok(world.daemon, '/api/user/nwc/create', carol.auth, { name: 'soak' })
  const nwcClient = await NwcTestClient.connect(uri, relays[0]!)
  // Bob's default offer, addressed to the key of his app (an offer is asked of the app it belongs to).
  const offer = decodeNoffer((await ok(world.daemon, '/api/user/offer/get', bob.auth, { offer_id: bob.identifier })).noffer as string)
  const clinkClient = await ClinkClient.connect(relays[0]!, offer.pubkey)
  const count = async (tally: { ok: number; failed: number }, call: () => Promise<boolean>) => {
    const good = await call().catch(() => false)
    if (good) tally.ok++
    else tally.failed++
  }
  const loop = async (every: number, step: (i: number) => Promise<void>) => {
    for (let i = 0; running(); i++) {
      const at = Date.now()
      await step(i)
      await sleepUntil(at + every, running)
    }
  }
  const done = Promise.all([
    // get_balance reads; make_invoice writes an invoice that nobody pays (the balances the oracle checks stay).
    loop(1000, i => count(nwc, async () => (await nwcClient.request(i % 2 === 0 ? 'get_balance' : 'make_invoice', i % 2 === 0 ? {} : { amount: 21_000 })).error === null)),
    loop(1000, () =>
      count(clink, async () => {
        const exchange = await clinkClient.send(clinkOfferKind, { offer: offer.offer, amount_sats: 21 })
        try {
          return typeof (await exchange.next()).payload.bolt11 === 'string'
        } finally {
          exchange.close()
        }
      }),
    ),
  ])
  return {
    done,
    close: () => {
      nwcClient.close()
      clinkClient.close()
    },
  }
}

function sample(world: ChaosWorld, minute: number, delayFile: string, cycles: number): SoakSample {
  const pid = world.daemon.process.pid
  const size = (file: string) => fs.statSync(file, { throwIfNoEntry: false })?.size ?? 0
  const files = (base: string) => ['', '-wal', '-shm'].reduce((sum, suffix) => sum + size(base + suffix), 0)
  let openFds: number | null = null
  try {
    openFds = fs.readdirSync(`/proc/${pid}/fd`).length
  } catch {
    // not Linux
  }
  let main: { p99Ms: number; heapUsedMb: number; heapAfterFullGcMb: number | null; externalMb: number } | undefined
  try {
    main = JSON.parse(fs.readFileSync(delayFile, 'utf8')) as typeof main
  } catch {
    // not written yet
  }
  return {
    minute,
    rssMb: processRssMb(pid),
    openFds,
    loopDelayP99Ms: main?.p99Ms ?? null,
    heapUsedMb: main?.heapUsedMb ?? null,
    heapAfterFullGcMb: main?.heapAfterFullGcMb ?? null,
    externalMb: main?.externalMb ?? null,
    relayStoreBytes: relayUsage(path.join(world.dataDir, 'relay.sqlite')),
    relayFileBytes: size(path.join(world.dataDir, 'relay.sqlite')),
    relayWalBytes: size(path.join(world.dataDir, 'relay.sqlite-wal')),
    paymentsDbFileBytes: files(path.join(world.dataDir, 'relaypay.sqlite')),
    cycles,
    ...(process.env.BENCH_MEMORY_DIR ? { threadHeapsMb: threadHeaps(process.env.BENCH_MEMORY_DIR, pid) } : {}),
  }
}

/** The latest heap figures each thread of `pid` wrote (bench/memory-preload.ts), committed MB by entry module. */
function threadHeaps(dir: string, pid: number | undefined): Record<string, number> {
  const out: Record<string, number> = {}
  for (const name of fs.readdirSync(dir).filter(name => name.startsWith(`${pid}-`) && name.endsWith('.json') && !name.includes('heapsnapshot'))) {
    try {
      const figures = JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8')) as { main: boolean; module?: string; totalKb: number; threadId: number }
      const label = figures.main ? 'main' : `${path.basename(figures.module ?? 'worker')}#${figures.threadId}`
      out[label] = Math.round(figures.totalKb / 102.4) / 10
    } catch {
      // being written
    }
  }
  return out
}

/** The bytes the relay counts against its quota (its `usage` table, read-only); null when it cannot be read. */
function relayUsage(file: string): number | null {
  try {
    const db = new Database(file, { readonly: true, fileMustExist: true })
    try {
      return (db.prepare("SELECT bytes FROM usage WHERE key = ''").get() as { bytes: number } | undefined)?.bytes ?? 0
    } finally {
      db.close()
    }
  } catch {
    return null
  }
}

function growthOf(values: (number | null)[]): { firstHalfMax: number | null; last: number | null; grows: boolean } {
  const known = values.filter((v): v is number => v !== null)
  const firstHalf = known.slice(0, Math.max(1, Math.floor(known.length / 2)))
  const firstHalfMax = firstHalf.length > 0 ? Math.max(...firstHalf) : null
  const last = known.length > 0 ? known[known.length - 1]! : null
  return { firstHalfMax, last, grows: firstHalfMax !== null && last !== null && known.length >= 4 && last > firstHalfMax * 1.25 }
}

async function sleepUntil(at: number, running: () => boolean): Promise<void> {
  while (running() && Date.now() < at) await new Promise(resolve => setTimeout(resolve, Math.min(250, at - Date.now())))
}
