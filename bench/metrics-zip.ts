// ZipMetricsStorages under payment load: how long the archive takes, and what it does to the payments running
// beside it (they commit through the WAL fdatasync on libuv's thread pool, which the archive must not crowd out).
// The data dir is seeded before start with metrics files shaped like a busy daemon's: many apps × operations of
// small usage chunks, plus full 128 KiB bundle chunks. Payments run at a fixed concurrency for a baseline window,
// then the archive is built `archives` times back to back while they keep running.
// Run: `npx tsc -p tsconfig.json && node build/bench/metrics-zip.js` (BENCH_ZIP_APPS, BENCH_ZIP_SERIES to reshape).
import fs from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { startDaemon, tempDataDir } from '../test/support/daemon.js'
import { addAppUser, createAppWithUser, jwtSecretConfig } from '../test/support/accounts.js'
import { encodeBundleSample, encodeRecordList, encodeUsageRecord } from '../src/metrics/index.js'
import { RawConnection, rawRequest } from './raw-http.js'

const jwtSecret = 'bench-metrics-zip-secret-0123456789abcdef'
const metricsToken = 'bench-metrics-zip-token-0123456789abcdef'

export interface ZipBenchOptions {
  apps?: number
  seriesPerApp?: number
  concurrency?: number
  archives?: number
  baselineMs?: number
}

export async function benchMetricsZip(opts: ZipBenchOptions = {}) {
  const apps = opts.apps ?? Number(process.env.BENCH_ZIP_APPS ?? 6)
  const seriesPerApp = opts.seriesPerApp ?? Number(process.env.BENCH_ZIP_SERIES ?? 250)
  const concurrency = opts.concurrency ?? 16
  const archives = opts.archives ?? 3
  const baselineMs = opts.baselineMs ?? 5000
  const dataDir = path.join(tempDataDir(), 'data')
  const seeded = seedMetrics(path.join(dataDir, 'metrics'), apps, seriesPerApp)
  const daemon = await startDaemon({
    dataDir,
    config: `${jwtSecretConfig(jwtSecret)}metrics_token = "${metricsToken}"\n`,
    env: { RELAYPAY_LOG_LEVEL: 'warn' },
  })
  const url = new URL(daemon.url)
  const connections = await Promise.all(Array.from({ length: concurrency }, () => RawConnection.connect(Number(url.port), url.hostname)))
  const zipConnection = await RawConnection.connect(Number(url.port), url.hostname)
  try {
    const payer = await createAppWithUser(daemon, { jwtSecret, identifier: 'zip-bench-payer' })
    const payee = await addAppUser(daemon, { appToken: payer.appToken, appId: payer.appId, jwtSecret, identifier: 'zip-bench-payee' })
    await daemon.request('POST', '/api/app/mock/user/blance/set', {
      headers: { authorization: payer.appToken },
      body: { user_identifier: payer.identifier, amount: 50_000_000 },
    })
    const newInvoice = rawRequest(url.host, 'POST', '/api/user/invoice/new', { authorization: payee.userToken }, JSON.stringify({ amountSats: 10, memo: 'zip bench' }))
    const zip = rawRequest(url.host, 'POST', '/api/metrics/zip', { authorization: `Bearer ${metricsToken}` })

    // Payments run until told to stop; each latency is filed under the window it started in.
    type Window = 'baseline' | 'zip' | 'stop'
    let window = 'baseline' as Window
    const current = () => window
    const latencies = { baseline: [] as number[], zip: [] as number[] }
    let errors = 0
    const workers = connections.map(async connection => {
      while (current() !== 'stop') {
        const invoice = JSON.parse((await connection.send(newInvoice)).body).invoice as string
        const pay = rawRequest(url.host, 'POST', '/api/user/invoice/pay', { authorization: payer.userToken }, JSON.stringify({ invoice, amount: 0 }))
        const started = current()
        const t0 = performance.now()
        const answer = await connection.send(pay)
        if (started !== 'stop') latencies[started].push(performance.now() - t0)
        if (answer.status !== 200 || !answer.body.startsWith('{"status":"OK"')) errors++
      }
    })
    await new Promise(resolve => setTimeout(resolve, baselineMs))
    window = 'zip'
    const zipMs: number[] = []
    let archiveBytes = 0
    const zipStarted = performance.now()
    for (let i = 0; i < archives; i++) {
      const t0 = performance.now()
      const answer = await zipConnection.send(zip)
      zipMs.push(Math.round(performance.now() - t0))
      const body = JSON.parse(answer.body)
      if (body.status !== 'OK') throw new Error(`ZipMetricsStorages answered ${answer.body}`)
      archiveBytes = fs.statSync(body.path).size
    }
    const zipWindowMs = performance.now() - zipStarted
    window = 'stop'
    await Promise.all(workers)
    return {
      seeded,
      archiveBytes,
      zipMs,
      payments: {
        concurrency,
        errors,
        baseline: summary(latencies.baseline, baselineMs),
        duringZip: summary(latencies.zip, zipWindowMs),
      },
    }
  } finally {
    for (const connection of [...connections, zipConnection]) connection.close()
    await daemon.stop()
    fs.rmSync(path.dirname(dataDir), { recursive: true, force: true })
  }
}

/** Usage files: `apps` apps × `seriesPerApp` operations of 100 records each; bundle: 20 series × 3 full chunks. */
function seedMetrics(dir: string, apps: number, seriesPerApp: number) {
  let files = 0
  let bytes = 0
  const write = (file: string, data: Uint8Array) => {
    fs.mkdirSync(path.dirname(file), { recursive: true })
    fs.writeFileSync(file, data)
    files++
    bytes += data.length
  }
  const usage = (i: number) =>
    encodeUsageRecord({
      processedAtSeconds: 1_750_000_000 + i,
      parseUs: 0,
      authUs: 40 + (i % 7),
      validateUs: 12 + (i % 5),
      handleUs: 300 + ((i * 37) % 900),
      batchSize: 0,
      batch: false,
      nostr: i % 3 === 0,
      success: i % 11 !== 0,
    })
  for (let app = 0; app < apps; app++) {
    for (let series = 0; series < seriesPerApp; series++) {
      const records = Array.from({ length: 100 }, (_, i) => usage(i + series))
      write(path.join(dir, 'usage', `app${app}`, `Operation${series}`, '0.mtlv'), encodeRecordList(records))
    }
  }
  const fullChunk = encodeRecordList(Array.from({ length: (128 * 1024) / 10 }, (_, i) => encodeBundleSample(1_750_000_000 + i, (i * 7919) % 100_000)))
  for (let series = 0; series < 20; series++) {
    for (let chunk = 0; chunk < 3; chunk++) write(path.join(dir, 'bundle', '_root', `series${series}`, `${chunk}.mtlv`), fullChunk)
  }
  return { files, megabytes: Math.round(bytes / 1024 / 10.24) / 100 }
}

function summary(latencies: number[], windowMs: number) {
  const sorted = [...latencies].sort((a, b) => a - b)
  const at = (q: number) => Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0)
  return { payments: sorted.length, perSecond: Math.round((sorted.length / windowMs) * 1000), p50Ms: at(0.5), p99Ms: at(0.99), maxMs: at(1) }
}

if (import.meta.url === pathToFileURL(process.argv[1]!).href) {
  console.log(JSON.stringify(await benchMetricsZip(), null, 2))
}
