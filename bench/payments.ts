// Internal payments per second over HTTP: user A pays invoices of user B (both in one app, so every payment is
// the one-transaction internal path with its service fee). The invoices are created before the clock starts;
// `concurrency` workers each pay one after another over keep-alive connections until the batch is spent.
// `bench/run.ts` calls benchPayments; run this file directly to compare both `[store] synchronous` levels.
import fs from 'node:fs'
import http from 'node:http'
import { pathToFileURL } from 'node:url'
import { startDaemon, type TestDaemon } from '../test/support/daemon.js'
import { addAppUser, createAppWithUser, jwtSecretConfig } from '../test/support/accounts.js'

export interface PaymentBenchOptions {
  /** `[store] synchronous` of the daemon under test (default `full`, the shipped default). */
  synchronous?: 'full' | 'normal'
  concurrencies?: number[]
  /** Payments per concurrency level (each needs its own invoice). */
  paymentsPerLevel?: number
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
}

const jwtSecret = 'bench-payments-secret-0123456789abcdef'
const paymentSats = 100

export async function benchPayments(opts: PaymentBenchOptions = {}): Promise<{
  synchronous: 'full' | 'normal'
  results: Record<string, PaymentBenchResult>
}> {
  const synchronous = opts.synchronous ?? 'full'
  const concurrencies = opts.concurrencies ?? [1, 8, 32]
  const perLevel = opts.paymentsPerLevel ?? 3000
  const daemon = await startDaemon({
    config: `${jwtSecretConfig(jwtSecret)}\n[store]\nsynchronous = "${synchronous}"\n`,
    env: { RELAYPAY_LOG_LEVEL: 'warn' },
  })
  const agent = new http.Agent({ keepAlive: true, maxSockets: Math.max(...concurrencies, 8) })
  try {
    const payer = await createAppWithUser(daemon, { jwtSecret, identifier: 'bench-payer' })
    const payee = await addAppUser(daemon, { appToken: payer.appToken, appId: payer.appId, jwtSecret, identifier: 'bench-payee' })
    const funding = concurrencies.length * perLevel * (paymentSats + 10) // 10 sats: the service fee floor
    await post(agent, daemon, '/api/app/mock/user/blance/set', payer.appToken, { user_identifier: 'bench-payer', amount: funding })

    const results: Record<string, PaymentBenchResult> = {}
    for (const concurrency of concurrencies) {
      const invoices = await inParallel(perLevel, 8, async () =>
        (await post(agent, daemon, '/api/user/invoice/new', payee.userToken, { amountSats: paymentSats, memo: 'bench' })).invoice as string,
      )
      const latencies: number[] = []
      let errors = 0
      const cpuBefore = processCpuMs(daemon.process.pid)
      const started = performance.now()
      await inParallel(perLevel, concurrency, async i => {
        const t0 = performance.now()
        const reply = await post(agent, daemon, '/api/user/invoice/pay', payer.userToken, { invoice: invoices[i], amount: 0 })
        latencies.push(performance.now() - t0)
        if (reply.status !== 'OK') errors++
      })
      const elapsedMs = performance.now() - started
      const cpuAfter = processCpuMs(daemon.process.pid)
      latencies.sort((a, b) => a - b)
      const at = (q: number) => round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0)
      results[`c${concurrency}`] = {
        payments: latencies.length,
        errors,
        paymentsPerSecond: round((latencies.length / elapsedMs) * 1000),
        p50Ms: at(0.5),
        p99Ms: at(0.99),
        daemonCpuMsPerPayment:
          cpuBefore === null || cpuAfter === null ? null : round((cpuAfter - cpuBefore) / latencies.length),
      }
    }
    return { synchronous, results }
  } finally {
    agent.destroy()
    await daemon.stop()
  }
}

/** Runs task(0..count-1) with at most `width` in flight. */
async function inParallel<T>(count: number, width: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = new Array(count)
  let next = 0
  await Promise.all(
    Array.from({ length: Math.min(width, count) }, async () => {
      for (let i = next++; i < count; i = next++) out[i] = await task(i)
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

/** User + system CPU of a process in ms, from /proc/<pid>/stat (fields 14 and 15, in clock ticks of 10 ms). */
function processCpuMs(pid: number | undefined): number | null {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
    return (Number(fields[11]) + Number(fields[12])) * 10
  } catch {
    return null
  }
}

function round(value: number): number {
  return Math.round(value * 100) / 100
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const paymentsPerLevel = Number(process.env.BENCH_PAYMENTS ?? 3000)
  const full = await benchPayments({ synchronous: 'full', paymentsPerLevel })
  const normal = await benchPayments({ synchronous: 'normal', paymentsPerLevel })
  process.stdout.write(
    JSON.stringify({ machine: 'shared 2-core; noisy: compare ratios within one run', paymentSats, full, normal }, null, 2) + '\n',
  )
}
