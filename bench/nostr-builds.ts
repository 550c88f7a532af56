// Nostr GetUserInfo round trips of one or more builds side by side: for each run, each
// relay (the daemon's embedded one, and an external `relaypay relay` process of the same build on loopback) and
// each build, a fresh daemon takes 8 and 64 requests in flight. Builds alternate within a run, so an old build
// and the new one see the same machine. Reported per row: round trips/s, p50/p99, and the CPU per round trip of
// the daemon (its embedded relay included), of an external relay, and of the clients (this process).
// BENCH_NOSTR_ROOTS: repo roots, comma separated (default this one); BENCH_NOSTR_RUNS (default 3);
// BENCH_NOSTR_RELAYS=embedded,external; BENCH_NOSTR_IN_FLIGHT=8,64; BENCH_PROFILE_DIR profiles each measured window
// of the daemon's main thread; BENCH_NOSTR_THREAD_PROFILES=<dir> runs the daemon and the external relay under
// `--cpu-prof`, which writes one profile per thread (main, signature thread, relay thread) at exit: their whole
// life, warm-up included, so give it one in-flight count.
import { spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { pathToFileURL } from 'node:url'
import { relaypayArgs, startDaemon, tempDataDir } from '../test/support/daemon.js'
import { repoRoot } from '../test/support/paths.js'
import { benchNostr, nostrBenchConfig, type NostrBenchRow } from './nostr.js'
import { profilingEnv } from './process-stats.js'

export type RelayPlace = 'embedded' | 'external'

export interface NostrBuildsOptions {
  roots?: string[]
  runs?: number
  relays?: RelayPlace[]
  inFlight?: number[]
  durationMs?: number
  profileDir?: string
  threadProfileDir?: string
}

export interface NostrBuildRow extends NostrBenchRow {
  run: number
  root: string
  relay: RelayPlace
  loadAverage: number
}

export async function benchNostrBuilds(opts: NostrBuildsOptions = {}) {
  const roots = opts.roots ?? [repoRoot]
  const rows: NostrBuildRow[] = []
  for (let run = 1; run <= (opts.runs ?? 3); run++) {
    for (const relay of opts.relays ?? ['embedded', 'external']) {
      for (const root of roots) {
        const profileDir = opts.profileDir && path.join(opts.profileDir, `${path.basename(root)}-${relay}-${run}`)
        const threadDir = opts.threadProfileDir && path.join(opts.threadProfileDir, `${path.basename(root)}-${relay}-${run}`)
        const cli = threadDir ? profiledCli(root, threadDir) : path.join(root, 'build/bin/relaypay.js')
        const measured = await benchOneBuild(cli, relay, opts.inFlight ?? [8, 64], opts.durationMs ?? 3000, profileDir)
        for (const row of measured) {
          const line: NostrBuildRow = { run, root, relay, loadAverage: Math.round(os.loadavg()[0]! * 100) / 100, ...row }
          process.stderr.write(
            `nostr-builds run ${run} ${relay} ${root} c${row.inFlight}: ${row.roundTripsPerSecond}/s daemon ${row.daemonCpuMsPerRoundTrip} ms` +
              `${row.relayCpuMsPerRoundTrip !== undefined ? ` relay ${row.relayCpuMsPerRoundTrip} ms` : ''} client ${row.clientCpuMsPerRoundTrip} ms p99 ${row.p99Ms}\n`,
          )
          rows.push(line)
        }
      }
    }
  }
  return { rows, summary: summarise(rows) }
}

/**
 * A command file that runs `root`'s build under `--cpu-prof` into `dir` (startDaemon and the external relay take
 * node's flags from a command's first line).
 */
export function profiledCli(root: string, dir: string): string {
  fs.mkdirSync(dir, { recursive: true })
  const real = path.join(root, 'build/bin/relaypay.js')
  const flags = relaypayArgs(real, []).slice(0, -1)
  const file = path.join(dir, 'relaypay-profiled.js')
  fs.writeFileSync(file, `#!/usr/bin/env -S node ${[...flags, '--cpu-prof', `--cpu-prof-dir=${dir}`].join(' ')}\nimport ${JSON.stringify(pathToFileURL(real).href)}\n`)
  return file
}

async function benchOneBuild(cli: string, relay: RelayPlace, inFlight: number[], durationMs: number, profileDir: string | undefined) {
  const external = relay === 'external' ? await startExternalRelay(cli) : undefined
  try {
    const config = nostrBenchConfig + (external ? `relays = ["${external.url}"]\n` : '')
    const daemon = await startDaemon({ cli, config, env: { RELAYPAY_LOG_LEVEL: 'warn', ...(profileDir ? profilingEnv(profileDir) : {}) } })
    try {
      // Requests are ephemeral events: an external relay keeps none for a daemon that has not subscribed yet.
      if (external) await sleep(1500)
      const { rows } = await benchNostr({
        daemon,
        durationMs,
        inFlight,
        operations: ['GetUserInfo'],
        ...(profileDir ? { profileDir } : {}),
        ...(external ? { relayPid: external.process.pid } : {}),
      })
      return rows
    } finally {
      await daemon.stop()
    }
  } finally {
    await external?.stop()
  }
}

/** `relaypay relay` of the given build on a free loopback port, with the bench's relay quotas. */
async function startExternalRelay(cli: string): Promise<{ url: string; process: ChildProcess; stop(): Promise<void> }> {
  const dataDir = path.join(tempDataDir(), 'relay')
  fs.mkdirSync(dataDir, { recursive: true })
  // Every client connects from 127.0.0.1, which a public relay would take for one greedy address.
  const quotas = 'relay_max_subscriptions_per_address = 4096\nrelay_connections_per_second_per_address = 1000\n'
  fs.writeFileSync(path.join(dataDir, 'relaypay.toml'), nostrBenchConfig + quotas)
  const child = spawn(process.execPath, relaypayArgs(cli, ['relay', '--data-dir', dataDir, '--port', '0']), {
    env: { ...process.env, RELAYPAY_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the external relay did not start:\n${output}`)), 30_000)
    const read = (chunk: Buffer) => {
      output += chunk
      const match = output.match(/"url":"(ws:\/\/[^"]+)"/)
      if (match) {
        clearTimeout(timer)
        resolve(match[1]!)
      }
    }
    child.stdout!.on('data', read)
    child.stderr!.on('data', read)
    child.on('exit', code => reject(new Error(`the external relay exited with ${code}:\n${output}`)))
  })
  const exited = new Promise<void>(resolve => child.on('exit', () => resolve()))
  return {
    url,
    process: child,
    async stop() {
      child.kill('SIGTERM')
      await exited
      fs.rmSync(path.dirname(dataDir), { recursive: true, force: true })
    },
  }
}

/** Per relay, build and in-flight count: every run's figures, and their median. */
function summarise(rows: NostrBuildRow[]) {
  const groups = new Map<string, NostrBuildRow[]>()
  for (const row of rows) {
    const key = `${row.relay} c${row.inFlight} ${row.root}`
    groups.set(key, [...(groups.get(key) ?? []), row])
  }
  const median = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b)
    return sorted[Math.floor(sorted.length / 2)] ?? null
  }
  return [...groups].map(([key, group]) => ({
    key,
    roundTripsPerSecond: group.map(row => row.roundTripsPerSecond),
    daemonCpuMsPerRoundTrip: group.map(row => row.daemonCpuMsPerRoundTrip),
    relayCpuMsPerRoundTrip: group.map(row => row.relayCpuMsPerRoundTrip ?? null),
    clientCpuMsPerRoundTrip: group.map(row => row.clientCpuMsPerRoundTrip),
    medianRoundTripsPerSecond: median(group.map(row => row.roundTripsPerSecond)),
    medianDaemonCpuMsPerRoundTrip: median(group.map(row => row.daemonCpuMsPerRoundTrip ?? 0)),
  }))
}

export function nostrBuildsOptionsFromEnv(): NostrBuildsOptions {
  const env = process.env
  return {
    ...(env.BENCH_NOSTR_ROOTS ? { roots: env.BENCH_NOSTR_ROOTS.split(',').filter(Boolean) } : {}),
    runs: Number(env.BENCH_NOSTR_RUNS ?? 3),
    ...(env.BENCH_NOSTR_RELAYS ? { relays: env.BENCH_NOSTR_RELAYS.split(',') as RelayPlace[] } : {}),
    durationMs: Number(env.BENCH_DURATION_MS ?? 3000),
    ...(env.BENCH_PROFILE_DIR ? { profileDir: env.BENCH_PROFILE_DIR } : {}),
    ...(env.BENCH_NOSTR_THREAD_PROFILES ? { threadProfileDir: env.BENCH_NOSTR_THREAD_PROFILES } : {}),
    ...(env.BENCH_NOSTR_IN_FLIGHT ? { inFlight: env.BENCH_NOSTR_IN_FLIGHT.split(',').map(Number) } : {}),
  }
}
