// A loopback stand-in for the model host (huggingface.co): serves model files at
// `/<repo>/resolve/main/ggml-<file>.bin`, answering with a redirect to a CDN path as the real host does, and
// can misbehave per file: 404, a body cut off mid-way, corrupt bytes, a stall, or a pause the test releases.
import http from 'node:http'
import type { AddressInfo } from 'node:net'

export type HostFault =
  | 'not_found' // 404
  | 'truncated' // announces the full length, sends half, then drops the connection
  | 'corrupt' // full length, one byte flipped in the middle
  | 'stall' // sends half, then nothing until the client gives up
  | 'hold' // sends half, then waits for resume()

export interface ModelHostOptions {
  repoPath?: string
  /** Bytes per write, and a pause between writes, to make a transfer take a while. */
  chunkBytes?: number
  chunkDelayMs?: number
}

export interface ModelHost {
  /** What `[models] base_url` would be: `http://127.0.0.1:<port>/<repo>/resolve/main`. */
  baseUrl: string
  serve(fileName: string, body: Uint8Array): void
  fault(fileName: string, fault: HostFault | undefined): void
  /** Requests for a file on the resolve path (redirect hops not counted). */
  requests(fileName: string): number
  /** Responses for a file that the client closed before the body was complete. */
  disconnects(fileName: string): number
  /** Resolves when the next response reaches a stall or hold point. */
  paused(): Promise<{ fileName: string; sentBytes: number }>
  /** Lets held responses send the rest. */
  resume(): void
  close(): Promise<void>
}

export async function startModelHost(opts: ModelHostOptions = {}): Promise<ModelHost> {
  const repoPath = opts.repoPath ?? 'ggerganov/whisper.cpp'
  const resolvePrefix = `/${repoPath}/resolve/main/`
  const cdnPrefix = '/cdn/'
  const chunkBytes = opts.chunkBytes ?? 64 * 1024
  const files = new Map<string, Uint8Array>()
  const faults = new Map<string, HostFault>()
  const requestCounts = new Map<string, number>()
  const disconnectCounts = new Map<string, number>()
  let pauseWaiters: ((info: { fileName: string; sentBytes: number }) => void)[] = []
  let holders: (() => void)[] = []
  const bump = (counts: Map<string, number>, key: string) => counts.set(key, (counts.get(key) ?? 0) + 1)

  const server = http.createServer((req, res) => {
    const url = req.url ?? '/'
    if (url.startsWith(resolvePrefix)) {
      const fileName = url.slice(resolvePrefix.length)
      bump(requestCounts, fileName)
      if (!files.has(fileName) || faults.get(fileName) === 'not_found') {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('Entry not found')
        return
      }
      res.writeHead(302, { location: `${cdnPrefix}${fileName}` }).end()
      return
    }
    if (url.startsWith(cdnPrefix)) {
      const fileName = url.slice(cdnPrefix.length)
      const body = files.get(fileName)
      if (!body) {
        res.writeHead(404).end()
        return
      }
      void sendFile(fileName, body, faults.get(fileName), res)
      return
    }
    res.writeHead(404).end()
  })

  async function sendFile(fileName: string, original: Uint8Array, fault: HostFault | undefined, res: http.ServerResponse) {
    let complete = false
    res.on('close', () => {
      if (!complete) bump(disconnectCounts, fileName)
    })
    const body = Buffer.from(original)
    if (fault === 'corrupt') body[body.length >> 1] ^= 0xff
    const half = body.length >> 1
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(body.length) })
    let sent = 0
    const writeUpTo = async (end: number) => {
      while (sent < end && !res.destroyed) {
        const chunk = body.subarray(sent, Math.min(sent + chunkBytes, end))
        sent += chunk.length
        if (!res.write(chunk)) await drainedOrClosed(res)
        if (opts.chunkDelayMs) await new Promise(resolve => setTimeout(resolve, opts.chunkDelayMs))
      }
    }
    if (fault === 'truncated' || fault === 'stall' || fault === 'hold') {
      await writeUpTo(half)
      if (fault === 'truncated') {
        // Flush what was written, then close: the client gets exactly half, then an early end of stream.
        await new Promise(resolve => res.write('', resolve))
        res.socket?.end()
        return
      }
      const waiters = pauseWaiters
      pauseWaiters = []
      for (const notify of waiters) notify({ fileName, sentBytes: sent })
      if (fault === 'stall') return // nothing more; the client's stall timeout or host close ends it
      await new Promise<void>(resolve => holders.push(resolve))
    }
    await writeUpTo(body.length)
    complete = !res.destroyed
    res.end()
  }

  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    baseUrl: `http://127.0.0.1:${port}/${repoPath}/resolve/main`,
    serve: (fileName, body) => void files.set(fileName, body),
    fault(fileName, fault) {
      if (fault) faults.set(fileName, fault)
      else faults.delete(fileName)
    },
    requests: fileName => requestCounts.get(fileName) ?? 0,
    disconnects: fileName => disconnectCounts.get(fileName) ?? 0,
    paused: () => new Promise(resolve => pauseWaiters.push(resolve)),
    resume() {
      const release = holders
      holders = []
      for (const go of release) go()
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close(err => (err ? reject(err) : resolve()))
        server.closeAllConnections()
        for (const go of holders) go()
      }),
  }
}

function drainedOrClosed(res: http.ServerResponse): Promise<void> {
  return new Promise(resolve => {
    const done = () => {
      res.off('drain', done).off('close', done)
      resolve()
    }
    res.on('drain', done).on('close', done)
  })
}
