// Payments on the LND backend: the daemon on the project's fake LND (test/support/fake-lnd, real gRPC
// over TLS with a macaroon, in this process), driven over HTTP the way an integrator does.
//   - pairs: a worker asks AddAppUserInvoice for the payee, then PayAppUserInvoice from the payer (an internal
//     payment), one after the other; pairs/s at each concurrency, p50/p99 of each half, daemon CPU per pair
//   - external: PayAppUserInvoice of invoices of other nodes, which the fake's router settles (SendPaymentV2)
//   - settlements: invoices made first, then settled on the fake at once; the time and daemon CPU until the
//     subscription has credited every one
// BENCH_LND_ROOTS (repo roots, comma separated; default this one) runs each root's daemon in turn, run by run, so
// an old build is measured beside the new one under the same load, e.g. three runs against a build of f3a0535:
//   git worktree add ../old f3a0535 && cp -a node_modules ../old/ && (cd ../old && npm run build --silent)
//   BENCH_LND_RUNS=3 BENCH_LND_ROOTS=$PWD/../old,$PWD npm run bench -- paymentsLnd The fake and the client share this process:
// `clientCpuMsPerPair` includes the fake's gRPC work. BENCH_LND_STORES=sqlite,postgres runs each root on both books
// (`[store] url` on bench/postgres-server.ts's PostgreSQL; its server's CPU per operation is added).
import os from 'node:os'
import path from 'node:path'
import { createHash, randomBytes } from 'node:crypto'
import { pathToFileURL } from 'node:url'
import fs from 'node:fs'
import { startDaemon, tempDataDir } from '../test/support/daemon.js'
import { startFakeLnd, type FakeLnd } from '../test/support/fake-lnd/fake-lnd.js'
import { outsideInvoice } from '../test/support/outside-invoice.js'
import { addAppUser, createAppWithUser, jwtSecretConfig } from '../test/support/accounts.js'
import { repoRoot } from '../test/support/paths.js'
import { cpuWindow as daemonCpuWindow, processRssMb, profiler, profilingEnv } from './process-stats.js'
import { RawConnection, rawRequest } from './raw-http.js'
import { auditVerdict, seededDatabaseOf } from './budget.js'
import { onBenchPostgres, withServerCpu, type BenchPostgres } from './postgres-server.js'

export interface LndPaymentsOptions {
  roots?: string[]
  runs?: number
  concurrencies?: number[]
  /** Each measured pair window. */
  durationMs?: number
  externalPayments?: number
  settlements?: number
  profileDir?: string
  /** Start each daemon on a copy of budget.ts's seeded database of this size (flat cost on LND). */
  seed?: { users: number; ledgerEntries: number }
  /** Each root on these books, in turn (default SQLite only): 'postgres' is `[store] url` on bench/postgres-server.ts. */
  stores?: ('sqlite' | 'postgres')[]
}

interface Half {
  p50Ms: number
  p99Ms: number
}

export interface PairsResult {
  pairs: number
  errors: number
  pairsPerSecond: number
  invoice: Half
  pay: Half
  /** The whole pair as its worker saw it. */
  pair: Half
  daemonCpuMsPerPair: number | null
  clientCpuMsPerPair: number
  /** Books on PostgreSQL: its server processes' CPU per pair. */
  postgresServerCpuMsPerPair?: number | null
  profile?: string
}

const jwtSecret = 'bench-lnd-payments-secret-0123456789abcdef'
const amountSats = 100

const quantile = (sorted: number[], q: number) => round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0)
const half = (values: number[]): Half => {
  const sorted = [...values].sort((a, b) => a - b)
  return { p50Ms: quantile(sorted, 0.5), p99Ms: quantile(sorted, 0.99) }
}

async function until(check: () => Promise<boolean>, what: string, timeoutMs = 120_000): Promise<void> {
  const started = Date.now()
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`)
    await new Promise(resolve => setTimeout(resolve, 10))
  }
}

async function onLnd(root: string, profileDir: string | undefined, seed: LndPaymentsOptions['seed'], postgres?: BenchPostgres) {
  const fake = await startFakeLnd({ network: 'regtest' })
  const c = fake.connection
  let dataDir: string | undefined
  if (seed) {
    dataDir = path.join(tempDataDir(), 'data')
    fs.mkdirSync(dataDir, { recursive: true })
    // The build's own seed: one made by a newer build would run this one on a schema it does not know.
    fs.copyFileSync(await seededDatabaseOf(root, seed), path.join(dataDir, 'relaypay.sqlite'))
  }
  const daemon = await startDaemon({
    ...(dataDir ? { dataDir } : {}),
    cli: path.join(root, 'build/bin/relaypay.js'),
    mock: false,
    config:
      jwtSecretConfig(jwtSecret) +
      `[node]\nbackend = "lnd"\nnetwork = "regtest"\nlnd_socket = "${c.socket}"\nlnd_cert_path = "${c.certPath}"\nlnd_macaroon_path = "${c.macaroonPath}"\n` +
      (postgres ? `[store]\nurl = "${postgres.url}"\n` : ''),
    env: { RELAYPAY_LOG_LEVEL: seed ? 'info' : 'warn', ...(profileDir ? profilingEnv(profileDir) : {}) },
  })
  // On a large journal the start-up audit runs in the background and holds every payment until its verdict.
  if (seed) await auditVerdict(daemon)
  return { fake, daemon, dataDir }
}

/** One daemon of `root` on a fresh fake: every part of the bench in turn. */
async function benchOnce(
  root: string,
  opts: Required<Omit<LndPaymentsOptions, 'roots' | 'runs' | 'profileDir' | 'seed' | 'stores'>> &
    Pick<LndPaymentsOptions, 'profileDir' | 'seed'> & { postgres?: BenchPostgres },
) {
  const { fake, daemon, dataDir } = await onLnd(root, opts.profileDir, opts.seed, opts.postgres)
  const cpuWindow = (pid: number | undefined) => withServerCpu(daemonCpuWindow(pid), opts.postgres)
  const url = new URL(daemon.url)
  const width = Math.max(...opts.concurrencies, 8)
  const connections = await Promise.all(Array.from({ length: width }, () => RawConnection.connect(Number(url.port), url.hostname)))
  try {
    const tag = randomBytes(3).toString('hex')
    const payer = await createAppWithUser(daemon, { jwtSecret, identifier: `payer-${tag}` })
    const payee = await addAppUser(daemon, { appToken: payer.appToken, appId: payer.appId, jwtSecret, identifier: `payee-${tag}` })
    const app = { authorization: payer.appToken }
    // A read, so asked again once if the daemon closed the kept-alive connection just as it was reused.
    const getUser = async (identifier: string): Promise<number> => {
      const ask = async () =>
        (await daemon.request('POST', '/api/app/user/get', { body: { user_identifier: identifier }, headers: app })).json.info.balance as number
      return ask().catch(ask)
    }
    // The daemon closes a connection idle for its keep-alive timeout (5 s); one reused at that moment loses its
    // request (a loaded machine widens the window). Each phase starts on fresh connections, after its own setup.
    const freshConnections = () => connections.forEach(connection => connection.close())

    // Funding: one invoice of the payer's, settled on the fake as if another node had paid it.
    const fundingSats = 50_000_000
    const funding = await daemon.request('POST', '/api/app/user/add/invoice', {
      body: { receiver_identifier: payer.identifier, payer_identifier: '', http_callback_url: '', invoice_req: { amountSats: fundingSats, memo: 'funding' } },
      headers: app,
    })
    if (funding.json?.status !== 'OK') throw new Error(`funding invoice: ${funding.text}`)
    fake.settleInvoice(decodeHash(funding.json.invoice))
    await until(async () => (await getUser(payer.identifier)) === fundingSats, 'the funding to be credited')

    const addInvoice = rawRequest(
      url.host,
      'POST',
      '/api/app/user/add/invoice',
      app,
      JSON.stringify({ receiver_identifier: payee.identifier, payer_identifier: '', http_callback_url: '', invoice_req: { amountSats, memo: 'bench' } }),
    )
    const pay = (invoice: string) =>
      rawRequest(url.host, 'POST', '/api/app/invoice/pay', app, JSON.stringify({ user_identifier: payer.identifier, invoice, amount: 0 }))

    const pairs = async (concurrency: number, durationMs: number, profileDir?: string): Promise<PairsResult> => {
      const invoiceMs: number[] = []
      const payMs: number[] = []
      const pairMs: number[] = []
      let errors = 0
      freshConnections()
      const prof = profiler(daemon.process.pid, profileDir)
      prof.start()
      const cpu = cpuWindow(daemon.process.pid)
      const started = performance.now()
      const deadline = started + durationMs
      await Promise.all(
        connections.slice(0, concurrency).map(async connection => {
          while (performance.now() < deadline) {
            const t0 = performance.now()
            try {
              const made = await connection.send(addInvoice)
              const t1 = performance.now()
              if (made.status !== 200 || !made.body.startsWith('{"status":"OK"')) {
                errors++
                continue
              }
              const paid = await connection.send(pay(JSON.parse(made.body).invoice))
              const t2 = performance.now()
              if (paid.status !== 200 || !paid.body.startsWith('{"status":"OK"')) {
                errors++
                continue
              }
              invoiceMs.push(t1 - t0)
              payMs.push(t2 - t1)
              pairMs.push(t2 - t0)
            } catch {
              errors++
            }
          }
        }),
      )
      const elapsedMs = performance.now() - started
      const costs = cpu.end(pairMs.length)
      const profile = await prof.stop()
      return {
        pairs: pairMs.length,
        errors,
        pairsPerSecond: round((pairMs.length / elapsedMs) * 1000),
        invoice: half(invoiceMs),
        pay: half(payMs),
        pair: half(pairMs),
        daemonCpuMsPerPair: costs.daemonCpuMsPerOp,
        clientCpuMsPerPair: costs.clientCpuMsPerOp,
        ...('serverCpuMsPerOp' in costs ? { postgresServerCpuMsPerPair: costs.serverCpuMsPerOp } : {}),
        ...(profile ? { profile } : {}),
      }
    }

    await pairs(8, 1500) // warm-up: the daemon's hot path compiled, as a long-running one's is
    const results: Record<string, PairsResult> = {}
    for (const concurrency of opts.concurrencies) results[`c${concurrency}`] = await pairs(concurrency, opts.durationMs, opts.profileDir)

    // External payments: each to a node of its own that the fake's router pays at once.
    const external = await (async () => {
      const count = opts.externalPayments
      if (count === 0) return undefined
      const invoices = Array.from({ length: count }, () => {
        const preimage = randomBytes(32)
        const paymentHash = createHash('sha256').update(preimage).digest('hex')
        const invoice = outsideInvoice({ network: 'regtest', nowMs: Date.now(), amountMsat: amountSats * 1000, paymentHash })
        fake.node.remoteNodes.set(invoice.payeePubkey, payment => fake.node.payments.succeed(payment.paymentHash, preimage.toString('hex')))
        return pay(invoice.paymentRequest)
      })
      const latencies: number[] = []
      let errors = 0
      let next = 0
      freshConnections()
      const prof = profiler(daemon.process.pid, opts.profileDir)
      prof.start()
      const cpu = cpuWindow(daemon.process.pid)
      const started = performance.now()
      await Promise.all(
        connections.slice(0, 8).map(async connection => {
          for (let i = next++; i < count; i = next++) {
            const t0 = performance.now()
            // A dropped connection counts as an error, as in the pairs, instead of ending the run.
            const paid = await connection.send(invoices[i]!).catch(() => undefined)
            if (paid?.status !== 200 || !paid.body.startsWith('{"status":"OK"')) errors++
            else latencies.push(performance.now() - t0)
          }
        }),
      )
      const elapsedMs = performance.now() - started
      const costs = cpu.end(latencies.length)
      const profile = await prof.stop()
      return {
        concurrency: 8,
        payments: latencies.length,
        errors,
        paymentsPerSecond: round((latencies.length / elapsedMs) * 1000),
        ...half(latencies),
        daemonCpuMsPerPayment: costs.daemonCpuMsPerOp,
        ...('serverCpuMsPerOp' in costs ? { postgresServerCpuMsPerPayment: costs.serverCpuMsPerOp } : {}),
        ...(profile ? { profile } : {}),
      }
    })()

    // Settlements through the subscription: invoices first, then every one settled on the fake at once.
    const settlements = await (async () => {
      const count = opts.settlements
      if (count === 0) return undefined
      const before = await getUser(payee.identifier)
      const made: string[] = []
      let next = 0
      freshConnections()
      await Promise.all(
        connections.slice(0, 8).map(async connection => {
          for (let i = next++; i < count; i = next++) {
            // Asked again when the connection drops: an invoice made but not heard of is never settled, so unpaid.
            for (;;) {
              const answer = await connection.send(addInvoice).catch(() => undefined)
              if (answer?.status === 200 && answer.body.startsWith('{"status":"OK"')) {
                made.push(JSON.parse(answer.body).invoice)
                break
              }
            }
          }
        }),
      )
      const hashes = made.map(decodeHash)
      const cpu = cpuWindow(daemon.process.pid)
      const started = performance.now()
      for (const hash of hashes) fake.settleInvoice(hash)
      await until(async () => (await getUser(payee.identifier)) === before + count * amountSats, 'the settlements to be credited')
      const elapsedMs = performance.now() - started
      const costs = cpu.end(count)
      return {
        settlements: count,
        settlementsPerSecond: round((count / elapsedMs) * 1000),
        daemonCpuMsPerSettlement: costs.daemonCpuMsPerOp,
        ...('serverCpuMsPerOp' in costs ? { postgresServerCpuMsPerSettlement: costs.serverCpuMsPerOp } : {}),
      }
    })()

    return { root, store: opts.postgres ? 'postgres' : 'sqlite', ...(opts.seed ? { seed: opts.seed } : {}), loadAverage: os.loadavg().map(round), pairs: results, external, settlements, rssMb: processRssMb(daemon.process.pid) }
  } catch (err) {
    // What the daemon said last, which tells a crash from a client-side failure.
    process.stderr.write(`lnd-payments: ${root} failed; the daemon's last words:\n${daemon.logs().slice(-6000)}\n`)
    throw err
  } finally {
    connections.forEach(connection => connection.close())
    await daemon.stop()
    await fake.close()
    if (dataDir) fs.rmSync(path.dirname(dataDir), { recursive: true, force: true })
  }
}

/** The payment hash of a BOLT11 request, read from its `p` field (bech32, 52 five-bit groups). */
function decodeHash(request: string): string {
  const data = request.slice(request.lastIndexOf('1') + 1, -6)
  const charset = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l'
  const words = [...data].map(ch => charset.indexOf(ch))
  for (let at = 7; at < words.length - 104; ) {
    const tag = words[at]!
    const length = words[at + 1]! * 32 + words[at + 2]!
    if (tag === 1 && length === 52) {
      let bits = 0
      let value = 0
      const bytes: number[] = []
      for (const word of words.slice(at + 3, at + 3 + 52)) {
        value = (value << 5) | word
        bits += 5
        if (bits >= 8) {
          bits -= 8
          bytes.push((value >> bits) & 0xff)
        }
      }
      return Buffer.from(bytes.slice(0, 32)).toString('hex')
    }
    at += 3 + length
  }
  throw new Error('no payment hash in the invoice')
}

export async function benchLndPayments(opts: LndPaymentsOptions = {}) {
  const roots = opts.roots ?? [repoRoot]
  const runs = opts.runs ?? 1
  const stores = opts.stores ?? ['sqlite']
  const all: (Awaited<ReturnType<typeof benchOnce>> | { root: string; store: 'postgres'; skipped: string })[] = []
  for (let n = 0; n < runs; n++) {
    for (const root of roots) {
      for (const store of stores) {
        const once = (postgres?: BenchPostgres) =>
          benchOnce(root, {
            concurrencies: opts.concurrencies ?? [1, 8, 32],
            durationMs: opts.durationMs ?? 3000,
            externalPayments: opts.externalPayments ?? 1000,
            settlements: opts.settlements ?? 1000,
            ...(opts.profileDir ? { profileDir: opts.profileDir } : {}),
            ...(opts.seed ? { seed: opts.seed } : {}),
            ...(postgres ? { postgres } : {}),
          })
        const run = store === 'postgres' ? await onBenchPostgres(once) : await once()
        if ('skipped' in run) {
          all.push({ root, store: 'postgres', skipped: run.skipped })
          continue
        }
        process.stderr.write(`lnd-payments ${JSON.stringify(summaryLine(run))}\n`)
        all.push(run)
      }
    }
  }
  return all.length === 1 ? all[0] : { runs: all }
}

function summaryLine(run: Awaited<ReturnType<typeof benchOnce>>) {
  return {
    root: run.root,
    store: run.store,
    load: run.loadAverage[0],
    ...Object.fromEntries(
      Object.entries(run.pairs).map(([c, r]) => [c, `${r.pairsPerSecond}/s cpu ${r.daemonCpuMsPerPair} inv p50/p99 ${r.invoice.p50Ms}/${r.invoice.p99Ms} pay ${r.pay.p50Ms}/${r.pay.p99Ms} err ${r.errors}`]),
    ),
    external: run.external && `${run.external.paymentsPerSecond}/s cpu ${run.external.daemonCpuMsPerPayment} err ${run.external.errors}`,
    settlements: run.settlements && `${run.settlements.settlementsPerSecond}/s cpu ${run.settlements.daemonCpuMsPerSettlement}`,
  }
}

/** `npm run bench -- paymentsLnd`, or this file directly, with the BENCH_LND_* settings. */
export function lndPaymentsOptionsFromEnv(): LndPaymentsOptions {
  const env = process.env
  return {
    ...(env.BENCH_LND_ROOTS ? { roots: env.BENCH_LND_ROOTS.split(',').filter(Boolean) } : {}),
    runs: Number(env.BENCH_LND_RUNS ?? 1),
    ...(env.BENCH_CONCURRENCIES ? { concurrencies: env.BENCH_CONCURRENCIES.split(',').map(Number) } : {}),
    durationMs: Number(env.BENCH_DURATION_MS ?? 3000),
    externalPayments: Number(env.BENCH_LND_EXTERNAL ?? 1000),
    settlements: Number(env.BENCH_LND_SETTLEMENTS ?? 1000),
    ...(env.BENCH_PROFILE_DIR ? { profileDir: env.BENCH_PROFILE_DIR } : {}),
    // BENCH_LND_STORES=sqlite,postgres: each root on both books in turn.
    ...(env.BENCH_LND_STORES ? { stores: env.BENCH_LND_STORES.split(',') as ('sqlite' | 'postgres')[] } : {}),
    // BENCH_LND_SEED=<journal rows>: 1000 wallets and that many journal rows, as budget.ts seeds them.
    ...(env.BENCH_LND_SEED ? { seed: { users: 1_000, ledgerEntries: Number(env.BENCH_LND_SEED) } } : {}),
  }
}

function round(value: number): number {
  return Math.round(value * 100) / 100
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.stdout.write(JSON.stringify(await benchLndPayments(lndPaymentsOptionsFromEnv()), null, 2) + '\n')
}
