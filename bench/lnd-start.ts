// Spawn → healthy of a daemon on LND after a crash, with payments LND is still pathfinding for and a long invoice
// history. One fake LND (in this process) holds `invoices` invoices of history (every tenth
// settled) and `pending` payments in flight with no HTLC out; a data dir is prepared once per build, by that build
// (a funded user, the payments started, then SIGKILL: an older build cannot run on a newer build's schema), and
// copied for every run. Each run spawns `relaypay start` of one build on a
// fresh copy, times daemon.json (HTTP listening) and the first 200 from /api/health, counts what the daemon asked
// the fake meanwhile, and SIGKILLs it. Builds alternate run by run (BENCH_LND_START_ROOTS: repo roots, comma
// separated; default this one). The history is signed before the first run, so that an old build listing it
// does not time the fake's signing.
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { createHash, randomBytes } from 'node:crypto'
import { decode } from 'light-bolt11-decoder'
import { relaypayArgs, startDaemon } from '../test/support/daemon.js'
import { startFakeLnd, type FakeLnd } from '../test/support/fake-lnd/fake-lnd.js'
import { outsideInvoice } from '../test/support/outside-invoice.js'
import { createAppWithUser, jwtSecretConfig } from '../test/support/accounts.js'
import { repoRoot } from '../test/support/paths.js'

export interface LndStartOptions {
  roots: string[]
  runs: number
  pending: number
  invoices: number
}

interface Run {
  root: string
  listeningMs: number
  healthyMs: number
  /** CPU the daemon process used from spawn to healthy (user + system): what load on the machine does not inflate. */
  cpuMs: number
  listInvoicesCalls: number
  invoicesListed: number
  invoicesReplayed: number
  trackPaymentCalls: number
}

const jwtSecret = 'bench-lnd-start-secret-0123456789abcdef'
const hashOf = (invoice: string) => (decode(invoice).sections.find(x => x.name === 'payment_hash') as { value: string }).value

async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  const started = Date.now()
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`)
    await new Promise(resolve => setTimeout(resolve, 20))
  }
}

/** A data dir of `root`'s build on `fake` with a funded user and `pending` payments LND is still pathfinding for, after a SIGKILL. */
async function prepare(fake: FakeLnd, pending: number, root: string): Promise<string> {
  const c = fake.connection
  const daemon = await startDaemon({
    cli: path.join(root, 'build/bin/relaypay.js'),
    // An old build lists the whole history at its first start: minutes on a loaded machine.
    startTimeoutMs: 600_000,
    config:
      jwtSecretConfig(jwtSecret) +
      `[node]\nbackend = "lnd"\nnetwork = "regtest"\nlnd_socket = "${c.socket}"\nlnd_cert_path = "${c.certPath}"\nlnd_macaroon_path = "${c.macaroonPath}"\n`,
    env: { RELAYPAY_LOG_LEVEL: 'warn' },
  })
  const user = await createAppWithUser(daemon, { jwtSecret, identifier: 'bench-payer' })
  const auth = { authorization: `Bearer ${user.userToken}` }
  const funding = await daemon.request('POST', '/api/user/invoice/new', { body: { amountSats: 100_000, memo: 'funding' }, headers: auth })
  fake.settleInvoice(hashOf(funding.json.invoice))
  await until(async () => {
    const got = await daemon.request('POST', '/api/app/user/get', { body: { user_identifier: user.identifier }, headers: { authorization: user.appToken } })
    return got.json?.info?.balance === 100_000
  }, 'the funding to be credited')
  fake.faults.pathfinding = true
  const hashes: string[] = []
  const paying = Array.from({ length: pending }, () => {
    const paymentHash = createHash('sha256').update(randomBytes(32)).digest('hex')
    hashes.push(paymentHash)
    const invoice = outsideInvoice({ network: 'regtest', nowMs: Date.now(), amountMsat: 1_000_000, paymentHash })
    return daemon
      .request('POST', '/api/user/invoice/pay', { body: { invoice: invoice.paymentRequest, amount: 0 }, headers: auth })
      .catch(() => undefined)
  })
  await until(() => hashes.every(h => fake.node.payments.get(h)?.status === 'IN_FLIGHT'), 'the payments to reach LND')
  await daemon.kill()
  await Promise.all(paying)
  return daemon.dataDir
}

/** User + system CPU of a live process, from /proc/<pid>/stat (clock ticks of 10 ms). */
function cpuMsOf(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return (Number(fields[11]) + Number(fields[12])) * 10
}

/** Spawns `root`'s daemon on `dataDir`; resolves once /api/health answered 200, then kills it. */
async function measure(root: string, dataDir: string, fake: FakeLnd): Promise<Run> {
  const traffic = fake.node.traffic
  traffic.calls.clear()
  traffic.invoicesListed = 0
  traffic.invoicesReplayed = 0
  const spawned = performance.now()
  const child = spawn(process.execPath, relaypayArgs(path.join(root, 'build/bin/relaypay.js'), ['start', '--data-dir', dataDir, '--http-port', '0']), {
    env: { ...process.env, RELAYPAY_LOG_LEVEL: 'warn', RELAYPAY_NOSTR_EMBEDDED_RELAY_PORT: '0' },
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  const exited = new Promise<void>(resolve => child.on('exit', () => resolve()))
  try {
    let url = ''
    await until(() => {
      try {
        const info = JSON.parse(fs.readFileSync(path.join(dataDir, 'daemon.json'), 'utf8'))
        if (info.pid === child.pid) url = info.url
      } catch {
        // not written yet
      }
      return url !== ''
    }, 'daemon.json', 600_000)
    const listeningMs = performance.now() - spawned
    await until(async () => (await fetch(`${url}/api/health`).catch(() => undefined))?.status === 200, '/api/health')
    const healthyMs = performance.now() - spawned
    const cpuMs = cpuMsOf(child.pid!)
    return {
      root,
      listeningMs: Math.round(listeningMs),
      healthyMs: Math.round(healthyMs),
      cpuMs,
      listInvoicesCalls: traffic.calls.get('ListInvoices') ?? 0,
      invoicesListed: traffic.invoicesListed,
      invoicesReplayed: traffic.invoicesReplayed,
      trackPaymentCalls: traffic.calls.get('TrackPaymentV2') ?? 0,
    }
  } finally {
    child.kill('SIGKILL')
    await exited
  }
}

export async function benchLndStart(opts: LndStartOptions) {
  const fake = await startFakeLnd({ network: 'regtest' })
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'relaypay-bench-lnd-start-'))
  try {
    fake.node.invoices.addHistory(opts.invoices, { settledEvery: 10 })
    const signing = performance.now()
    for (const invoice of fake.node.invoices.list({ pendingOnly: false, indexOffset: 0, max: opts.invoices + 1, reversed: false })) {
      void invoice.request
    }
    const signedInMs = Math.round(performance.now() - signing)
    const snapshots = new Map<string, string>()
    for (const root of opts.roots) snapshots.set(root, await prepare(fake, opts.pending, root))
    const runs: Run[] = []
    for (let n = 0; n < opts.runs; n++) {
      for (const root of opts.roots) {
        const dataDir = path.join(scratch, `run-${n}-${runs.length}`)
        fs.cpSync(snapshots.get(root)!, dataDir, { recursive: true })
        fs.rmSync(path.join(dataDir, 'daemon.json'), { force: true })
        const run = await measure(root, dataDir, fake)
        process.stderr.write(`lnd-start ${JSON.stringify(run)}\n`)
        runs.push(run)
        fs.rmSync(dataDir, { recursive: true, force: true })
      }
    }
    const byRoot = Object.fromEntries(
      opts.roots.map(root => {
        const mine = runs.filter(r => r.root === root)
        const healthy = mine.map(r => r.healthyMs).sort((a, b) => a - b)
        const cpu = mine.map(r => r.cpuMs).sort((a, b) => a - b)
        const median = (sorted: number[]) => sorted[Math.floor(sorted.length / 2)]
        return [root, { healthyMs: mine.map(r => r.healthyMs), medianHealthyMs: median(healthy), medianCpuMs: median(cpu), runs: mine }]
      }),
    )
    return { invoices: opts.invoices, pending: opts.pending, historySignedInMs: signedInMs, loadAverage: os.loadavg(), byRoot }
  } finally {
    await fake.close()
    fs.rmSync(scratch, { recursive: true, force: true })
  }
}

/** `npm run bench -- lndStart`, or this file directly. */
export function lndStartOptionsFromEnv(): LndStartOptions {
  return {
    roots: process.env.BENCH_LND_START_ROOTS?.split(',').filter(Boolean) ?? [repoRoot],
    runs: Number(process.env.BENCH_LND_START_RUNS ?? 3),
    pending: Number(process.env.BENCH_LND_START_PENDING ?? 10),
    invoices: Number(process.env.BENCH_LND_START_INVOICES ?? 100_000),
  }
}
