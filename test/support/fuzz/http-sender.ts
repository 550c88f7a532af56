// Sends fuzzed requests over keep-alive connections with node:http (cheaper per request than fetch, and it sends
// whatever bytes and methods it is given). A request without an answer within the deadline is a hang.
import http from 'node:http'
import type { HttpAnswer } from './answer-oracle.js'
import type { HttpCase } from './http-cases.js'

export interface HttpSender {
  send(request: HttpCase, deadlineMs?: number): Promise<HttpAnswer>
  close(): void
}

export function httpSender(baseUrl: string, opts: { sockets: number; deadlineMs: number }): HttpSender {
  const agent = new http.Agent({ keepAlive: true, maxSockets: opts.sockets })
  const url = new URL(baseUrl)
  return {
    send: (request, deadlineMs = opts.deadlineMs) =>
      new Promise((resolve, reject) => {
        const req = http.request(
          {
            agent,
            host: url.hostname,
            port: url.port,
            method: request.method,
            path: request.path,
            headers: { ...request.headers, ...(request.body ? { 'content-length': String(request.body.length) } : {}) },
            timeout: deadlineMs,
          },
          res => {
            const chunks: Buffer[] = []
            res.on('data', chunk => chunks.push(chunk))
            res.on('end', () =>
              resolve({ status: res.statusCode ?? 0, contentType: String(res.headers['content-type'] ?? ''), text: Buffer.concat(chunks).toString('utf8') }),
            )
            res.on('error', reject)
          },
        )
        req.on('timeout', () => req.destroy(new Error(`no answer within ${deadlineMs} ms`)))
        req.on('error', reject)
        req.end(request.body)
      }),
    close: () => agent.destroy(),
  }
}
