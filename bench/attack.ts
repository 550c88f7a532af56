// `npm run bench -- attack`: each attack on a fresh daemon, from a process of its own on another loopback
// address (test/support/relay-attacker.ts), measured from this process as a user would see it:
// - health p50/p99: GET /api/health every 100 ms;
// - a fresh wallet's RPC: a new key connects to the embedded relay and calls GetUserInfo, every second (connect
//   included);
// - payments/s: internal payments (4 in flight) during the first half of the attack, as a share of the same load
//   measured quiet just before; over HTTP, or over Nostr (PayInvoice through the embedded relay, from 127.0.0.1)
//   for the attacks on the relay's request path (the REQ flood, big requests), whose victims are Nostr clients;
// - relay store: bytes counted against its budget and the files' size; payments database growth: its logical size
//   (page_count × page_size, WAL included) over the attack's second half, when no bench payment runs (so what grows
//   is the attack's doing);
// - `relaypay audit` on the data dir after the daemon stopped;
// - for the enroll flood, the accounts opened during the attack (GetUsersAdminInfo's total before and after).
// Floors: health p99 < 100 ms, fresh RPC < 1 s, payments >= 50 % of quiet (Nostr payments: 80 %), store within its quota,
// payments database growth < 1 MB, audit clean; the enroll flood opens no more accounts than the node's two budgets
// for new accounts: enroll's (`[clink] enroll_accounts_per_minute` in any 60 s) and the one of keys opening an account
// by their first Nostr call (`[apps] new_accounts_burst` + new_accounts_per_minute), which the bench's own fresh-RPC
// probe draws from, a new key each second. The machine is shared: figures are as measured.
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import Database from 'better-sqlite3'
import { startDaemon, cliPath, tempDataDir, type TestDaemon } from '../test/support/daemon.js'
import { repoRoot } from '../test/support/paths.js'
import { createAppWithUser, addAppUser, jwtSecretConfig } from '../test/support/accounts.js'
import { buildMenu, startRestaurantDaemon, jwtSecret as restaurantSecret } from '../test/extensions/restaurant/restaurant-daemon.js'
import { appProfile, PubClient } from '../test/support/pub-client.js'
import { percentile, runAttacker, seedRelayStore, watchDaemon, type AttackPlan, type AttackReport } from '../test/support/attack.js'
import { RawConnection, rawRequest } from './raw-http.js'
import { processCpuMs, threadsCpuMs } from './process-stats.js'
import { profiledCli } from './nostr-builds.js'

const benchSecret = 'bench-attack-secret-0123456789abcdef'
const attacker = '127.0.0.2'
const paymentSats = 10
const payWorkers = 4
const quotaBytes = 256 * 1024 * 1024

export interface AttackFigures {
  attacker: AttackReport
  healthP50Ms: number
  healthP99Ms: number
  healthMaxMs: number
  /** Health calls with no answer within 10 s (their latency counts as Infinity, printed as null). */
  healthFailed: number
  /** max is null (Infinity) when a call failed or got no answer within 10 s. */
  freshRpcMs: { p50: number; max: number; calls: number; failed: number; slowest: { connectMs: number; callMs: number } | null }
  paymentsPerSecond: { over: 'http' | 'nostr'; quiet: number; underAttack: number; share: number }
  relayStoreBytes: number
  relayFileBytes: number
  paymentsDbGrowthBytes: number
  /** The daemon's CPU over the attack (all its threads; the bench's payments run in the first half). */
  daemonCpuMsDuringAttack: number | null
  /**
   * The same by thread: the main thread's, then the other threads' from the busiest down (threads are not named; in
   * the attacks on the relay the busiest other is the relay's).
   */
  daemonThreadsCpuMs: { main: number; others: number[] }
  /** The same over the quiet payments (their window is shorter: windowMs). */
  quietDaemonThreadsCpuMs: { main: number; others: number[]; windowMs: number }
  /**
   * With BENCH_PROFILE_DIR: the daemon ran under `--cpu-prof` (a profile per thread, written at its stop) and this is
   * the attack's window on the monotonic clock the profiles use (µs): BENCH_PROFILE_WINDOW for bench/cpuprofile.ts.
   */
  profileWindowUs?: [number, number]
  /** Accounts opened while the attack ran (enroll flood only). */
  accountsOpened?: number
  auditClean: boolean
  floors: Record<string, boolean>
}

/** `only`: the attacks to run (readFlood, storeFill, bigRequests, connectionHog, guestOrders, enrollFlood, enrollFloodMany); all when absent. */
export async function benchAttack(opts: { attackMs?: number; quietMs?: number; only?: string[] } = {}): Promise<Record<string, AttackFigures>> {
  const attackMs = opts.attackMs ?? 10_000
  const quietMs = opts.quietMs ?? 5000
  const out: Record<string, AttackFigures> = {}
  const wanted = (name: string) => !opts.only || opts.only.includes(name)

  if (wanted('readFlood')) out.readFlood = await measure(attackMs, quietMs, async () => {
    const dataDir = path.join(tempDataDir(), 'data')
    // What a busy relay holds: 20,000 stored requests of others and 5,000 stored notes (from a general relay's days).
    seedRelayStore(dataDir, { ephemeral: 20_000, stored: 5000 })
    const daemon = await startDaemon({ ...profiling(), dataDir, config: jwtSecretConfig(benchSecret), env: { RELAYPAY_LOG_LEVEL: 'warn' } })
    return { daemon, secret: benchSecret, plan: { mode: 'read-flood', connections: 50 }, payOver: 'nostr' }
  })
  if (wanted('storeFill')) out.storeFill = await measure(attackMs, quietMs, async () => {
    const daemon = await startDaemon({ ...profiling(), config: jwtSecretConfig(benchSecret), env: { RELAYPAY_LOG_LEVEL: 'warn' } })
    return { daemon, secret: benchSecret, plan: { mode: 'store-fill', connections: 8, eventBytes: 60_000, appPubkey: appProfile(daemon.dataDir).pubkey } }
  })
  if (wanted('bigRequests')) out.bigRequests = await measure(attackMs, quietMs, async () => {
    // Signed requests of 250 KB addressed to the app, from eight keys, as fast as the relay reads them.
    const daemon = await startDaemon({ ...profiling(), config: jwtSecretConfig(benchSecret), env: { RELAYPAY_LOG_LEVEL: 'warn' } })
    return { daemon, secret: benchSecret, plan: { mode: 'big-requests', connections: 8, eventBytes: 250_000, appPubkey: appProfile(daemon.dataDir).pubkey }, payOver: 'nostr' }
  })
  if (wanted('connectionHog')) out.connectionHog = await measure(attackMs, quietMs, async () => {
    const daemon = await startDaemon({ ...profiling(), config: jwtSecretConfig(benchSecret), env: { RELAYPAY_LOG_LEVEL: 'warn' } })
    return { daemon, secret: benchSecret, plan: { mode: 'conn-hog', connections: 1022 } }
  })
  if (wanted('guestOrders')) out.guestOrders = await measure(attackMs, quietMs, async () => {
    const rd = await startRestaurantDaemon({ env: { RELAYPAY_LOG_LEVEL: 'warn' } })
    const owner = await rd.wallet()
    const menu = await buildMenu(rd, owner)
    // Large orders: as many lines as the HTTP body cap lets through.
    const items = Array.from({ length: 18_000 }, () => ({ item_id: menu.cola.id, quantity: 1 }))
    return {
      daemon: rd.daemon,
      secret: restaurantSecret,
      plan: { mode: 'guest-orders', connections: 16, url: `${rd.daemon.url}/restaurant/api/v1/orders`, order: { restaurant_id: menu.id, items } },
    }
  })
  if (wanted('enrollFlood')) out.enrollFlood = await measure(attackMs, quietMs, async () => {
    // No proof of work asked: the flood is as cheap for the attacker as it can be, and only the cap holds it.
    const config = `${jwtSecretConfig(benchSecret)}[clink]\nenroll_pow_bits = 0\n`
    const daemon = await startDaemon({ ...profiling(), config, env: { RELAYPAY_LOG_LEVEL: 'warn' } })
    return {
      daemon,
      secret: benchSecret,
      plan: { mode: 'enroll-flood', connections: 8, appPubkey: appProfile(daemon.dataDir).pubkey },
      accountCap: newAccountsCap,
    }
  })
  if (wanted('enrollFloodMany')) out.enrollFloodMany = await measure(attackMs, quietMs, async () => {
    // The same flood from 32 addresses (127.0.2.1–32), each within its own new-key budget: only the node's cap holds.
    const config = `${jwtSecretConfig(benchSecret)}[clink]\nenroll_pow_bits = 0\n`
    const daemon = await startDaemon({ ...profiling(), config, env: { RELAYPAY_LOG_LEVEL: 'warn' } })
    const localAddresses = Array.from({ length: 32 }, (_, i) => `127.0.2.${i + 1}`)
    return {
      daemon,
      secret: benchSecret,
      plan: { mode: 'enroll-flood', connections: 32, localAddresses, appPubkey: appProfile(daemon.dataDir).pubkey },
      accountCap: newAccountsCap,
    }
  })
  return out
}

/** With BENCH_PROFILE_DIR, the daemon runs under `--cpu-prof` into that folder (each thread's profile at its stop). */
function profiling(): { cli?: string } {
  const dir = process.env.BENCH_PROFILE_DIR
  return dir ? { cli: profiledCli(repoRoot, dir) } : {}
}

/** Microseconds of the monotonic clock V8's profiles are stamped with. */
const monotonicUs = () => Number(process.hrtime.bigint() / 1000n)

/**
 * The default budgets for new accounts over `ms`: enroll's 60 in any 60 s (60 for each minute begun), and the first
 * Nostr call's bucket (a burst of 300, then 60 a minute), from which the fresh-RPC probe's new keys open theirs.
 */
const newAccountsCap = (ms: number) => 60 * Math.ceil(ms / 60_000) + 300 + Math.ceil((60 * ms) / 60_000)

/** Every wallet on the daemon, as the operator counts them. */
async function walletCount(daemon: TestDaemon): Promise<number> {
  const res = await daemon.request('POST', '/api/admin/users/info', { body: {}, headers: { authorization: `Bearer ${daemon.adminToken}` } })
  return res.json.total as number
}

interface Setup {
  daemon: TestDaemon
  secret: string
  plan: Omit<AttackPlan, 'url' | 'durationMs' | 'localAddress'> & { url?: string }
  /** The most accounts the attack may open in `ms` (an attack that opens accounts). */
  accountCap?: (ms: number) => number
  /** How the measured payments are made (HTTP unless said). */
  payOver?: 'http' | 'nostr'
}

async function measure(attackMs: number, quietMs: number, setup: () => Promise<Setup>): Promise<AttackFigures> {
  const { daemon, secret, plan, accountCap, payOver = 'http' } = await setup()
  process.stderr.write(`attack bench: ${plan.mode}\n`)
  let stopped = false
  try {
    const pay = payOver === 'nostr' ? await nostrPayments(daemon, secret) : await payments(daemon, secret)
    const quietThreadsBefore = threadsCpuMs(daemon.process.pid)
    const quietStarted = performance.now()
    const quiet = await pay.run(quietMs)
    const quietThreads = threadDeltas(String(daemon.process.pid), quietThreadsBefore, threadsCpuMs(daemon.process.pid))
    const quietWindowMs = performance.now() - quietStarted
    // Warm this process's clients, then watch while the attacker runs.
    const warm = watchDaemon(daemon, { healthEveryMs: 50, rpcEveryMs: 100 })
    await new Promise(resolve => setTimeout(resolve, 500))
    await warm.stop()
    const watch = watchDaemon(daemon, { healthEveryMs: 100, rpcEveryMs: 1000 })
    const relayUrl = appProfile(daemon.dataDir).relays[0]!
    const walletsBefore = accountCap ? await walletCount(daemon) : 0
    const attackStarted = Date.now()
    const cpuBefore = processCpuMs(daemon.process.pid)
    const threadsBefore = threadsCpuMs(daemon.process.pid)
    const windowFrom = monotonicUs()
    const attack = runAttacker({ url: relayUrl, durationMs: attackMs, localAddress: attacker, ...plan })
    const underAttack = await pay.run(attackMs / 2)
    pay.close() // idle keep-alive connections would be reset by the server's keep-alive timeout
    const dbBefore = logicalSize(path.join(daemon.dataDir, 'relaypay.sqlite'))
    const report = await attack
    const cpuAfter = processCpuMs(daemon.process.pid)
    const threadsAfter = threadsCpuMs(daemon.process.pid)
    const windowTo = monotonicUs()
    await watch.stop()
    // Requests the relay took during the attack may still be in the daemon's queue: counted once it is idle.
    const walletsAfter = accountCap ? await settledWalletCount(daemon) : 0
    const openingMs = Date.now() - attackStarted
    const dbAfter = logicalSize(path.join(daemon.dataDir, 'relaypay.sqlite'))
    const relay = relayStore(daemon.dataDir)
    await daemon.stop()
    stopped = true
    const audit = spawnSync(process.execPath, [cliPath, 'audit', '--data-dir', daemon.dataDir], { encoding: 'utf8' })
    const rpcOk = watch.rpc.filter(ms => Number.isFinite(ms))
    const figures = {
      attacker: report,
      healthP50Ms: round(percentile(watch.health, 50)),
      healthP99Ms: round(percentile(watch.health, 99)),
      healthMaxMs: round(Math.max(...watch.health)),
      healthFailed: watch.health.filter(ms => !Number.isFinite(ms)).length,
      freshRpcMs: {
        p50: round(percentile(rpcOk, 50)),
        max: round(Math.max(...watch.rpc)),
        calls: watch.rpc.length,
        failed: watch.rpc.length - rpcOk.length,
        // Where the slowest call spent its time: connecting to the relay, or the request after it.
        slowest: slowestParts(watch.rpcParts),
      },
      paymentsPerSecond: { over: payOver, quiet: round(quiet), underAttack: round(underAttack), share: round(underAttack / quiet) },
      relayStoreBytes: relay.counted,
      relayFileBytes: relay.files,
      paymentsDbGrowthBytes: dbAfter - dbBefore,
      daemonCpuMsDuringAttack: cpuBefore === null || cpuAfter === null ? null : cpuAfter - cpuBefore,
      daemonThreadsCpuMs: threadDeltas(String(daemon.process.pid), threadsBefore, threadsAfter),
      quietDaemonThreadsCpuMs: { ...quietThreads, windowMs: Math.round(quietWindowMs) },
      ...(accountCap ? { accountsOpened: walletsAfter - walletsBefore } : {}),
      ...(process.env.BENCH_PROFILE_DIR ? { profileWindowUs: [windowFrom, windowTo] as [number, number] } : {}),
      auditClean: audit.status === 0,
    }
    return {
      ...figures,
      floors: {
        healthP99Under100Ms: figures.healthP99Ms < 100,
        freshRpcUnder1s: figures.freshRpcMs.max < 1000,
        ...(payOver === 'nostr'
          ? { nostrPaymentsAtLeast80Percent: figures.paymentsPerSecond.share >= 0.8 }
          : { paymentsAtLeastHalf: figures.paymentsPerSecond.share >= 0.5 }),
        storeWithinQuota: relay.counted <= quotaBytes,
        paymentsDbGrowthUnder1MB: figures.paymentsDbGrowthBytes < 1024 * 1024,
        auditClean: figures.auditClean,
        // The budget refills while the queue drains: the cap is the one for the whole time accounts could open.
        ...(accountCap ? { accountsWithinCap: walletsAfter - walletsBefore <= accountCap(openingMs) } : {}),
      },
    }
  } finally {
    if (!stopped) await daemon.stop()
  }
}

/** The wallet count once it stops changing (two reads a second apart agree). */
async function settledWalletCount(daemon: TestDaemon): Promise<number> {
  let last = await walletCount(daemon)
  for (;;) {
    await new Promise(resolve => setTimeout(resolve, 1000))
    const now = await walletCount(daemon)
    if (now === last) return now
    last = now
  }
}

/** A payer paying a payee's pre-made invoices over HTTP, `payWorkers` in flight. */
async function payments(daemon: TestDaemon, secret: string) {
  const url = new URL(daemon.url)
  const tag = Math.random().toString(36).slice(2, 8)
  const payer = await createAppWithUser(daemon, { jwtSecret: secret, identifier: `attack-payer-${tag}` })
  const payee = await addAppUser(daemon, { appToken: payer.appToken, appId: payer.appId, jwtSecret: secret, identifier: `attack-payee-${tag}` })
  const connections = await Promise.all(Array.from({ length: payWorkers }, () => RawConnection.connect(Number(url.port), url.hostname)))
  const funded = await daemon.request('POST', '/api/app/mock/user/blance/set', {
    headers: { authorization: payer.appToken },
    body: { user_identifier: payer.identifier, amount: 1_000_000_000 },
  })
  if (funded.json?.status !== 'OK') throw new Error(`funding the bench payer (mock balance; needs [node] mock on): ${funded.text}`)
  const newInvoice = rawRequest(url.host, 'POST', '/api/user/invoice/new', { authorization: payee.userToken }, JSON.stringify({ amountSats: paymentSats, memo: 'attack bench' }))
  const pay = (invoice: string) => rawRequest(url.host, 'POST', '/api/user/invoice/pay', { authorization: payer.userToken }, JSON.stringify({ invoice, amount: 0 }))
  return {
    /** Pays for `ms` (invoices made on the way, outside the timing of each payment); returns payments per second. */
    run: (ms: number) =>
      payFor(ms, connections, newInvoice, async (i, invoice) => {
        const answer = await connections[i]!.send(pay(invoice))
        return answer.status === 200 && answer.body.startsWith('{"status":"OK"')
      }),
    close: () => connections.forEach(connection => connection.close()),
  }
}

/**
 * The same load over Nostr: four wallets (keys of their own, funded through the mock node) pay a payee's invoices
 * with PayInvoice through the embedded relay, one in flight each; the invoices are made over HTTP on the way.
 */
async function nostrPayments(daemon: TestDaemon, secret: string) {
  const url = new URL(daemon.url)
  const tag = Math.random().toString(36).slice(2, 8)
  const owner = await createAppWithUser(daemon, { jwtSecret: secret, identifier: `attack-owner-${tag}` })
  const payee = await addAppUser(daemon, { appToken: owner.appToken, appId: owner.appId, jwtSecret: secret, identifier: `attack-payee-${tag}` })
  const { relays, pubkey } = appProfile(daemon.dataDir)
  const payers = await Promise.all(Array.from({ length: payWorkers }, () => PubClient.connect({ relays, appPubkey: pubkey, timeoutMs: 30_000 })))
  const connections = await Promise.all(Array.from({ length: payWorkers }, () => RawConnection.connect(Number(url.port), url.hostname)))
  for (const payer of payers) {
    const funding = await payer.ok('NewInvoice', { amountSats: 10_000_000, memo: 'attack bench funding' })
    const paid = await connections[0]!.send(rawRequest(url.host, 'POST', '/api/node/mock/invoice/paid', {}, JSON.stringify({ invoice: funding.invoice, amount: 0 })))
    if (paid.status !== 200) throw new Error(`funding a bench wallet failed (needs [node] mock on): ${paid.status} ${paid.body}`)
  }
  const newInvoice = rawRequest(url.host, 'POST', '/api/user/invoice/new', { authorization: payee.userToken }, JSON.stringify({ amountSats: paymentSats, memo: 'attack bench' }))
  return {
    run: (ms: number) => payFor(ms, connections, newInvoice, async (i, invoice) => (await payers[i]!.call('PayInvoice', { invoice, amount: 0 }).catch(() => undefined))?.status === 'OK'),
    close: () => {
      connections.forEach(connection => connection.close())
      payers.forEach(payer => payer.close())
    },
  }
}

/**
 * One loop per connection for `ms`: an invoice made over it (outside the timing), then `pay` timed. Returns
 * payments per second of paying, per worker times the workers (invoice creation is the bench's set-up, not the measure).
 */
async function payFor(ms: number, connections: RawConnection[], newInvoice: Buffer, pay: (worker: number, invoice: string) => Promise<boolean>): Promise<number> {
  let paid = 0
  let payingMs = 0
  const until = performance.now() + ms
  await Promise.all(
    connections.map(async (connection, i) => {
      while (performance.now() < until) {
        const invoice = JSON.parse((await connection.send(newInvoice)).body).invoice as string
        const t0 = performance.now()
        if (await pay(i, invoice)) paid++
        payingMs += performance.now() - t0
      }
    }),
  )
  return (paid / payingMs) * 1000 * connections.length
}

function logicalSize(file: string): number {
  const db = new Database(file, { readonly: true, fileMustExist: true })
  try {
    return (db.pragma('page_count', { simple: true }) as number) * (db.pragma('page_size', { simple: true }) as number)
  } finally {
    db.close()
  }
}

function relayStore(dataDir: string): { counted: number; files: number } {
  const file = path.join(dataDir, 'relay.sqlite')
  const files = ['', '-wal'].reduce((sum, suffix) => sum + (fs.statSync(file + suffix, { throwIfNoEntry: false })?.size ?? 0), 0)
  const db = new Database(file, { readonly: true, fileMustExist: true })
  try {
    const row = db.prepare("SELECT bytes FROM usage WHERE key = ''").get() as { bytes: number } | undefined
    return { counted: row?.bytes ?? 0, files }
  } finally {
    db.close()
  }
}

function threadDeltas(mainTid: string, before: Map<string, number>, after: Map<string, number>): { main: number; others: number[] } {
  const delta = (tid: string) => (after.get(tid) ?? 0) - (before.get(tid) ?? 0)
  const others = [...after.keys()].filter(tid => tid !== mainTid).map(delta).filter(ms => ms > 0).sort((a, b) => b - a)
  return { main: delta(mainTid), others }
}

function slowestParts(parts: { connectMs: number; callMs: number }[]): { connectMs: number; callMs: number } | null {
  const slowest = parts.reduce<(typeof parts)[number] | null>((worst, part) => (!worst || part.connectMs + part.callMs > worst.connectMs + worst.callMs ? part : worst), null)
  return slowest && { connectMs: round(slowest.connectMs), callMs: round(slowest.callMs) }
}

function round(value: number): number {
  return Math.round(value * 100) / 100
}
