// Runs every compiled test file in its own process, because integration tests start daemons and relays: three at a
// time on CI's two cores (the files mostly wait on daemons, relays and timers; with two at a time the cores were 60 %
// busy), or TEST_JOBS. Prints uvu's per-file summary and ends with the line CI reads: "N passed, N failed".
// Files named *.regtest.test.* run on a real regtest Lightning network of their own (test/support/regtest/): once for
// each LND version under test (RELAYPAY_TEST_LND_VERSIONS, or every version whose binaries are built; the newest only
// for a file that says so, see support/regtest/versions.ts), each run with
// RELAYPAY_TEST_LND_VERSIONS naming its one version; with none built, once, to print that they are skipped.
// Usage: node build/test/run.js [--store | --both] [--busy] [path-substring …]
// --store: only the files the store switch changes (test/store-tests.ts), for the PostgreSQL half of a run
// (RELAYPAY_TEST_STORE=postgres); the others behave the same on either setting.
// --both: every file on SQLite and those files again on PostgreSQL (RELAYPAY_TEST_POSTGRES_URL's server), in one
// queue: the slow campaigns first, so that no half waits on the other's tail.
// --busy: a busy loop on every core for the whole run, as on a host where other work keeps both cores taken; the
// suite must pass so (waits are for events, and the daemon's lock and answers must hold). .ci/run runs the files
// that once failed only on a loaded machine once more this way, after the suite.
import { spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { storeTests } from './store-tests.js'
import { lndVersionsForRun, lndVersionsOfFile } from './support/regtest/versions.js'

const testRoot = path.dirname(fileURLToPath(import.meta.url))
const jobs = Math.max(1, Number(process.env.TEST_JOBS ?? 3))
const fileTimeoutMs = Number(process.env.TEST_FILE_TIMEOUT_MS ?? 5 * 60_000)
const onlyStore = process.argv.includes('--store')
const both = process.argv.includes('--both')
const busy = process.argv.includes('--busy')
const filters = process.argv.slice(2).filter(arg => arg !== '--store' && arg !== '--both' && arg !== '--busy')
type Store = 'sqlite' | 'postgres' | undefined

function findTests(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap(item => {
    const full = path.join(dir, item.name)
    if (item.isDirectory()) return item.name === 'support' ? [] : findTests(full)
    return item.name.endsWith('.test.js') ? [full] : []
  })
}

interface FileResult {
  file: string
  store: Store
  lnd?: string
  passed: number
  failed: number
  skipped: number
  output: string
  ms: number
  /** CPU time of the file's process and the processes it waited for (support/cpu-report.ts); unknown off Linux. */
  cpuMs?: number
}

const cpuReport = pathToFileURL(path.join(testRoot, 'support', 'cpu-report.js')).href

/** The process groups of the files running now; a terminal's Ctrl-C does not reach them on its own. */
const groups = new Set<() => void>()
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    for (const kill of [...groups]) kill()
    process.exit(130)
  })
}

function runFile({ file, store, lnd }: Entry): Promise<FileResult> {
  const started = Date.now()
  const env: NodeJS.ProcessEnv = { ...process.env, FORCE_COLOR: '0' }
  if (lnd) env.RELAYPAY_TEST_LND_VERSIONS = lnd
  if (store === 'postgres') env.RELAYPAY_TEST_STORE = 'postgres'
  if (store === 'sqlite') delete env.RELAYPAY_TEST_STORE
  // Both halves fuzz, each with half the requests: the run's fuzzing is what one half alone used to do, and each
  // engine gets its share (the PostgreSQL half found the NUL characters SQLite stores and PostgreSQL refuses).
  if (store && withPostgres && env.FUZZ_SCALE === undefined) env.FUZZ_SCALE = '0.5'
  return new Promise(resolve => {
    // Each file runs in a process group of its own, with its daemons (and a regtest file's network): a file killed
    // for hanging, or one that died before its hooks stopped what it started, takes them with it. A daemon left
    // behind would otherwise spend the cores every later file waits on (an idle one about 30 ms a second) to the
    // end of the run.
    const child = spawn(process.execPath, ['--import', cpuReport, file], { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
    const killGroup = () => {
      groups.delete(killGroup)
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL')
      } catch {
        // the group is gone already
      }
    }
    groups.add(killGroup)
    let output = ''
    child.stdout.on('data', chunk => (output += chunk))
    child.stderr.on('data', chunk => (output += chunk))
    // A regtest file starts its network (half a minute) and waits on real blocks and payments: twice the time.
    const limitMs = onRegtest(file) ? 2 * fileTimeoutMs : fileTimeoutMs
    const timer = setTimeout(() => {
      output += `\n[runner] killed after ${limitMs} ms\n`
      child.kill('SIGKILL')
      killGroup()
    }, limitMs)
    child.on('close', code => {
      clearTimeout(timer)
      killGroup()
      const cpu = /\n\[cpu\] (\d+) ms\n/.exec(output)
      const clean = output.replace(/\n\[cpu\] \d+ ms\n/, '').replace(/\x1b\[[0-9;]*m/g, '')
      const count = (label: string) =>
        [...clean.matchAll(new RegExp(`${label}:\\s+(\\d+)`, 'g'))].reduce((sum, m) => sum + Number(m[1]), 0)
      let passed = count('Passed')
      // uvu's Total counts the tests that ran: a skipped one is in Skipped only.
      let failed = count('Total') - passed
      // A crash, a hang or a failure outside any test still fails the file.
      if (code !== 0 && failed === 0) failed = 1
      if (code === 0 && count('Total') === 0) failed = 1
      resolve({ file, store, lnd, passed, failed, skipped: count('Skipped'), output: clean, ms: Date.now() - started, cpuMs: cpu ? Number(cpu[1]) : undefined })
    })
  })
}

interface Entry {
  file: string
  store: Store
  /** The one LND version a *.regtest.test file runs on. */
  lnd?: string
}

const onRegtest = (file: string) => /\.regtest\.test\.js$/.test(file)
const lndRuns = lndVersionsForRun()
/**
 * A *.regtest.test file once per LND version under test (the real network is its subject, not the store), or on
 * the newest only when its opening comment says so (support/regtest/versions.ts).
 */
const perLndVersion = (entries: Entry[]): Entry[] =>
  entries.flatMap(entry => (onRegtest(entry.file) && lndRuns.length > 0 ? lndVersionsOfFile(entry.file, lndRuns).map(lnd => ({ ...entry, lnd })) : [entry]))

/** Files that run for a minute or more (campaigns, crash rounds, restarts): started first, longest-first. */
const slowFirst = ['.regtest.', 'chaos/', 'fuzz/', 'wallet/crash', 'wallet/lnd-', 'swaps/lockup', 'swaps/swap-recovery', 'health/probes', 'lifecycle/', 'clink/enroll-budget']
const weight = (entry: Entry) => {
  const rank = slowFirst.findIndex(prefix => entry.file.includes(prefix))
  return (rank === -1 ? slowFirst.length : rank) * 2 + (entry.store === 'postgres' ? 0 : 1)
}

const matching = findTests(testRoot)
  .filter(file => filters.length === 0 || filters.some(f => file.includes(f)))
  .sort()
const withPostgres = both && process.env.RELAYPAY_TEST_POSTGRES_URL !== undefined
if (both && !withPostgres) process.stdout.write('--both without RELAYPAY_TEST_POSTGRES_URL: SQLite only\n')
// The PostgreSQL half leaves out the regtest files: their subject is LND, and each starts a network of its own.
const entries: Entry[] = perLndVersion(
  both
    ? [
        ...matching.map(file => ({ file, store: 'sqlite' as const })),
        ...(withPostgres ? storeTests(matching.filter(file => !onRegtest(file)), testRoot).map(file => ({ file, store: 'postgres' as const })) : []),
      ].sort((a, b) => weight(a) - weight(b))
    : (onlyStore ? storeTests(matching.filter(file => !onRegtest(file)), testRoot) : matching).map(file => ({ file, store: undefined })),
)
if (onlyStore) process.stdout.write(`${entries.length} of ${matching.length} test files start daemons that follow RELAYPAY_TEST_STORE\n`)
if (withPostgres) process.stdout.write(`${matching.length} test files on SQLite, ${entries.length - matching.length} of them again on PostgreSQL\n`)
// The regtest files take three lanes of their own (TEST_REGTEST_JOBS). One runs from the start: a network mostly
// waits (for blocks, for LND), and left to the end the regtest files alone kept the machine half idle for minutes.
// The others open once every other file has started: three networks coming up beside the chaos campaigns (load
// average 11 on two cores) once made PostgreSQL daemons of the campaigns lose their lock sessions, when the
// heartbeat ran on the daemon's main thread. Their daemons run niced.
const regtestJobs = Math.max(1, Number(process.env.TEST_REGTEST_JOBS ?? 3))
const regtestQueue = entries.filter(entry => entry.lnd !== undefined)
const queue = entries.filter(entry => entry.lnd === undefined)
const results: FileResult[] = []
const startedAt = Date.now()
const label = (result: FileResult) =>
  `${result.store === 'postgres' ? '[postgres] ' : ''}${result.lnd ? `[lnd ${result.lnd}] ` : ''}${path.relative(testRoot, result.file)}`
let othersStarted!: () => void
const allOthersStarted = new Promise<void>(resolve => (othersStarted = resolve))
const lane = async (from: Entry[], fromTheStart = from === queue) => {
  if (!fromTheStart) await allOthersStarted
  for (let entry = from.shift(); entry; entry = from.shift()) {
    if (queue.length === 0) othersStarted()
    const result = await runFile(entry)
    results.push(result)
    const mark = result.failed > 0 ? 'FAIL' : 'ok  '
    const cpu = result.cpuMs === undefined ? '' : `, CPU ${(result.cpuMs / 1000).toFixed(1)} s`
    process.stdout.write(`${mark} ${label(result)}: ${result.passed} passed, ${result.failed} failed (${result.ms} ms${cpu})\n`)
    if (result.failed > 0) process.stdout.write(result.output.replace(/^/gm, '    | ') + '\n')
  }
}
if (queue.length === 0) othersStarted()
const hogs: ChildProcess[] = busy
  ? Array.from({ length: os.availableParallelism() }, () => spawn(process.execPath, ['-e', 'for (;;);'], { stdio: 'ignore' }))
  : []
if (busy) process.stdout.write(`--busy: a busy loop on each of ${hogs.length} cores for the whole run\n`)
process.once('exit', () => hogs.forEach(hog => hog.kill('SIGKILL')))
await Promise.all([
  ...Array.from({ length: jobs }, () => lane(queue)),
  ...Array.from({ length: Math.min(regtestJobs, regtestQueue.length) }, (_, n) => lane(regtestQueue, n === 0)),
])
for (const hog of hogs) hog.kill('SIGKILL')
const sum = (of: FileResult[], key: 'passed' | 'failed' | 'skipped') => of.reduce((total, r) => total + r[key], 0)
const [passed, failed, skipped] = (['passed', 'failed', 'skipped'] as const).map(key => sum(results, key))
// Where the run's time goes: the slowest files, one line.
const slowest = [...results].sort((a, b) => b.ms - a.ms).slice(0, 15)
process.stdout.write(`\nslowest: ${slowest.map(r => `${label(r)} ${(r.ms / 1000).toFixed(1)} s`).join(', ')}\n`)
// And where its CPU goes: on two cores the suite waits on CPU, so these decide its length.
const measured = results.filter(r => r.cpuMs !== undefined)
if (measured.length > 0) {
  const costliest = [...measured].sort((a, b) => b.cpuMs! - a.cpuMs!).slice(0, 15)
  const cpuOf = (of: FileResult[]) => of.reduce((total, r) => total + (r.cpuMs ?? 0), 0) / 60_000
  const halves = [
    ['SQLite', measured.filter(r => r.store !== 'postgres' && !r.lnd)],
    ['PostgreSQL', measured.filter(r => r.store === 'postgres')],
    ['regtest', measured.filter(r => r.lnd)],
  ] as const
  process.stdout.write(`most CPU: ${costliest.map(r => `${label(r)} ${(r.cpuMs! / 1000).toFixed(1)} s`).join(', ')}\n`)
  process.stdout.write(`CPU: ${cpuOf(measured).toFixed(1)} min in all (${halves.filter(([, of]) => of.length > 0).map(([name, of]) => `${name} ${cpuOf(of).toFixed(1)}`).join(', ')})\n`)
}
if (withPostgres) {
  for (const store of ['sqlite', 'postgres'] as const) {
    const half = results.filter(r => r.store === store)
    process.stdout.write(`${store === 'sqlite' ? 'SQLite' : 'PostgreSQL'}: ${half.length} files, ${sum(half, 'passed')} passed, ${sum(half, 'failed')} failed\n`)
  }
}
const wallSeconds = Math.round((Date.now() - startedAt) / 1000)
process.stdout.write(`${entries.length} test files in ${Math.floor(wallSeconds / 60)} min ${wallSeconds % 60} s, ${jobs} at a time${results.some(r => r.lnd) ? ` (and ${regtestJobs} regtest files)` : ''}${busy ? ', every core busy' : ''}\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}\n`)
process.exit(failed > 0 || entries.length === 0 ? 1 : 0)
