// gRPC to LND for the payment path, on Node's own HTTP/2 client: one TLS session (LND's certificate pinned, the
// macaroon in each call's headers), calls as HTTP/2 streams framed per the gRPC wire spec
// (grpc/grpc doc/PROTOCOL-HTTP2.md), status from the trailers. Why not @grpc/grpc-js, which the `lightning` package
// uses for everything else: its layers (resolver, load balancer, call credentials through promises, filters,
// metadata copies) cost ~250 µs of the daemon's thread per call against ~120 µs for the same call here, measured
// against the fake LND in another process; a payment pair makes one such call and an external payment two.
// Errors carry grpc-js's shape ({ code, details }) so lnd-errors.ts reads both alike.
import { EventEmitter } from 'node:events'
import http2 from 'node:http2'

const { NGHTTP2_CANCEL, NGHTTP2_REFUSED_STREAM } = http2.constants

/** gRPC status codes used here (grpc/grpc doc/statuscodes.md). */
const status = { ok: 0, cancelled: 1, unknown: 2, permissionDenied: 7, unimplemented: 12, internal: 13, unavailable: 14, unauthenticated: 16 }

/** LND never sends messages near this on these calls; a bigger one is refused instead of buffered. */
const maxMessageBytes = 16 * 1024 * 1024

/**
 * What went wrong on the way to LND: a stream that never reached it carries the connection's failure as its cause
 * ("The pending stream has been canceled (caused by: connect ECONNREFUSED …)"), and the cause is what an operator
 * can act on.
 */
function reasonOf(err: Error): string {
  const cause = (err as { cause?: unknown }).cause
  return cause instanceof Error ? cause.message : err.message
}

/** A call's failure: the gRPC status and LND's words, as @grpc/grpc-js reports them. */
export class GrpcError extends Error {
  constructor(
    readonly code: number,
    readonly details: string,
  ) {
    super(`${code}: ${details}`)
  }
}

/** A server stream: 'data' (one decoded message), then 'end' (status OK) or 'error' (GrpcError); nothing after cancel(). */
export interface GrpcServerStream<T> extends EventEmitter {
  on(event: 'data', listener: (message: T) => void): this
  on(event: 'error', listener: (err: GrpcError) => void): this
  on(event: 'end', listener: () => void): this
  cancel(): void
}

export interface GrpcChannel {
  unary<Req, Res>(path: string, serialize: (request: Req) => Buffer, deserialize: (bytes: Buffer) => Res, request: Req): Promise<Res>
  serverStream<Req, Res>(path: string, serialize: (request: Req) => Buffer, deserialize: (bytes: Buffer) => Res, request: Req): GrpcServerStream<Res>
  /** New calls fail; calls under way finish on their own. */
  close(): void
}

export interface GrpcChannelOptions {
  /** host:port */
  socket: string
  /** LND's tls.cert (PEM); without it the system's CAs decide. */
  cert?: Buffer
  macaroonHex: string
}

/** HTTP statuses a gRPC server or a proxy may answer instead of a gRPC status (grpc-js's mapping). */
function statusOfHttp(httpStatus: number): number {
  if (httpStatus === 401) return status.unauthenticated
  if (httpStatus === 403) return status.permissionDenied
  if (httpStatus === 404) return status.unimplemented
  if ([429, 502, 503, 504].includes(httpStatus)) return status.unavailable
  return status.unknown
}

/** grpc-message is percent-encoded; a malformed one is shown as sent. */
function percentDecoded(text: string): string {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}

/** One gRPC message with its 5-byte prefix (not compressed, 32-bit length). */
function framed(message: Buffer): Buffer {
  const frame = Buffer.allocUnsafe(5 + message.length)
  frame[0] = 0
  frame.writeUInt32BE(message.length, 1)
  message.copy(frame, 5)
  return frame
}

/** Splits the response body into messages, whatever DATA frames they arrive in. */
function messageReader(onMessage: (message: Buffer) => void): (chunk: Buffer) => void {
  let pending: Buffer | undefined
  return chunk => {
    const bytes = pending ? Buffer.concat([pending, chunk]) : chunk
    pending = undefined
    let at = 0
    while (bytes.length - at >= 5) {
      if (bytes[at] !== 0) throw new Error('LND sent a compressed message, which was not asked for')
      const length = bytes.readUInt32BE(at + 1)
      if (length > maxMessageBytes) throw new Error(`LND sent a message of ${length} bytes`)
      if (bytes.length - at - 5 < length) break
      onMessage(bytes.subarray(at + 5, at + 5 + length))
      at += 5 + length
    }
    if (at < bytes.length) pending = bytes.subarray(at)
  }
}

interface CallHandlers {
  message(bytes: Buffer): void
  done(err: GrpcError | undefined): void
}

export function grpcChannel({ socket, cert, macaroonHex }: GrpcChannelOptions): GrpcChannel {
  const authority = `https://${socket}`
  const headers = { ':method': 'POST', 'content-type': 'application/grpc', te: 'trailers', macaroon: macaroonHex }
  let session: http2.ClientHttp2Session | undefined
  let closed = false

  /** The open session, or a new one: a session that failed, closed or was told GOAWAY is left for a new one. */
  const currentSession = (): http2.ClientHttp2Session => {
    if (session && !session.closed && !session.destroyed) return session
    const opened = http2.connect(authority, { ...(cert ? { ca: cert } : {}), settings: { enablePush: false } })
    const forget = () => {
      if (session === opened) session = undefined
    }
    // The calls on it hear of the failure through their own streams.
    opened.on('error', forget)
    opened.on('goaway', forget)
    opened.on('close', forget)
    session = opened
    return opened
  }

  /** Starts one call; returns how to cancel it. `done` is called once, after the last message. */
  const call = (path: string, body: Buffer, on: CallHandlers): (() => void) => {
    let finished = false
    const finish = (err: GrpcError | undefined) => {
      if (finished) return
      finished = true
      on.done(err)
    }
    if (closed) {
      queueMicrotask(() => finish(new GrpcError(status.unavailable, 'the LND connection is closed')))
      return () => undefined
    }
    let stream: http2.ClientHttp2Stream
    let onSession: http2.ClientHttp2Session
    try {
      onSession = currentSession()
      stream = onSession.request({ ...headers, ':path': path })
    } catch (err) {
      // A session that is closing refuses new streams; the next call opens another.
      session = undefined
      queueMicrotask(() => finish(new GrpcError(status.unavailable, err instanceof Error ? err.message : String(err))))
      return () => undefined
    }
    let grpcStatus: number | undefined
    let grpcMessage = ''
    let transportError: Error | undefined
    let parseError: string | undefined
    let cancelled = false
    const readStatus = (fields: http2.IncomingHttpHeaders) => {
      const value = fields['grpc-status']
      if (value === undefined) return
      grpcStatus = Number(value)
      const said = fields['grpc-message']
      grpcMessage = typeof said === 'string' ? percentDecoded(said) : ''
    }
    const read = messageReader(bytes => on.message(bytes))
    stream.on('response', fields => {
      const httpStatus = Number(fields[':status'])
      if (httpStatus !== 200 && fields['grpc-status'] === undefined) {
        grpcStatus = statusOfHttp(httpStatus)
        grpcMessage = `LND answered HTTP ${httpStatus}`
        return
      }
      // A call that fails before any message has its status in the headers ("trailers-only").
      readStatus(fields)
    })
    stream.on('trailers', readStatus)
    stream.on('data', (chunk: Buffer) => {
      if (parseError !== undefined) return
      try {
        read(chunk)
      } catch (err) {
        parseError = err instanceof Error ? err.message : String(err)
        stream.close(NGHTTP2_CANCEL)
      }
    })
    stream.on('error', err => {
      transportError = err
    })
    stream.on('close', () => {
      if (cancelled) return finish(new GrpcError(status.cancelled, 'cancelled'))
      if (parseError !== undefined) return finish(new GrpcError(status.internal, `response message parsing error: ${parseError}`))
      if (grpcStatus !== undefined) return finish(grpcStatus === status.ok ? undefined : new GrpcError(grpcStatus, grpcMessage))
      // The connection failed or LND went away under the call (it stopped, restarted, or refused the stream).
      if (transportError || stream.rstCode === NGHTTP2_REFUSED_STREAM || onSession.closed || onSession.destroyed) {
        return finish(new GrpcError(status.unavailable, transportError ? reasonOf(transportError) : 'the connection to LND closed during the call'))
      }
      finish(new GrpcError(status.internal, `LND closed the call without a status (HTTP/2 code ${stream.rstCode})`))
    })
    stream.end(framed(body))
    return () => {
      if (finished || cancelled) return
      cancelled = true
      stream.close(NGHTTP2_CANCEL)
    }
  }

  return {
    unary(path, serialize, deserialize, request) {
      return new Promise((resolve, reject) => {
        let reply: { value: ReturnType<typeof deserialize> } | undefined
        let failure: GrpcError | undefined
        call(path, serialize(request), {
          message(bytes) {
            if (reply || failure) return
            try {
              reply = { value: deserialize(bytes) }
            } catch (err) {
              failure = new GrpcError(status.internal, `response message parsing error: ${err instanceof Error ? err.message : String(err)}`)
            }
          },
          done(err) {
            if (err ?? failure) return reject(err ?? failure)
            if (!reply) return reject(new GrpcError(status.internal, 'LND ended the call without a reply'))
            resolve(reply.value)
          },
        })
      })
    },

    serverStream(path, serialize, deserialize, request) {
      const stream = new EventEmitter() as GrpcServerStream<ReturnType<typeof deserialize>>
      let over = false
      let cancel: () => void = () => undefined
      const fail = (err: GrpcError) => {
        if (over) return
        over = true
        cancel()
        stream.emit('error', err)
      }
      // A stream made and failed at once still lets its caller attach listeners first.
      queueMicrotask(() => {
        if (over) return
        let body: Buffer
        try {
          body = serialize(request)
        } catch (err) {
          return fail(new GrpcError(status.internal, `request message serialization failure: ${err instanceof Error ? err.message : String(err)}`))
        }
        cancel = call(path, body, {
          message(bytes) {
            if (over) return
            let message
            try {
              message = deserialize(bytes)
            } catch (err) {
              return fail(new GrpcError(status.internal, `response message parsing error: ${err instanceof Error ? err.message : String(err)}`))
            }
            stream.emit('data', message)
          },
          done(err) {
            if (over) return
            if (err) return fail(err)
            over = true
            stream.emit('end')
          },
        })
      })
      stream.cancel = () => {
        if (over) return
        over = true
        cancel()
      }
      return stream
    },

    close() {
      if (closed) return
      closed = true
      const open = session
      session = undefined
      // Calls under way (a payment's stream) finish on their own; the session no longer holds the process.
      open?.close()
      open?.unref()
    },
  }
}
