// `npm run bench`: starts the real daemon on a temporary data dir and measures it over loopback HTTP.
// Prints one JSON document. Figures from a shared 2-core machine are noisy: compare ratios within one run.
import { startDaemon } from '../test/support/daemon.js'
import { runLoad, type LoadResult } from './load.js'

const durationMs = Number(process.env.BENCH_DURATION_MS ?? 3000)
const concurrencies = [1, 32]

const daemon = await startDaemon({ env: { RELAYPAY_LOG_LEVEL: 'warn' } })
const isOk = (status: number, body: string) => status === 200 && body.includes('"status":"OK"')
try {
  const app = await daemon.request('POST', '/api/admin/app/add', {
    body: { name: 'bench', allow_user_creation: false },
    headers: { authorization: daemon.adminToken },
  })
  const appToken: string = app.json.auth_token
  const results: Record<string, Record<string, LoadResult>> = { Health: {}, GetApp: {} }
  for (const concurrency of concurrencies) {
    results.Health![`c${concurrency}`] = await runLoad({
      url: `${daemon.url}/api/health`, method: 'GET', concurrency, durationMs, ok: isOk,
    })
    // An authenticated POST through the whole dispatcher: JWT check, app lookup, validation, handler, reply.
    results.GetApp![`c${concurrency}`] = await runLoad({
      url: `${daemon.url}/api/app/get`, method: 'POST', body: {}, headers: { authorization: appToken },
      concurrency, durationMs, ok: isOk,
    })
  }
  process.stdout.write(
    JSON.stringify({ machine: 'shared 2-core; noisy: compare ratios within one run', durationMs, results }, null, 2) + '\n',
  )
} finally {
  await daemon.stop()
}
