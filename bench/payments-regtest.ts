// relaypay on a real Lightning network (test/support/regtest: btcd, LND A under the daemon, R routing, B the outside
// world), beside a bare gRPC client (bench/bare-lnd-client.ts) making the LND calls relaypay makes, on the same node
// in the same run. The question is whether LND or relaypay limits each path: relaypay should reach ≥ 90 % of the
// bare client's rate on every one. Paths and what the bare client does (the calls relaypay makes, src/node/lnd/):
//   - invoices: AddAppUserInvoice over HTTP; bare: AddInvoice with the same memo, amount and expiry
//   - pairs: AddAppUserInvoice for one user, then PayAppUserInvoice of it from another; relaypay finds its own
//     invoice by its text and pays it in its books, so a pair calls LND once (AddInvoice); bare: one AddInvoice per
//     pair. The ratio says how much of LND's invoice rate is left once relaypay keeps the books of both halves.
//   - outgoing: PayAppUserInvoice of B's invoices, through R; bare: DecodePayReq, then SendPaymentV2 with relaypay's
//     parameters read to the stream's end
//   - settlements: B pays invoices of A (made beforehand); relaypay's figure ends when the daemon has credited each,
//     the bare one when SubscribeInvoices has said each is settled; latency is from B starting a payment to then
// Both sides run at the same concurrency, alternating window by window (the order flips each round, so neither is
// always the one on a bigger LND database or a hotter machine); every round's figures are printed with the pooled
// ones. Each path runs at every concurrency of the list (8 and 16 by default), and the goal is judged on capacity:
// each side's best pooled rate over the list. Whether LND or relaypay limits a path is a question of capacity, and
// one concurrency cannot answer it for a path whose operation spends part of its time away from LND: a pair holds
// its worker through the payment in relaypay's books, so at 8 in flight fewer than 8 AddInvoice calls wait at LND,
// while the bare client keeps 8 there. Where the bare client's rate at 16 is no higher than at 8 (as measured on
// the project's machine), LND is already saturated at 8, and a pair that reaches LND's rate at 16 shows relaypay
// can draw all of it (more in flight also makes the daemon's group commits larger, its CPU per pair smaller). The
// ratio at each concurrency is printed as well. A path with a failed operation in any window gets no verdict: a
// refusal is fast, so its window measured something else than a rate. The payer is funded for the whole plan
// (pairs at a rate no window reaches, every outgoing payment): funded for less, a longer plan ran it dry and its
// last windows were all refusals.
// The daemon runs through the bare windows too (it is the same node's daemon): its settlement stream hears of
// the bare client's invoices, and its CPU in those windows is given. The network's daemons run at nice 10, as
// every test network does, under the daemon and this process at 0.
// Reading the ratio: where every process draws on the same few cores, each side's rate follows the CPU its operation
// costs in all of them (the daemon or the bare client, this process, A, R and B), so each window prints the CPU per
// operation of each; where LND's share is large (outgoing, settlements) the daemon's hardly moves the ratio, where it
// is small (invoices, pairs) the daemon's own CPU per operation decides it.
// BENCH_REGTEST_SPLIT=1 answers the question without the shared cores: the network's processes (btcd, A, R, B) run
// on the first core and this process and the daemon on the others (taskset, Linux), so LND has a core that neither
// relaypay nor the bare client draws on, as it has where it runs on a host or cores of its own. The rate is then
// LND's wherever relaypay keeps up with it, and relaypay's own where it does not.
// `npm run bench -- paymentsRegtest`; BENCH_REGTEST_LND (default v0.21.2-beta), BENCH_REGTEST_ROUNDS (3),
// BENCH_REGTEST_CONCURRENCY (8,16: a list), BENCH_REGTEST_WINDOW_MS (3000, the invoices and pairs windows),
// BENCH_REGTEST_PAYMENTS (100 per outgoing and settlements window), BENCH_PROFILE_DIR (profiles of relaypay's windows).
import { execFileSync } from 'node:child_process'
import os from 'node:os'
import { pathToFileURL } from 'node:url'
import { startDaemon, type TestDaemon } from '../test/support/daemon.js'
import { addAppUser, createAppWithUser, jwtSecretConfig } from '../test/support/accounts.js'
import { assertAuditClean, balanceOf } from '../test/support/money.js'
import { until } from '../test/support/until.js'
import { lndVersions, pushSats, startRegtest, type Regtest } from '../test/support/regtest/index.js'
import { bareLnd, type BareLnd } from './bare-lnd-client.js'
import { loadAverage, pooled, round, type WindowFigures } from './closed-loop.js'
import { processCpuMs, processRssMb, profilingEnv } from './process-stats.js'
import { regtestPaths, sides, type PathName, type Side, type WindowSize } from './regtest-paths.js'

export interface PaymentsRegtestOptions {
  lndVersion: string
  rounds: number
  /** Every path runs at each; the goal is judged on each side's best rate over them. */
  concurrencies: number[]
  windowMs: number
  paymentsPerWindow: number
  profileDir?: string
  /** The network on the first core, this process and the daemon on the others. */
  splitCores?: boolean
}

const jwtSecret = 'bench-payments-regtest-secret-0123456789'
/** What each pair and each outgoing payment costs the payer: 10 sats and the service fee's floor, 10 sats. */
const payerSatsPerOperation = 20
/** Pairs a second no window here comes near (about 1,200 at most on the project's machine). */
const pairsPerSecondBound = 3000
/** What one payment from B through R can bring A: what was pushed to R and B, less the channel reserve and fees. */
const maxFundingSats = pushSats - 500_000
/** relaypay's goal on every path: this share of the bare client's rate. */
const goalRatio = 0.9
const idleWindowMs = 5000
const warmUp: WindowSize = { durationMs: 1000, payments: 10 }

export async function benchPaymentsRegtest(opts: PaymentsRegtestOptions) {
  if (opts.concurrencies.length === 0 || opts.concurrencies.some(c => !Number.isInteger(c) || c < 1)) {
    throw new Error(`concurrencies must be whole numbers of 1 or more (got ${opts.concurrencies.join(', ')})`)
  }
  // The payer is funded once, for the whole plan: a payer left without sats turns every later window into errors.
  const fundingSats = payerFunding(opts)
  if (fundingSats > maxFundingSats) {
    throw new Error(
      `a plan of ${opts.rounds} rounds at ${opts.concurrencies.join(', ')} in flight could spend ${fundingSats} sats, more than B can fund (${maxFundingSats}): fewer rounds, concurrencies or a shorter window`,
    )
  }
  if (!(lndVersions as readonly string[]).includes(opts.lndVersion)) {
    throw new Error(`BENCH_REGTEST_LND=${opts.lndVersion}: known versions are ${lndVersions.join(', ')}`)
  }
  const net = await startRegtest(opts.lndVersion)
  let daemon: TestDaemon | undefined
  const clients: BareLnd[] = []
  try {
    // Before the daemon starts, so that it inherits this process's cores.
    const cores = opts.splitCores ? splitCores(net) : undefined
    daemon = await startDaemon({
      config: jwtSecretConfig(jwtSecret) + net.nodeConfig(),
      mock: false,
      env: { RELAYPAY_LOG_LEVEL: 'warn', ...(opts.profileDir ? profilingEnv(opts.profileDir) : {}) },
    })
    const a = bareLnd(net, 'A')
    const b = bareLnd(net, 'B')
    clients.push(a, b)
    const payer = await createAppWithUser(daemon, { jwtSecret, identifier: 'payer' })
    const app = { appToken: payer.appToken, appId: payer.appId, jwtSecret }
    await addAppUser(daemon, { ...app, identifier: 'payee' })
    await addAppUser(daemon, { ...app, identifier: 'receiver' })
    await fund(daemon, net, b, payer.appToken, fundingSats)
    const pathsAt = new Map<number, Awaited<ReturnType<typeof regtestPaths>>>()
    for (const concurrency of opts.concurrencies) {
      pathsAt.set(concurrency, await regtestPaths({ daemon, net, a, b, appToken: payer.appToken, concurrency, profileDir: opts.profileDir }))
    }
    const what = pathsAt.get(opts.concurrencies[0]!)!
    const names = Object.keys(what) as PathName[]

    for (const paths of pathsAt.values()) for (const name of names) for (const side of sides) await paths[name][side](warmUp)
    const idle = await idleDaemonCpu(daemon)
    const size: WindowSize = { durationMs: opts.windowMs, payments: opts.paymentsPerWindow }
    type Measured = Record<PathName, Record<number, Record<Side, WindowFigures>>>
    const rounds: { round: number; order: Side[]; loadAverage: number[]; paths: Measured }[] = []
    for (let round = 1; round <= opts.rounds; round++) {
      const order: Side[] = round % 2 === 1 ? ['relaypay', 'bare'] : ['bare', 'relaypay']
      const measured = {} as Measured
      for (const name of names) {
        measured[name] = {}
        for (const [concurrency, paths] of pathsAt) {
          const pair = {} as Record<Side, WindowFigures>
          for (const side of order) pair[side] = await paths[name][side](size)
          measured[name][concurrency] = pair
          const { relaypay, bare } = pair
          process.stderr.write(
            `paymentsRegtest round ${round} ${name} c=${concurrency}: relaypay ${relaypay.opsPerSecond}/s p99 ${relaypay.p99Ms} ms cpu ${relaypay.daemonCpuMsPerOp} ms/op err ${relaypay.errors}; ` +
              `bare ${bare.opsPerSecond}/s p99 ${bare.p99Ms} ms err ${bare.errors}; ratio ${ratioOf(relaypay.opsPerSecond, bare.opsPerSecond)}\n`,
          )
        }
      }
      rounds.push({ round, order, loadAverage: loadAverage(), paths: measured })
    }
    const audit = await assertAuditClean(daemon.dataDir)

    const summary = Object.fromEntries(
      names.map(name => {
        const at = Object.fromEntries(
          opts.concurrencies.map(concurrency => {
            const relaypay = pooled(rounds.map(r => r.paths[name][concurrency]!.relaypay))
            const bare = pooled(rounds.map(r => r.paths[name][concurrency]!.bare))
            const roundRatios = rounds.map(r => ratioOf(r.paths[name][concurrency]!.relaypay.opsPerSecond, r.paths[name][concurrency]!.bare.opsPerSecond))
            return [concurrency, { relaypay, bare, ratio: ratioOf(relaypay.opsPerSecond, bare.opsPerSecond), roundRatios }]
          }),
        )
        // Each side's capacity: its best pooled rate over the concurrencies, and where it had it.
        const best = (side: Side) => {
          const concurrency = opts.concurrencies.reduce((top, c) => (at[c]![side].opsPerSecond > at[top]![side].opsPerSecond ? c : top))
          return { opsPerSecond: at[concurrency]![side].opsPerSecond, concurrency }
        }
        const capacity = { relaypay: best('relaypay'), bare: best('bare') }
        const ratio = ratioOf(capacity.relaypay.opsPerSecond, capacity.bare.opsPerSecond)
        // A window with failures measured something else than a rate (a refusal is fast): no verdict from it.
        const errors = opts.concurrencies.reduce((sum, c) => sum + at[c]!.relaypay.errors + at[c]!.bare.errors, 0)
        return [name, { what: what[name].what, capacity, ratio, errors, goalMet: errors === 0 && ratio >= goalRatio, at }]
      }),
    )
    for (const name of names) {
      if (summary[name]!.errors > 0) process.stderr.write(`paymentsRegtest ${name}: ${summary[name]!.errors} operations failed (see each window's firstError); no verdict\n`)
    }
    const atEach = (name: PathName) => opts.concurrencies.map(c => `${summary[name]!.at[c]!.ratio} at ${c}`).join(', ')
    process.stderr.write(
      `paymentsRegtest capacity ratios (relaypay's best rate / the bare client's): ${names.map(name => `${name} ${summary[name]!.ratio} (${atEach(name)})`).join('; ')}\n`,
    )
    return {
      lndVersion: opts.lndVersion,
      cores: cores ?? { network: 'all', relaypay: 'all' },
      concurrencies: opts.concurrencies,
      windowMs: opts.windowMs,
      paymentsPerWindow: opts.paymentsPerWindow,
      goal: `relaypay's best rate ≥ ${goalRatio} × the bare client's best on every path, over concurrencies ${opts.concurrencies.join(', ')}`,
      // What the daemon spends doing nothing asked of it (timers, its LND watch): part of every window's CPU per op,
      // and most of it at a few operations a second.
      daemonIdleCpuMsPerSecond: idle,
      paths: summary,
      rounds: rounds.map(r => ({ ...r, paths: withoutLatencies(r.paths) })),
      audit: { ok: audit.ok, walletsTotalMsat: audit.walletsTotalMsat },
      daemonRssMb: processRssMb(daemon.process.pid),
    }
  } catch (err) {
    if (daemon) process.stderr.write(`paymentsRegtest failed; the daemon's last words:\n${daemon.logs().slice(-6000)}\n`)
    throw err
  } finally {
    for (const client of clients) client.close()
    await daemon?.stop()
    await net.close()
  }
}

/** The payer's balance, paid by B into an invoice of the payer's, as any user is funded from outside. */
async function fund(daemon: TestDaemon, net: Regtest, b: BareLnd, appToken: string, fundingSats: number): Promise<void> {
  const made = await daemon.request('POST', '/api/app/user/add/invoice', {
    body: { receiver_identifier: 'payer', payer_identifier: '', http_callback_url: '', invoice_req: { amountSats: fundingSats, memo: 'funding' } },
    headers: { authorization: appToken },
  })
  if (made.json?.status !== 'OK') throw new Error(`funding invoice: ${made.text}`)
  const status = await b.pay(made.json.invoice)
  if (status !== 'SUCCEEDED') throw new Error(`B could not pay the funding invoice on LND ${net.lndVersion}: ${status}`)
  await until(async () => (await balanceOf(daemon, appToken, 'payer')) === fundingSats, 'the funding to be credited', 120_000)
}

/** The most the plan's windows can spend from the payer: pairs at `pairsPerSecondBound` and every outgoing payment. */
function payerFunding(opts: PaymentsRegtestOptions): number {
  const windows = opts.rounds * opts.concurrencies.length
  const pairSeconds = (windows * opts.windowMs + opts.concurrencies.length * warmUp.durationMs) / 1000
  const outgoing = windows * opts.paymentsPerWindow + opts.concurrencies.length * warmUp.payments
  return Math.ceil(pairSeconds * pairsPerSecondBound + outgoing) * payerSatsPerOperation
}

/** The daemon's CPU over a quiet window, per second. */
async function idleDaemonCpu(daemon: TestDaemon): Promise<number | null> {
  const before = processCpuMs(daemon.process.pid)
  const started = performance.now()
  await new Promise(resolve => setTimeout(resolve, idleWindowMs))
  const after = processCpuMs(daemon.process.pid)
  return before === null || after === null ? null : round(((after - before) / (performance.now() - started)) * 1000)
}

/** Pins every thread of the network's processes to the first core and this process's to the rest. */
function splitCores(net: Regtest): { network: string; relaypay: string } {
  const count = os.availableParallelism()
  if (count < 2) throw new Error('BENCH_REGTEST_SPLIT needs two cores or more')
  const cores = { network: '0', relaypay: `1-${count - 1}` }
  const pids = [net.state.btcd.process.pid, ...Object.values(net.state.nodes).map(node => node.process.pid)]
  for (const pid of pids) execFileSync('taskset', ['--all-tasks', '--cpu-list', '--pid', cores.network, String(pid)], { stdio: 'ignore' })
  execFileSync('taskset', ['--all-tasks', '--cpu-list', '--pid', cores.relaypay, String(process.pid)], { stdio: 'ignore' })
  return cores
}

const ratioOf = (relaypay: number, bare: number) => (bare > 0 ? round(relaypay / bare) : 0)

function withoutLatencies(paths: Record<PathName, Record<number, Record<Side, WindowFigures>>>) {
  const shown = (bySide: Record<Side, WindowFigures>) =>
    Object.fromEntries(Object.entries(bySide).map(([side, { latenciesMs: _, ...rest }]) => [side, rest]))
  return Object.fromEntries(
    Object.entries(paths).map(([name, byConcurrency]) => [
      name,
      Object.fromEntries(Object.entries(byConcurrency).map(([concurrency, bySide]) => [concurrency, shown(bySide)])),
    ]),
  )
}

function concurrenciesOf(list: string): number[] {
  const concurrencies = list.split(',').map(Number)
  if (concurrencies.some(c => !Number.isInteger(c) || c < 1)) {
    throw new Error(`BENCH_REGTEST_CONCURRENCY=${list}: whole numbers of 1 or more, comma separated`)
  }
  return concurrencies
}

/** `npm run bench -- paymentsRegtest`, or this file directly, with the BENCH_REGTEST_* settings. */
export function paymentsRegtestOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): PaymentsRegtestOptions {
  return {
    lndVersion: env.BENCH_REGTEST_LND ?? 'v0.21.2-beta',
    rounds: Number(env.BENCH_REGTEST_ROUNDS ?? 3),
    concurrencies: concurrenciesOf(env.BENCH_REGTEST_CONCURRENCY ?? '8,16'),
    windowMs: Number(env.BENCH_REGTEST_WINDOW_MS ?? 3000),
    paymentsPerWindow: Number(env.BENCH_REGTEST_PAYMENTS ?? 100),
    ...(env.BENCH_PROFILE_DIR ? { profileDir: env.BENCH_PROFILE_DIR } : {}),
    splitCores: env.BENCH_REGTEST_SPLIT === '1',
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.stdout.write(JSON.stringify(await benchPaymentsRegtest(paymentsRegtestOptionsFromEnv()), null, 2) + '\n')
}
