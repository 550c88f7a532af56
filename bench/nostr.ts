// Round trips over the relay bus, through the daemon's embedded relay, by independent clients (one key and
// connection each) with 8 and 64 requests in flight: GetUserInfo (a cheap read), and PayInvoice of
// another user's invoice (an internal payment: one ledger transaction, pushes to both sides). A round trip is
// request published → reply received and decrypted. The first floor is 500 round trips/s (bench/budget.ts).
// The clients sign each request in the loop but do not verify replies, so the load generator stays light; the
// payees' invoices are made over HTTP before the clock starts.
import { startDaemon, type TestDaemon } from '../test/support/daemon.js'
import { appProfile, PubClient } from '../test/support/pub-client.js'
import { addAppUser, createAppWithUser, jwtSecretConfig } from '../test/support/accounts.js'
import { cpuWindow, processCpuMs, profiler, profilingEnv } from './process-stats.js'
import { RawConnection, rawRequest } from './raw-http.js'

export interface NostrBenchRow {
  operation: RelayBenchOperation
  inFlight: number
  roundTrips: number
  errors: number
  roundTripsPerSecond: number
  p50Ms: number
  p99Ms: number
  /** CPU of the daemon (with its embedded relay) per round trip: the figure comparable across noisy runs. */
  daemonCpuMsPerRoundTrip: number | null
  /** CPU of the clients (this process: signing, encryption, their WebSockets) per round trip. */
  clientCpuMsPerRoundTrip: number
  /** CPU of an external relay process per round trip (when the bench was given its pid). */
  relayCpuMsPerRoundTrip?: number | null
  profile?: string
}

export type RelayBenchOperation = 'GetUserInfo' | 'PayInvoice'

export interface NostrBenchOptions {
  /** A running daemon with its embedded relay, started with `nostrBenchConfig`; one is started when absent. */
  daemon?: TestDaemon
  durationMs?: number
  inFlight?: number[]
  operations?: RelayBenchOperation[]
  /** Invoices made ready per payment window: the window also ends when they are all paid. */
  paymentsPerWindow?: number
  /**
   * Profile the daemon during each measured window into this folder (a daemon given in `daemon` must have been
   * started with profilingEnv of the same folder).
   */
  profileDir?: string
  /** An external relay process the clients and the daemon talk through: its CPU is reported per round trip. */
  relayPid?: number
  /**
   * The same load, unmeasured, before each window (default 1500 ms): both processes' JIT and the relay's caches
   * are warm, as in a daemon that has been running, instead of the first window paying for it.
   */
  warmupMs?: number
}

/** PayInvoice invoices kept for the warm-up (it pays some of them). */
const warmupInvoices = 1500

export const nostrRoundTripFloor = 500
const jwtSecret = 'bench-nostr-secret-0123456789abcdef01'
// The bench's wallets all connect from 127.0.0.1: to the relay one address, which in production they are not.
export const nostrBenchConfig =
  jwtSecretConfig(jwtSecret) +
  '[nostr]\nrelay_max_connections_per_address = 1024\nrelay_events_per_second_per_address = 1000000\n' +
  'relay_messages_per_second_per_address = 1000000\nrelay_events_per_second_per_author = 1000000\n' +
  // Every bench client writes from 127.0.0.1 with a key of its own: the request kinds' per-address budgets (new
  // keys, request bytes) would refuse most of them, as they would a stranger doing the same.
  `relay_new_keys_per_minute_per_address = 100000\nrelay_request_bytes_per_second_per_address = ${1024 ** 3}\n`
const paymentSats = 10

export async function benchNostr(opts: NostrBenchOptions = {}): Promise<{ floor: number; rows: NostrBenchRow[] }> {
  const daemon =
    opts.daemon ??
    (await startDaemon({ config: nostrBenchConfig, env: { RELAYPAY_LOG_LEVEL: 'warn', ...(opts.profileDir ? profilingEnv(opts.profileDir) : {}) } }))
  const durationMs = opts.durationMs ?? 3000
  const rows: NostrBenchRow[] = []
  try {
    const { relays, pubkey } = appProfile(daemon.dataDir)
    for (const operation of opts.operations ?? ['GetUserInfo', 'PayInvoice']) {
      for (const inFlight of opts.inFlight ?? [8, 64]) {
        const clients = await Promise.all(
          Array.from({ length: inFlight }, () => PubClient.connect({ relays, appPubkey: pubkey, verifyMessages: false, timeoutMs: 15_000 })),
        )
        try {
          await Promise.all(clients.map(client => client.ok('GetUserInfo'))) // each key's account exists before timing
          const payments = (opts.paymentsPerWindow ?? 3000) + warmupInvoices
          const next = operation === 'PayInvoice' ? await preparePayments(daemon, clients, payments) : () => ({})
          await closedLoop(clients, operation, next, opts.warmupMs ?? 1500)
          const prof = profiler(daemon.process.pid, opts.profileDir)
          prof.start()
          const cpu = cpuWindow(daemon.process.pid)
          const relayCpuBefore = opts.relayPid ? processCpuMs(opts.relayPid) : null
          const row = await closedLoop(clients, operation, next, durationMs)
          const costs = cpu.end(row.roundTrips)
          const relayCpuAfter = opts.relayPid ? processCpuMs(opts.relayPid) : null
          const profile = await prof.stop()
          rows.push({
            operation,
            ...row,
            daemonCpuMsPerRoundTrip: costs.daemonCpuMsPerOp,
            clientCpuMsPerRoundTrip: costs.clientCpuMsPerOp,
            ...(opts.relayPid
              ? {
                  relayCpuMsPerRoundTrip:
                    relayCpuBefore === null || relayCpuAfter === null ? null : Math.round(((relayCpuAfter - relayCpuBefore) / Math.max(1, row.roundTrips)) * 1000) / 1000,
                }
              : {}),
            ...(profile ? { profile } : {}),
          })
        } finally {
          clients.forEach(client => client.close())
        }
      }
    }
  } finally {
    if (!opts.daemon) await daemon.stop()
  }
  return { floor: nostrRoundTripFloor, rows }
}

/**
 * Funds every client (an invoice of its own paid from outside through the mock node) and makes `count` invoices
 * of an HTTP user; returns the next PayInvoice body, or undefined once every invoice is taken.
 */
async function preparePayments(daemon: TestDaemon, clients: PubClient[], count: number): Promise<() => Record<string, unknown> | undefined> {
  const url = new URL(daemon.url)
  const connections = await Promise.all(Array.from({ length: 8 }, () => RawConnection.connect(Number(url.port), url.hostname)))
  try {
    const tag = Math.random().toString(36).slice(2, 8)
    const owner = await createAppWithUser(daemon, { jwtSecret, identifier: `relay-bench-owner-${tag}` })
    const payee = await addAppUser(daemon, { appToken: owner.appToken, appId: owner.appId, jwtSecret, identifier: `relay-bench-payee-${tag}` })
    const perClient = Math.ceil(count / clients.length) + 1
    for (const client of clients) {
      // Each payer pays at most all of them, fees included (the service fee floor is 10 sats at most by default).
      const funding = await client.ok('NewInvoice', { amountSats: perClient * (paymentSats + 10) * 2, memo: 'bench funding' })
      const paid = await connections[0]!.send(rawRequest(url.host, 'POST', '/api/node/mock/invoice/paid', {}, JSON.stringify({ invoice: funding.invoice, amount: 0 })))
      if (paid.status !== 200) throw new Error(`funding a relay bench client failed: ${paid.status} ${paid.body}`)
    }
    const newInvoice = rawRequest(url.host, 'POST', '/api/user/invoice/new', { authorization: payee.userToken }, JSON.stringify({ amountSats: paymentSats, memo: 'relay bench' }))
    const invoices: string[] = []
    let made = 0
    await Promise.all(
      connections.map(async connection => {
        while (made++ < count) invoices.push(JSON.parse((await connection.send(newInvoice)).body).invoice as string)
      }),
    )
    let taken = 0
    return () => (taken < invoices.length ? { invoice: invoices[taken++]!, amount: 0 } : undefined)
  } finally {
    connections.forEach(connection => connection.close())
  }
}

async function closedLoop(
  clients: PubClient[],
  operation: RelayBenchOperation,
  nextBody: () => Record<string, unknown> | undefined,
  durationMs: number,
): Promise<Omit<NostrBenchRow, 'operation' | 'daemonCpuMsPerRoundTrip' | 'clientCpuMsPerRoundTrip'>> {
  const latencies: number[] = []
  let errors = 0
  const started = performance.now()
  const deadline = started + durationMs
  await Promise.all(
    clients.map(async client => {
      while (performance.now() < deadline) {
        const body = nextBody()
        if (!body) return // every prepared invoice is paid: the window ends early
        const { event, requestId } = client.request(operation, body)
        const sent = performance.now()
        try {
          const reply = client.waitFor(requestId)
          await client.publish(event)
          if ((await reply).status !== 'OK') errors++
          else latencies.push(performance.now() - sent)
        } catch {
          errors++
        }
      }
    }),
  )
  const seconds = (performance.now() - started) / 1000
  latencies.sort((a, b) => a - b)
  const at = (q: number) => (latencies.length === 0 ? 0 : Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]! * 10) / 10)
  return {
    inFlight: clients.length,
    roundTrips: latencies.length,
    errors,
    roundTripsPerSecond: Math.round(latencies.length / seconds),
    p50Ms: at(0.5),
    p99Ms: at(0.99),
  }
}
