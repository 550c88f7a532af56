// btcd's JSON-RPC, called from this process over one kept-alive TLS connection. btcctl is a Go program started per
// call (a process, a TLS handshake, tens of ms of CPU); replaying a chain of hundreds of blocks into a fresh btcd
// takes one call per block, so it goes this way instead.
import fs from 'node:fs'
import https from 'node:https'
import type { NetworkState } from './network.js'

export interface BtcdRpc {
  call<T = unknown>(method: string, params?: unknown[]): Promise<T>
  close(): void
}

export function btcdRpc(state: Pick<NetworkState, 'btcd'>): BtcdRpc {
  const { btcd } = state
  const [host, port] = btcd.rpc.split(':') as [string, string]
  const agent = new https.Agent({ keepAlive: true, maxSockets: 1, ca: fs.readFileSync(btcd.cert) })
  const auth = `Basic ${Buffer.from(`${btcd.user}:${btcd.pass}`).toString('base64')}`
  let id = 0
  return {
    call<T>(method: string, params: unknown[] = []): Promise<T> {
      const body = JSON.stringify({ jsonrpc: '1.0', id: ++id, method, params })
      return new Promise<T>((resolve, reject) => {
        const req = https.request(
          { host, port: Number(port), method: 'POST', path: '/', agent, headers: { authorization: auth, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
          res => {
            const chunks: Buffer[] = []
            res.on('data', chunk => chunks.push(chunk))
            res.on('end', () => {
              const text = Buffer.concat(chunks).toString('utf8')
              try {
                const answer = JSON.parse(text) as { result: T; error: { code: number; message: string } | null }
                if (answer.error) reject(new Error(`btcd ${method}: ${answer.error.message}`))
                else resolve(answer.result)
              } catch {
                reject(new Error(`btcd ${method}: HTTP ${res.statusCode} ${text.slice(0, 200)}`))
              }
            })
            res.on('error', reject)
          },
        )
        req.on('error', reject)
        req.end(body)
      })
    },
    close: () => agent.destroy(),
  }
}
