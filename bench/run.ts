// `npm run bench`: starts the real daemon on temporary data dirs and measures it over loopback (HTTP and the
// embedded relay). Prints one JSON document; `budget` holds the performance budget with a `floors`
// section (met / missed per floor). Figures from a shared 2-core machine are noisy: compare ratios within one run,
// and the CPU milliseconds per operation, which depend far less on what else the machine runs.
// `npm run bench -- budget nostr` runs only the named parts; BENCH_DURATION_MS sets each timed window (default
// 3000), BENCH_PAYMENTS the payments per measured payment window (default 3000).
import os from 'node:os'
import { startDaemon } from '../test/support/daemon.js'
import { runLoad, type LoadResult } from './load.js'
import { benchPayments } from './payments.js'
import { benchNostr } from './nostr.js'
import { benchNostrBuilds, nostrBuildsOptionsFromEnv } from './nostr-builds.js'
import { measureCryptoFloor } from './crypto-floor.js'
import { benchRestaurant } from './restaurant.js'
import { benchBudget } from './budget.js'
import { benchMetricsZip } from './metrics-zip.js'
import { benchLayers } from './layers.js'
import { benchLndStart, lndStartOptionsFromEnv } from './lnd-start.js'
import { benchLeanStart, leanStartOptionsFromEnv } from './lean-start.js'
import { benchAttack } from './attack.js'
import { benchSoak } from './soak.js'
import { benchLndPayments, lndPaymentsOptionsFromEnv } from './payments-lnd.js'
import { benchFlatCost, flatCostOptionsFromEnv } from './flat-cost.js'
import { benchSideBySide, sideBySideOptionsFromEnv } from './side-by-side.js'
import { benchStoreEngine } from './store-engine.js'
import { benchPaymentsOnPostgres, postgresBesideSqlite } from './payments-engines.js'
import { benchPaymentsRegtest, paymentsRegtestOptionsFromEnv } from './payments-regtest.js'

const durationMs = Number(process.env.BENCH_DURATION_MS ?? 3000)
const paymentsPerLevel = Number(process.env.BENCH_PAYMENTS ?? 3000)
const parts: Record<string, () => Promise<unknown>> = {
  budget: () => benchBudget({ durationMs, payments: paymentsPerLevel }),
  spine: benchSpine,
  layers: () => benchLayers({ durationMs }),
  payments: async () => {
    const full = await benchPayments({ synchronous: 'full', paymentsPerLevel })
    const normal = await benchPayments({ synchronous: 'normal', paymentsPerLevel, concurrencies: [32] })
    // The same work with the books on PostgreSQL 15 (bench/payments-engines.ts), with its server's CPU.
    const postgres = await benchPaymentsOnPostgres({ paymentsPerLevel })
    return {
      full,
      normal,
      postgres,
      postgresBesideSqlite: 'results' in postgres ? postgresBesideSqlite(full.results, postgres.results) : undefined,
      // The LND backend on the fake LND (pairs of AddAppUserInvoice + PayAppUserInvoice, external
      // payments, settlements); BENCH_LND_ROOTS runs older builds beside this one, and PostgreSQL's books' rows come with
      // SQLite's unless BENCH_LND_STORES says otherwise.
      lnd: await benchLndPayments({ stores: ['sqlite', 'postgres'], ...lndPaymentsOptionsFromEnv() }),
    }
  },
  // The embedded payments on SQLite (synchronous = full) and on PostgreSQL only, without the LND part;
  // BENCH_ENGINE_RUNS rounds (default 1), the engines' order reversed every other round.
  paymentsEngines: () => benchEngines(Number(process.env.BENCH_ENGINE_RUNS ?? 1)),
  paymentsLnd: () => benchLndPayments(lndPaymentsOptionsFromEnv()),
  // The same paths on a real regtest network (LND A under the daemon, R, B), each beside a bare gRPC client making
  // relaypay's LND calls on A: the ratio of the rates says whether LND or relaypay is the limit. Not in the default
  // set: it needs the regtest binaries and starts a network of its own (BENCH_REGTEST_* settings).
  paymentsRegtest: () => benchPaymentsRegtest(paymentsRegtestOptionsFromEnv()),
  // Flat cost for one or more builds (BENCH_FLAT_ROOTS): CPU per payment at 10k and 1M journal rows, RSS with
  // 100k users. Not in the default set: budget measures the same for this build.
  flatCost: () => benchFlatCost(flatCostOptionsFromEnv()),
  // Old and new builds in one run (BENCH_ROOTS, BENCH_SIDE_RUNS): payments/s at c=32 and Nostr round trips/s with
  // the daemon's CPU per operation. Not in the default set: it needs the builds to compare.
  sideBySide: () => benchSideBySide(sideBySideOptionsFromEnv(process.env, durationMs, paymentsPerLevel)),
  nostr: () => benchNostr({ durationMs, inFlight: [8, 64] }),
  // GetUserInfo through the embedded and an external relay, BENCH_NOSTR_ROOTS builds side by side,
  // BENCH_NOSTR_RUNS runs (default 3). Not in the default set: nostr measures this build.
  nostrBuilds: () => benchNostrBuilds(nostrBuildsOptionsFromEnv()),
  // Sign, check and ECDH on each secp256k1 engine (native, wasm, pure JS), CPU µs per operation in this process.
  crypto: () => measureCryptoFloor(),
  restaurant: () => benchRestaurant({ durationMs }),
  metricsZip: () => benchMetricsZip({ baselineMs: durationMs }),
  // The engine-neutral SqlStore against raw better-sqlite3, and PostgreSQL beside it when a server is at
  // hand. Not in the default set: it measures the store layer alone, not the daemon.
  storeEngine: () => benchStoreEngine({ ops: Number(process.env.BENCH_STORE_OPS ?? 50_000) }),
  // Not in the default set: it prepares 100k invoices and, against an old build, waits minutes per run.
  lndStart: () => benchLndStart(lndStartOptionsFromEnv()),
  // Spawn → /readyz, RSS and CPU after a plain start, builds side by side (BENCH_LEAN_START_ROOTS,
  // BENCH_LEAN_START_RUNS). Not in the default set: it compares builds.
  leanStart: () => benchLeanStart(leanStartOptionsFromEnv()),
  // Each attack for BENCH_ATTACK_MS (default 10 s) after a quiet window of BENCH_DURATION_MS;
  // BENCH_ATTACKS=readFlood,storeFill,bigRequests,connectionHog,guestOrders,enrollFlood,enrollFloodMany picks some.
  attack: () =>
    benchAttack({
      attackMs: Number(process.env.BENCH_ATTACK_MS ?? 10_000),
      quietMs: Math.max(durationMs, 3000),
      ...(process.env.BENCH_ATTACKS ? { only: process.env.BENCH_ATTACKS.split(',') } : {}),
    }),
  // BENCH_SOAK_MS long (default an hour), sampled every BENCH_SOAK_SAMPLE_MS (default a minute). Not in the default
  // set: it takes the hour.
  soak: () =>
    benchSoak({
      durationMs: Number(process.env.BENCH_SOAK_MS ?? 3_600_000),
      sampleMs: Number(process.env.BENCH_SOAK_SAMPLE_MS ?? 60_000),
    }),
}
const chosen = process.argv.slice(2).length > 0 ? process.argv.slice(2) : Object.keys(parts).filter(name => !['lndStart', 'leanStart', 'paymentsLnd', 'paymentsRegtest', 'flatCost', 'sideBySide', 'paymentsEngines', 'storeEngine', 'nostrBuilds', 'soak'].includes(name))

async function benchEngines(runs: number) {
  const rounds = []
  for (let run = 1; run <= runs; run++) {
    const sqliteFirst = run % 2 === 1
    const sqlite = sqliteFirst ? await benchPayments({ synchronous: 'full', paymentsPerLevel }) : undefined
    const postgres = await benchPaymentsOnPostgres({ paymentsPerLevel })
    const full = sqlite ?? (await benchPayments({ synchronous: 'full', paymentsPerLevel }))
    const row = {
      run,
      order: sqliteFirst ? 'sqlite, postgres' : 'postgres, sqlite',
      loadAverage: os.loadavg().map(x => Math.round(x * 100) / 100),
      sqlite: full,
      postgres,
      postgresBesideSqlite: 'results' in postgres ? postgresBesideSqlite(full.results, postgres.results) : undefined,
    }
    process.stderr.write(`paymentsEngines: run ${run}: ${JSON.stringify(row.postgresBesideSqlite ?? postgres)}\n`)
    rounds.push(row)
  }
  return rounds
}

/** Health and one authenticated POST through the whole dispatcher, at concurrency 1 and 32. */
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
