// Internal payments per second over HTTP: user A pays invoices of user B (both in one app, so every payment is
// the one-transaction internal path with its service fee). The invoices are created before the clock starts;
// `concurrency` workers, each on its own keep-alive connection, pay one after another until the batch is spent.
// `bench/run.ts` calls benchPayments; run this file directly to compare both `[store] synchronous` levels.
import http from 'node:http'
import { pathToFileURL } from 'node:url'
import { startDaemon, type TestDaemon } from '../test/support/daemon.js'
import { addAppUser, createAppWithUser, jwtSecretConfig } from '../test/support/accounts.js'
import { cpuWindow, profiler, profilingEnv } from './process-stats.js'
import type { BenchPostgres } from './postgres-server.js'
import { RawConnection, rawRequest } from './raw-http.js'

export interface PaymentBenchOptions {
  /** `[store] synchronous` of the daemon under test (default `full`, the shipped default). */
  synchronous?: 'full' | 'normal'
  concurrencies?: number[]
  /** Payments per concurrency level (each needs its own invoice). */
  paymentsPerLevel?: number
  /** Profile the daemon during each measured window into this folder (see cpu-profile-preload.ts). */
  profileDir?: string
  /** A daemon to use instead of starting one (it must run with the bench's JWT secret, see `paymentBenchConfig`). */
  daemon?: TestDaemon
  /**
   * Payments made before the first measured window (default 1000), so every window measures a daemon whose hot
   * path is compiled, as a long-running one is, rather than V8's first tiers.
   */
  warmupPayments?: number
  /** Books on this PostgreSQL (`[store] url`) instead of the data dir's SQLite file; its server's CPU is reported. */
  postgres?: BenchPostgres
}

export interface PaymentBenchResult {
  payments: number
  errors: number
  paymentsPerSecond: number
  p50Ms: number
  p99Ms: number
  /**
   * CPU time the daemon process spent per payment (Linux /proc; null elsewhere). Steadier than the rate on a
   * shared machine: 1000 / this is what one core could do with the client elsewhere.
   */
  daemonCpuMsPerPayment: number | null
  /** CPU time of the load generator (this process) per payment: it shares the machine's cores with the daemon. */
  clientCpuMsPerPayment: number
  /** With the books on PostgreSQL: its server processes' CPU per payment, and that plus the daemon's. */
  postgresServerCpuMsPerPayment?: number | null
  daemonAndPostgresCpuMsPerPayment?: number | null
  profile?: string
}

const jwtSecret = 'bench-payments-secret-0123456789abcdef'
const paymentSats = 100
export const paymentBenchConfig = (synchronous: 'full' | 'normal', storeUrl?: string) =>
  `${jwtSecretConfig(jwtSecret)}\n[store]\nsynchronous = "${synchronous}"\n${storeUrl ? `url = "${storeUrl}"\n` : ''}`

export async function benchPayments(opts: PaymentBenchOptions = {}): Promise<{
  synchronous: 'full' | 'normal'
  results: Record<string, PaymentBenchResult>
}> {
  const synchronous = opts.synchronous ?? 'full'
  const concurrencies = opts.concurrencies ?? [1, 8, 32]
  const perLevel = opts.paymentsPerLevel ?? 3000
  const daemon =
    opts.daemon ??
    (await startDaemon({
      config: paymentBenchConfig(synchronous, opts.postgres?.url),
      env: { RELAYPAY_LOG_LEVEL: 'warn', ...(opts.profileDir ? profilingEnv(opts.profileDir) : {}) },
    }))
  const agent = new http.Agent({ keepAlive: true, maxSockets: 8 })
  const url = new URL(daemon.url)
  const width = Math.max(...concurrencies)
  const connections = await Promise.all(Array.from({ length: width }, () => RawConnection.connect(Number(url.port), url.hostname)))
  try {
    const tag = Math.random().toString(36).slice(2, 8)
    const payer = await createAppWithUser(daemon, { jwtSecret, identifier: `bench-payer-${tag}` })
    const payee = await addAppUser(daemon, { appToken: payer.appToken, appId: payer.appId, jwtSecret, identifier: `bench-payee-${tag}` })
    const warmup = opts.warmupPayments ?? 1000
    const funding = (concurrencies.length * perLevel + warmup) * (paymentSats + 10) // 10 sats: the service fee floor
    await post(agent, daemon, '/api/app/mock/user/blance/set', payer.appToken, { user_identifier: payer.identifier, amount: funding })
    const newInvoice = rawRequest(url.host, 'POST', '/api/user/invoice/new', { authorization: payee.userToken }, JSON.stringify({ amountSats: paymentSats, memo: 'bench' }))

    const payRequest = (invoice: string) =>
      rawRequest(url.host, 'POST', '/api/user/invoice/pay', { authorization: payer.userToken }, JSON.stringify({ invoice, amount: 0 }))
    if (warmup > 0) {
      const invoices = await inParallel(warmup, connections.slice(0, 8), async (i, connection) => JSON.parse((await connection.send(newInvoice)).body).invoice as string)
      await inParallel(warmup, connections.slice(0, 8), (i, connection) => connection.send(payRequest(invoices[i]!)))
    }

    const results: Record<string, PaymentBenchResult> = {}
    for (const concurrency of concurrencies) {
      const invoices = await inParallel(perLevel, connections.slice(0, 8), async (i, connection) => {
        const answer = await connection.send(newInvoice)
        return JSON.parse(answer.body).invoice as string
      })
      const requests = invoices.map(payRequest)
      const latencies: number[] = []
      let errors = 0
      const prof = profiler(daemon.process.pid, opts.profileDir)
      prof.start()
      const cpu = cpuWindow(daemon.process.pid)
      const serverBefore = opts.postgres?.serverCpuMs() ?? null
      const started = performance.now()
      await inParallel(perLevel, connections.slice(0, concurrency), async (i, connection) => {
        const t0 = performance.now()
        try {
          const answer = await connection.send(requests[i]!)
          latencies.push(performance.now() - t0)
          if (answer.status !== 200 || !answer.body.startsWith('{"status":"OK"')) errors++
        } catch {
          errors++ // the connection broke under this request
        }
      })
      const elapsedMs = performance.now() - started
      const costs = cpu.end(latencies.length)
      const serverAfter = opts.postgres?.serverCpuMs() ?? null
      const serverCpu =
        serverBefore === null || serverAfter === null ? null : round3((serverAfter - serverBefore) / Math.max(1, latencies.length))
      const profile = await prof.stop()
      latencies.sort((a, b) => a - b)
      const at = (q: number) => round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0)
      results[`c${concurrency}`] = {
        payments: latencies.length,
        errors,
        paymentsPerSecond: round((latencies.length / elapsedMs) * 1000),
        p50Ms: at(0.5),
        p99Ms: at(0.99),
        daemonCpuMsPerPayment: costs.daemonCpuMsPerOp,
        clientCpuMsPerPayment: costs.clientCpuMsPerOp,
        ...(opts.postgres
          ? {
              postgresServerCpuMsPerPayment: serverCpu,
              daemonAndPostgresCpuMsPerPayment:
                serverCpu === null || costs.daemonCpuMsPerOp === null ? null : round3(serverCpu + costs.daemonCpuMsPerOp),
            }
          : {}),
        ...(profile ? { profile } : {}),
      }
    }
    return { synchronous, results }
  } finally {
    connections.forEach(connection => connection.close())
    agent.destroy()
    if (!opts.daemon) await daemon.stop()
  }
}

/** Runs task(0..count-1), each worker on its own connection, one task in flight per worker. */
async function inParallel<T>(count: number, workers: RawConnection[], task: (i: number, connection: RawConnection) => Promise<T>): Promise<T[]> {
  const out: T[] = new Array(count)
  let next = 0
  await Promise.all(
    workers.slice(0, count).map(async connection => {
      for (let i = next++; i < count; i = next++) out[i] = await task(i, connection)
    }),
  )
  return out
}

function post(agent: http.Agent, daemon: TestDaemon, path: string, token: string, body: unknown): Promise<any> {
  const url = new URL(daemon.url)
  const payload = JSON.stringify(body)
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        agent,
        host: url.hostname,
        port: url.port,
        path,
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), authorization: token },
      },
      res => {
        let text = ''
        res.setEncoding('utf8')
        res.on('data', chunk => (text += chunk))
        res.on('end', () => {
          try {
            resolve(JSON.parse(text))
          } catch (err) {
            reject(err)
          }
        })
      },
    )
    req.on('error', reject)
    req.end(payload)
  })
}

function round(value: number): number {
  return Math.round(value * 100) / 100
}

function round3(value: number): number {
  return Math.round(value * 1000) / 1000
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const paymentsPerLevel = Number(process.env.BENCH_PAYMENTS ?? 3000)
  const profileDir = process.env.BENCH_PROFILE_DIR
  const concurrencies = process.env.BENCH_CONCURRENCIES?.split(',').map(Number)
  const levels = (process.env.BENCH_SYNCHRONOUS ?? 'full,normal').split(',') as ('full' | 'normal')[]
  const out: Record<string, unknown> = { machine: 'shared 2-core; noisy: compare ratios within one run', paymentSats }
  for (const synchronous of levels) out[synchronous] = await benchPayments({ synchronous, paymentsPerLevel, profileDir, concurrencies })
  process.stdout.write(JSON.stringify(out, null, 2) + '\n')
}
