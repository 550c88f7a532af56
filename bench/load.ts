// A closed-loop load generator: `concurrency` workers each send one request after another for `durationMs`,
// over keep-alive connections. Reports throughput and latency percentiles.
import http from 'node:http'

export interface LoadResult {
  requests: number
  errors: number
  requestsPerSecond: number
  p50Ms: number
  p99Ms: number
}

export interface LoadOptions {
  url: string
  method: 'GET' | 'POST'
  headers?: Record<string, string>
  body?: unknown
  concurrency: number
  durationMs: number
  /** Returns false when an answer is not the expected success. */
  ok?(status: number, body: string): boolean
}

export async function runLoad(opts: LoadOptions): Promise<LoadResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: opts.concurrency })
  const url = new URL(opts.url)
  const payload = opts.body === undefined ? undefined : JSON.stringify(opts.body)
  const latencies: number[] = []
  let errors = 0
  const deadline = performance.now() + opts.durationMs
  const once = () =>
    new Promise<void>(resolve => {
      const started = performance.now()
      const req = http.request(
        {
          agent,
          host: url.hostname,
          port: url.port,
          path: url.pathname + url.search,
          method: opts.method,
          headers: {
            ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}),
            ...opts.headers,
          },
        },
        res => {
          let text = ''
          res.setEncoding('utf8')
          res.on('data', chunk => (text += chunk))
          res.on('end', () => {
            latencies.push(performance.now() - started)
            if (opts.ok && !opts.ok(res.statusCode ?? 0, text)) errors++
            resolve()
          })
        },
      )
      req.on('error', () => {
        errors++
        resolve()
      })
      req.end(payload)
    })
  const startedAt = performance.now()
  await Promise.all(
    Array.from({ length: opts.concurrency }, async () => {
      while (performance.now() < deadline) await once()
    }),
  )
  const elapsedMs = performance.now() - startedAt
  agent.destroy()
  latencies.sort((a, b) => a - b)
  const at = (q: number) => round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0)
  return {
    requests: latencies.length,
    errors,
    requestsPerSecond: round((latencies.length / elapsedMs) * 1000),
    p50Ms: at(0.5),
    p99Ms: at(0.99),
  }
}

function round(value: number): number {
  return Math.round(value * 100) / 100
}
