// `npm run bench`: starts the real daemon on temporary data dirs and measures it over loopback (HTTP and the
// embedded relay). Prints one JSON document. Figures from a shared 2-core machine are noisy: compare ratios within
// one run. `npm run bench -- spine payments` runs only the named parts.
import { startDaemon } from '../test/support/daemon.js'
import { runLoad, type LoadResult } from './load.js'
import { benchPayments } from './payments.js'
import { benchNostr } from './nostr.js'
import { benchRestaurant } from './restaurant.js'

const durationMs = Number(process.env.BENCH_DURATION_MS ?? 3000)
const parts: Record<string, () => Promise<unknown>> = {
  spine: benchSpine,
  payments: async () => ({
    full: await benchPayments({ synchronous: 'full' }),
    normal: await benchPayments({ synchronous: 'normal' }),
  }),
  nostr: () => benchNostr({ durationMs, inFlight: [8, 64] }),
  restaurant: () => benchRestaurant({ durationMs }),
}
const chosen = process.argv.slice(2).length > 0 ? process.argv.slice(2) : Object.keys(parts)

/** Health and one authenticated POST through the whole dispatcher, at concurrency 1 and 32 (issue 2). */
async function benchSpine() {
  const daemon = await startDaemon({ env: { RELAYPAY_LOG_LEVEL: 'warn' } })
  const isOk = (status: number, body: string) => status === 200 && body.includes('"status":"OK"')
  try {
    const app = await daemon.request('POST', '/api/admin/app/add', {
      body: { name: 'bench', allow_user_creation: false },
      headers: { authorization: daemon.adminToken },
    })
    const appToken: string = app.json.auth_token
    const results: Record<string, Record<string, LoadResult>> = { Health: {}, GetApp: {} }
    for (const concurrency of [1, 32]) {
      results.Health![`c${concurrency}`] = await runLoad({ url: `${daemon.url}/api/health`, method: 'GET', concurrency, durationMs, ok: isOk })
      // JWT check, app lookup, validation, handler, reply.
      results.GetApp![`c${concurrency}`] = await runLoad({
        url: `${daemon.url}/api/app/get`, method: 'POST', body: {}, headers: { authorization: appToken }, concurrency, durationMs, ok: isOk,
      })
    }
    return results
  } finally {
    await daemon.stop()
  }
}

const report: Record<string, unknown> = { machine: 'shared 2-core; noisy: compare ratios within one run', durationMs }
for (const name of chosen) {
  const part = parts[name]
  if (!part) throw new Error(`unknown bench part ${name}; known: ${Object.keys(parts).join(', ')}`)
  report[name] = await part()
}
process.stdout.write(JSON.stringify(report, null, 2) + '\n')
