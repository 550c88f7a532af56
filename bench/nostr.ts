// Round trips over the relay bus: a cheap user operation (GetWalletKeys) sent as kind-21000 requests through the
// daemon's embedded relay by independent clients (one key and connection each), with 8 and 64 requests in flight.
// A round trip is request published → reply received and decrypted. The floor the issue sets is 500 round trips/s.
// The client signs each request in the loop but does not verify replies, so the load generator stays light.
import { startDaemon, type TestDaemon } from '../test/support/daemon.js'
import { appProfile, PubClient } from '../test/support/pub-client.js'
import { cpuWindow, profiler, profilingEnv } from './process-stats.js'

export interface NostrBenchRow {
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
  profile?: string
}

export interface NostrBenchOptions {
  /** A running daemon with its embedded relay; one is started (and stopped) when absent. */
  daemon?: TestDaemon
  durationMs?: number
  inFlight?: number[]
  /** Profile the daemon during each measured window into this folder (a started daemon only). */
  profileDir?: string
}

export const nostrRoundTripFloor = 500

export async function benchNostr(opts: NostrBenchOptions = {}): Promise<{ operation: string; floor: number; rows: NostrBenchRow[] }> {
  const daemon =
    opts.daemon ??
    (await startDaemon({ env: { RELAYPAY_LOG_LEVEL: 'warn', ...(opts.profileDir ? profilingEnv(opts.profileDir) : {}) } }))
  const durationMs = opts.durationMs ?? 3000
  const rows: NostrBenchRow[] = []
  try {
    const { relays, pubkey } = appProfile(daemon.dataDir)
    for (const inFlight of opts.inFlight ?? [8, 64]) {
      const clients = await Promise.all(
        Array.from({ length: inFlight }, () => PubClient.connect({ relays, appPubkey: pubkey, verifyMessages: false, timeoutMs: 15_000 })),
      )
      try {
        await Promise.all(clients.map(client => client.ok('GetWalletKeys'))) // each key's account exists before timing
        const prof = profiler(daemon.process.pid, opts.daemon ? undefined : opts.profileDir)
        prof.start()
        const cpu = cpuWindow(daemon.process.pid)
        const row = await closedLoop(clients, durationMs)
        const costs = cpu.end(row.roundTrips)
        const profile = await prof.stop()
        rows.push({
          ...row,
          daemonCpuMsPerRoundTrip: costs.daemonCpuMsPerOp,
          clientCpuMsPerRoundTrip: costs.clientCpuMsPerOp,
          ...(profile ? { profile } : {}),
        })
      } finally {
        clients.forEach(client => client.close())
      }
    }
  } finally {
    if (!opts.daemon) await daemon.stop()
  }
  return { operation: 'GetWalletKeys', floor: nostrRoundTripFloor, rows }
}

async function closedLoop(
  clients: PubClient[],
  durationMs: number,
): Promise<Omit<NostrBenchRow, 'daemonCpuMsPerRoundTrip' | 'clientCpuMsPerRoundTrip'>> {
  const latencies: number[] = []
  let errors = 0
  const started = performance.now()
  const deadline = started + durationMs
  await Promise.all(
    clients.map(async client => {
      while (performance.now() < deadline) {
        const { event, requestId } = client.request('GetWalletKeys')
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
