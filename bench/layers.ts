// Daemon CPU per request for the layers under a payment, measured with the cheap raw client at concurrency 32:
// Health (HTTP framing + dispatcher, no auth), GetUserInfo (+ user JWT, validation, a few reads).
import { startDaemon } from '../test/support/daemon.js'
import { addAppUser, createAppWithUser, jwtSecretConfig } from '../test/support/accounts.js'
import { cpuWindow, profiler, profilingEnv } from './process-stats.js'
import { RawConnection, rawRequest } from './raw-http.js'

export interface LayerRow {
  requests: number
  errors: number
  requestsPerSecond: number
  p50Ms: number
  p99Ms: number
  daemonCpuMsPerRequest: number | null
  clientCpuMsPerRequest: number
  profile?: string
}

const jwtSecret = 'bench-layers-secret-0123456789abcdef'

export async function benchLayers(opts: { durationMs: number; concurrency?: number; profileDir?: string }): Promise<Record<string, LayerRow>> {
  const daemon = await startDaemon({
    config: jwtSecretConfig(jwtSecret),
    env: { RELAYPAY_LOG_LEVEL: 'warn', ...(opts.profileDir ? profilingEnv(opts.profileDir) : {}) },
  })
  const concurrency = opts.concurrency ?? 32
  const url = new URL(daemon.url)
  const connections = await Promise.all(Array.from({ length: concurrency }, () => RawConnection.connect(Number(url.port), url.hostname)))
  try {
    const user = await createAppWithUser(daemon, { jwtSecret, identifier: `layers-${Date.now()}` })
    await addAppUser(daemon, { appToken: user.appToken, appId: user.appId, jwtSecret, identifier: `layers-b-${Date.now()}` })
    const cases: Record<string, Buffer> = {
      Health: rawRequest(url.host, 'GET', '/api/health', {}),
      GetUserInfo: rawRequest(url.host, 'POST', '/api/user/info', { authorization: user.userToken }, '{}'),
    }
    const out: Record<string, LayerRow> = {}
    for (const [name, request] of Object.entries(cases)) out[name] = await closedLoop(daemon.process.pid, connections, request, opts.durationMs, opts.profileDir)
    return out
  } finally {
    connections.forEach(c => c.close())
    await daemon.stop()
  }
}

export async function closedLoop(pid: number | undefined, connections: RawConnection[], request: Buffer, durationMs: number, profileDir?: string): Promise<LayerRow> {
  const latencies: number[] = []
  let errors = 0
  const prof = profiler(pid, profileDir)
  prof.start()
  const cpu = cpuWindow(pid)
  const started = performance.now()
  const deadline = started + durationMs
  await Promise.all(
    connections.map(async connection => {
      while (performance.now() < deadline) {
        const t0 = performance.now()
        const answer = await connection.send(request)
        latencies.push(performance.now() - t0)
        if (answer.status !== 200 || !answer.body.includes('"status":"OK"')) errors++
      }
    }),
  )
  const elapsed = performance.now() - started
  const costs = cpu.end(latencies.length)
  const profile = await prof.stop()
  latencies.sort((a, b) => a - b)
  const at = (q: number) => Math.round((latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0) * 100) / 100
  return {
    requests: latencies.length,
    errors,
    requestsPerSecond: Math.round((latencies.length / elapsed) * 1000),
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    daemonCpuMsPerRequest: costs.daemonCpuMsPerOp,
    clientCpuMsPerRequest: costs.clientCpuMsPerOp,
    ...(profile ? { profile } : {}),
  }
}
