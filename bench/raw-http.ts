// A deliberately cheap HTTP/1.1 client for load generation: one keep-alive TCP connection per worker, one request
// in flight per connection (no pipelining), requests pre-serialised to bytes before the clock starts, answers
// parsed only as far as status line, Content-Length and body. On a 2-core machine the load generator competes
// with the daemon for CPU; node:http's client costs about as much per request as the daemon's server side, which
// would hide the daemon's own figure. The daemon sees exactly the bytes a keep-alive client sends.
import net from 'node:net'

export interface RawAnswer {
  status: number
  body: string
}

/** Serialises one request: `POST path` with a JSON body and the given headers. */
export function rawRequest(host: string, method: 'GET' | 'POST', path: string, headers: Record<string, string>, body?: string): Buffer {
  const payload = body === undefined ? Buffer.alloc(0) : Buffer.from(body)
  let head = `${method} ${path} HTTP/1.1\r\nhost: ${host}\r\nconnection: keep-alive\r\n`
  for (const [name, value] of Object.entries(headers)) head += `${name}: ${value}\r\n`
  if (body !== undefined) head += `content-type: application/json\r\ncontent-length: ${payload.length}\r\n`
  return Buffer.concat([Buffer.from(head + '\r\n'), payload])
}

/**
 * One keep-alive connection that sends a request and resolves with its answer, one at a time. A connection the
 * server closed while idle (its keep-alive timeout) is opened again before the next request.
 */
export class RawConnection {
  private buffered: Buffer = Buffer.alloc(0)
  private waiting: { resolve(answer: RawAnswer): void; reject(error: Error): void } | undefined
  private socket: net.Socket | undefined

  private constructor(
    private readonly port: number,
    private readonly host: string,
  ) {}

  static async connect(port: number, host: string): Promise<RawConnection> {
    const connection = new RawConnection(port, host)
    await connection.open()
    return connection
  }

  async send(request: Buffer): Promise<RawAnswer> {
    if (this.waiting) throw new Error('one request at a time')
    if (!this.socket) await this.open()
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject }
      this.socket!.write(request)
    })
  }

  close(): void {
    this.socket?.destroy()
    this.socket = undefined
  }

  private open(): Promise<void> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(this.port, this.host, () => {
        socket.off('error', reject)
        socket.setNoDelay(true)
        socket.on('data', chunk => this.received(chunk))
        // Only the current socket's end fails the request in flight: one that close() let go of has none.
        socket.on('error', error => {
          if (this.socket === socket) this.failed(error)
        })
        socket.on('close', () => {
          if (this.socket !== socket) return
          this.socket = undefined
          this.buffered = Buffer.alloc(0)
          this.failed(new Error('connection closed'))
        })
        this.socket = socket
        resolve()
      })
      socket.once('error', reject)
    })
  }

  private failed(error: Error): void {
    const waiting = this.waiting
    this.waiting = undefined
    waiting?.reject(error)
  }

  private received(chunk: Buffer): void {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk])
    const headEnd = this.buffered.indexOf('\r\n\r\n')
    if (headEnd < 0) return
    const head = this.buffered.toString('latin1', 0, headEnd)
    const length = head.match(/\r\ncontent-length: *(\d+)/i)
    if (!length) {
      this.failed(new Error('answer without content-length (chunked answers are not supported by this client)'))
      return
    }
    const end = headEnd + 4 + Number(length[1])
    if (this.buffered.length < end) return
    const answer = { status: Number(head.slice(9, 12)), body: this.buffered.toString('utf8', headEnd + 4, end) }
    this.buffered = this.buffered.subarray(end)
    const waiting = this.waiting
    this.waiting = undefined
    waiting?.resolve(answer)
  }
}
