// What a plain start costs, for builds side by side in one run (BENCH_LEAN_START_ROOTS: repo
// roots, comma separated; default this one), alternating run by run. Each run spawns `relaypay start` of one build on
// an empty data dir (the offline default: embedded node and relay), times spawn → daemon.json (HTTP listening) and
// spawn → the first 200 from /readyz, then waits a second for the start's background work and reads the process's
// resident memory (VmRSS) and CPU (user + system), and stops it with SIGTERM.
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { tempDataDir } from '../test/support/daemon.js'
import { repoRoot } from '../test/support/paths.js'
import { processCpuMs, processRssMb } from './process-stats.js'

export interface LeanStartOptions {
  roots: string[]
  runs: number
}

interface Run {
  root: string
  listeningMs: number
  readyMs: number
  rssMb: number | null
  cpuMs: number | null
}

async function measure(root: string): Promise<Run> {
  const dataDir = path.join(tempDataDir(), 'data')
  const spawned = performance.now()
  const child = spawn(process.execPath, [path.join(root, 'build/bin/relaypay.js'), 'start', '--data-dir', dataDir, '--http-port', '0'], {
    env: { ...process.env, RELAYPAY_LOG_LEVEL: 'warn', RELAYPAY_NOSTR_EMBEDDED_RELAY_PORT: '0' },
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  const exited = new Promise<void>(resolve => child.on('exit', () => resolve()))
  try {
    let url = ''
    let listeningMs = 0
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${root}: the daemon exited with ${child.exitCode}`)
      if (!url) {
        try {
          const info = JSON.parse(fs.readFileSync(path.join(dataDir, 'daemon.json'), 'utf8'))
          if (info.pid === child.pid) {
            url = info.url
            listeningMs = performance.now() - spawned
          }
        } catch {
          // not written yet
        }
      }
      if (url && (await fetch(`${url}/readyz`).catch(() => undefined))?.status === 200) break
      if (performance.now() - spawned > 120_000) throw new Error(`${root}: not ready within 120 s`)
      await sleep(10)
    }
    const readyMs = performance.now() - spawned
    await sleep(1000)
    return {
      root,
      listeningMs: Math.round(listeningMs),
      readyMs: Math.round(readyMs),
      rssMb: processRssMb(child.pid),
      cpuMs: processCpuMs(child.pid),
    }
  } finally {
    child.kill('SIGTERM')
    await exited
    fs.rmSync(path.dirname(dataDir), { recursive: true, force: true })
  }
}

export async function benchLeanStart(opts: LeanStartOptions) {
  const runs: Run[] = []
  for (let n = 0; n < opts.runs; n++) {
    for (const root of opts.roots) {
      const run = await measure(root)
      process.stderr.write(`lean-start ${JSON.stringify(run)}\n`)
      runs.push(run)
    }
  }
  const median = (values: (number | null)[]) => {
    const sorted = values.filter((v): v is number => v !== null).sort((a, b) => a - b)
    return sorted[Math.floor(sorted.length / 2)] ?? null
  }
  const byRoot = Object.fromEntries(
    opts.roots.map(root => {
      const mine = runs.filter(r => r.root === root)
      return [
        root,
        {
          medianListeningMs: median(mine.map(r => r.listeningMs)),
          medianReadyMs: median(mine.map(r => r.readyMs)),
          medianRssMb: median(mine.map(r => r.rssMb)),
          medianCpuMs: median(mine.map(r => r.cpuMs)),
          runs: mine,
        },
      ]
    }),
  )
  return { loadAverage: os.loadavg(), byRoot }
}

/** `npm run bench -- leanStart`. */
export function leanStartOptionsFromEnv(): LeanStartOptions {
  return {
    roots: process.env.BENCH_LEAN_START_ROOTS?.split(',').filter(Boolean) ?? [repoRoot],
    runs: Number(process.env.BENCH_LEAN_START_RUNS ?? 5),
  }
}
