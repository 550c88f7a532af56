// The HTTP entry: turns a request into a Call for the dispatcher and its answer into the operation's dialect.
// No business logic lives here; routes come from the catalogue.
import http, { type IncomingMessage, type ServerResponse } from 'node:http'
import { randomUUID } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import type { Socket } from 'node:net'
import { type CallOutcome, type Dispatcher, maxRequestIdLength, type AccessLog, OperationError, isOperationError, type RawBody } from '../../bus/index.js'
import { RateLimiter, addressKey, type RateBudget } from '../../limits/index.js'
import type { Logger } from 'pino'
import type { CatalogueEntry } from '../../../schema/catalogue.js'
import { buildRoutes, type RouteMatch } from './routes.js'
import { failure, success, type HttpAnswer } from './dialects.js'
import { parseJson, readBody } from './body.js'

export interface HttpServerOptions {
  host: string
  port: number
  maxBodyBytes: number
  /** Requests per address to unauthenticated routes (Health excepted), refused with 429 before the body is read. */
  guestBudget?: RateBudget
  /** The body limit of unauthenticated routes (guest orders, LNURL, mock controls), below maxBodyBytes. */
  guestMaxBodyBytes?: number
  /** A client that has not sent its headers, or its whole request, in this long is cut off (408). */
  headersTimeoutMs: number
  requestTimeoutMs: number
  /** Absent while the daemon starts: catalogue routes then answer 503 until `attach` (probes answer at once). */
  dispatcher?: Dispatcher
  catalogue: readonly CatalogueEntry[]
  log: Logger
  /** One line per request; none when the access log is off. */
  accessLog?: AccessLog
  /** Unauthenticated GET paths answered before any route (`/healthz`, `/readyz`); they must stay cheap. */
  probes?: Record<string, () => HttpAnswer>
  /** The operator console (src/console): its pages are answered before the route table, and its session stands
   * for the admin token on the operation routes. Usually handed over by `attach` with the dispatcher. */
  console?: ConsoleHook
}

/** The limits a SIGHUP may change while the server runs. */
export interface HttpLimits {
  maxBodyBytes: number
  guestMaxBodyBytes: number
  headersTimeoutMs: number
  requestTimeoutMs: number
}

export interface ConsoleHook {
  serve(req: IncomingMessage, res: ServerResponse, pathname: string): Promise<boolean>
  /** The operator's credential for a console request; `auth` is the operation's caller kind (metrics has a token of its own). */
  authorization(req: IncomingMessage, auth: string): string | undefined
}

export interface HttpServer {
  url: string
  port: number
  /** Hands the server the dispatcher (and the console) once every room is built; until then operations answer 503. */
  attach(dispatcher: Dispatcher, console?: ConsoleHook): void
  setLimits(limits: HttpLimits): void
  /** Stops accepting, lets in-flight requests finish, then closes idle keep-alive sockets. */
  close(): Promise<void>
}

// Upstream runs `cors()` with its defaults on every payments route: any origin, the usual methods.
const corsHeaders = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET,HEAD,PUT,PATCH,POST,DELETE',
  'access-control-allow-headers': 'authorization,content-type,x-api-key,x-request-id',
  // A browser client may read the request id its access line is filed under.
  'access-control-expose-headers': 'x-request-id',
}

export async function startHttpServer(opts: HttpServerOptions): Promise<HttpServer> {
  const routes = buildRoutes(opts.catalogue)
  let dispatcher = opts.dispatcher
  let maxBodyBytes = opts.maxBodyBytes
  const guestLimiter = opts.guestBudget && new RateLimiter(opts.guestBudget)
  let consoleHook = opts.console
  let guestMaxBodyBytes = opts.guestMaxBodyBytes ?? opts.maxBodyBytes
  const sockets = new Set<Socket>()
  // Node checks the two timeouts every `connectionsCheckingInterval` (30 s by default, too coarse for short ones).
  const checkEveryMs = Math.max(250, Math.min(1000, opts.headersTimeoutMs / 4))
  const server = http.createServer({ connectionsCheckingInterval: checkEveryMs }, (req, res) => {
    const started = performance.now()
    // The caller's id when it sent one (to follow a request across its own logs), else a new one; either way it
    // is answered in X-Request-Id and names the request's access line. It goes out with each answer's other headers
    // (writeHead with one object), not through res.setHeader: a header set before writeHead makes Node take every
    // other header of the answer through setHeader too.
    const sent = headerValue(req.headers['x-request-id'])?.slice(0, maxRequestIdLength)
    const requestId = sent && printableId.test(sent) ? sent : randomUUID()
    const access: RequestAccess = { operation: null, outcome: null }
    if (opts.accessLog) {
      const accessLog = opts.accessLog
      res.once('close', () =>
        accessLog({
          transport: 'http',
          operation: access.operation,
          caller: access.outcome?.caller?.kind ?? 'none',
          // A client that left before its answer was written: whatever the call did, the answer was not delivered.
          outcome: !res.writableFinished
            ? 'client_gone'
            : access.outcome
              ? (access.outcome.errorCode ?? 'ok')
              : res.statusCode < 400
                ? 'ok'
                : `http_${res.statusCode}`,
          status: res.statusCode,
          durationMs: performance.now() - started,
          requestId,
        }),
      )
    }
    handle(req, res, requestId, access).catch(err => {
      opts.log.error({ err, requestId }, 'http request failed outside the dispatcher')
      if (!res.headersSent) write(res, { status: 500, body: { detail: 'internal error' } }, { 'x-request-id': requestId })
      else res.destroy()
    })
  })
  // `server.close()` only stops accepting; idle keep-alive sockets would hold the process open.
  server.on('connection', socket => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  // Requests Node's parser refuses (a URL or headers past its 16 KiB limit, bytes that are not HTTP) get a JSON
  // answer like every other refusal, instead of Node's bare status line.
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
    if (err.code === 'ECONNRESET' || !socket.writable) return void socket.destroy()
    // Debug only: a stranger can send garbage as fast as it connects, and this line is not rate limited.
    opts.log.debug({ room: 'http', code: err.code, reason: err.message }, 'a request the HTTP parser refused')
    const [status, detail] =
      err.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'Request Header Fields Too Large']
        : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? [408, 'Request Timeout']
          : [400, 'Bad Request']
    const body = JSON.stringify({ detail })
    socket.end(
      `HTTP/1.1 ${status} ${detail}\r\ncontent-type: application/json; charset=utf-8\r\n` +
        `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    )
  })
  server.keepAliveTimeout = 5000
  // Both bound only what the client sends: a long answer (a model download) is not cut by them.
  server.headersTimeout = opts.headersTimeoutMs
  server.requestTimeout = opts.requestTimeoutMs

  async function handle(req: IncomingMessage, res: ServerResponse, requestId: string, access: RequestAccess): Promise<void> {
    const url = requestTarget(req.url ?? '/')
    const method = req.method ?? 'GET'
    const probe = (method === 'GET' || method === 'HEAD') && opts.probes?.[url.pathname]
    const idHeader = { 'x-request-id': requestId }
    if (probe) return write(res, probe(), { ...idHeader, 'cache-control': 'no-store' }, method === 'HEAD')
    if (consoleHook && url.pathname.startsWith('/console')) {
      // The console writes its own answers.
      res.setHeader('x-request-id', requestId)
      if (await consoleHook.serve(req, res, url.pathname)) return
      res.removeHeader('x-request-id')
    }
    const found = routes.match(method === 'HEAD' ? 'GET' : method, url.pathname)
    if (method === 'OPTIONS') {
      const matched = routes.match('GET', url.pathname) ?? routes.match('POST', url.pathname)
      res.writeHead(matched ? 204 : 404, matched ? { ...corsHeaders, ...idHeader } : idHeader)
      res.end()
      return
    }
    if (!found) return write(res, { status: 404, body: { detail: 'Not Found' } }, idHeader)
    if (!('route' in found)) {
      return write(res, { status: 405, body: { detail: 'Method Not Allowed' } }, { ...idHeader, allow: found.allowed.join(', ') })
    }
    const { entry } = found.route
    access.operation = entry.name
    let headers: Record<string, string> = entry.dialect === 'pub' ? { ...corsHeaders, ...idHeader } : idHeader
    // A stranger's flood is refused before its body is read or parsed, the cheapest answer there is, and as HTTP 429
    // in both dialects: it is the transport refusing, not the operation answering.
    const waitMs = isGuestRoute(entry) && guestLimiter && entry.name !== 'Health' ? guestLimiter.take(addressKey(req.socket.remoteAddress), Date.now()) : 0
    if (waitMs > 0) {
      const seconds = Math.max(1, Math.ceil(waitMs / 1000))
      const reason = `too many requests: unauthenticated requests from this address; try again in ${seconds} s`
      access.outcome = { caller: null, errorCode: 'limit_exceeded' }
      const body = entry.dialect === 'pub' ? { status: 'ERROR', reason } : { detail: reason }
      return write(res, { status: 429, body }, { ...headers, 'retry-after': String(seconds) }, method === 'HEAD')
    }
    const answer = await answerFor(found, req, url, entry, requestId, access)
    if (answer.retryAfterSeconds !== undefined) headers = { ...headers, 'retry-after': String(answer.retryAfterSeconds) }
    if (answer.raw) {
      res.writeHead(answer.status, {
        ...headers,
        ...answer.raw.headers,
        'content-type': answer.raw.contentType,
        ...(answer.raw.filename ? { 'content-disposition': `attachment; filename="${answer.raw.filename}"` } : {}),
      })
      res.end(method === 'HEAD' ? undefined : answer.raw.body)
      return
    }
    write(res, answer, headers, method === 'HEAD')
  }

  async function answerFor(
    found: RouteMatch,
    req: IncomingMessage,
    url: RequestTarget,
    entry: CatalogueEntry,
    requestId: string,
    access: RequestAccess,
  ): Promise<HttpAnswer & { raw?: RawBody; retryAfterSeconds?: number }> {
    // The signal is made only when the dispatcher asks for it (an AbortController per request cost ~1% of a
    // payment's CPU); a client that left before that gets an aborted one.
    let abort: AbortController | undefined
    let clientLeft = false
    req.on('close', () => {
      if (req.complete) return
      clientLeft = true
      abort?.abort()
    })
    const signal = () => {
      if (!abort) {
        abort = new AbortController()
        if (clientLeft) abort.abort()
      }
      return abort.signal
    }
    try {
      if (entry.stream) {
        throw new OperationError('invalid_input', `${entry.name} is a stream: subscribe to it over Nostr`)
      }
      if (!dispatcher) throw new OperationError('node_unavailable', 'the daemon is starting', { status: 503 })
      const bodyLimit = isGuestRoute(entry) ? Math.min(maxBodyBytes, guestMaxBodyBytes) : maxBodyBytes
      const input = await assembleInput(found, req, url, entry, bodyLimit)
      const apiKey = headerValue(req.headers['x-api-key']) ?? url.searchParams.get('api-key') ?? undefined
      const output = await dispatcher.call({
        op: entry.name,
        credentials: { authorization: headerValue(req.headers.authorization) ?? consoleHook?.authorization(req, entry.auth), apiKey },
        input,
        transport: 'http',
        requestId,
        // The socket's peer: no forwarded header is trusted (the config names no proxy to trust).
        clientAddress: req.socket.remoteAddress,
        get signal() {
          return signal()
        },
        onOutcome: outcome => (access.outcome = outcome),
      })
      const status = entry.http?.status ?? 200
      if (entry.produces) return { status, body: null, raw: output as RawBody }
      return success(entry.dialect, output, status)
    } catch (err) {
      const error = isOperationError(err) ? err : new OperationError('internal', 'internal error')
      // Refused before the dispatcher saw it (a body too large or not JSON): the access line still names why.
      access.outcome ??= { caller: null, errorCode: error.code }
      const answer = failure(entry.dialect, error)
      return error.retryAfterSeconds === undefined ? answer : { ...answer, retryAfterSeconds: error.retryAfterSeconds }
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const port = (server.address() as AddressInfo).port
  const hostForUrl = opts.host.includes(':') ? `[${opts.host}]` : opts.host
  return {
    url: `http://${hostForUrl}:${port}`,
    port,
    attach: (ready, readyConsole) => {
      dispatcher = ready
      consoleHook = readyConsole
    },
    setLimits: limits => {
      maxBodyBytes = limits.maxBodyBytes
      guestMaxBodyBytes = limits.guestMaxBodyBytes
      server.headersTimeout = limits.headersTimeoutMs
      server.requestTimeout = limits.requestTimeoutMs
    },
    close: () =>
      new Promise<void>(resolve => {
        server.close(() => resolve())
        server.closeIdleConnections()
        // Sockets still busy finish their response, then close because the server is no longer listening.
        const stragglers = setTimeout(() => sockets.forEach(socket => socket.destroy()), 10_000)
        stragglers.unref()
      }),
  }
}

/** Input = body fields, then declared query parameters, then path parameters (which a body cannot override). */
async function assembleInput(
  found: RouteMatch,
  req: IncomingMessage,
  url: RequestTarget,
  entry: CatalogueEntry,
  maxBodyBytes: number,
): Promise<Record<string, unknown>> {
  const http = entry.http!
  const input: Record<string, unknown> = {}
  const bodyMode = http.body ?? (http.method === 'GET' ? 'none' : 'fields')
  const text = await readBody(req, maxBodyBytes)
  if (bodyMode !== 'none') {
    const body = parseJson(text)
    if (bodyMode === 'whole') input[http.bodyField ?? 'body'] = body
    else if (body !== undefined) {
      if (typeof body !== 'object' || body === null || Array.isArray(body)) {
        throw new OperationError('invalid_input', entry.dialect === 'pub' ? 'invalid request body: body: expected an object' : 'body: expected an object')
      }
      Object.assign(input, body)
    }
  }
  for (const name of http.query ?? []) {
    const values = url.searchParams.getAll(name)
    if (values.length === 1) input[name] = values[0]
    else if (values.length > 1) input[name] = values
  }
  Object.assign(input, found.params)
  return input
}

/** Request ids taken from callers: visible ASCII only, so that echoing one in a header can never fail. */
const printableId = /^[\x21-\x7e]+$/

/** What the access line of one request learns as the request goes through. */
interface RequestAccess {
  operation: string | null
  outcome: Pick<CallOutcome, 'caller' | 'errorCode'> | null
}

interface RequestTarget {
  pathname: string
  searchParams: URLSearchParams
}

/** Plain paths: letters, digits, `_`, `-` and single slashes (no dot segments, escapes or fragments to normalise). */
const plainPath = /^(?:\/[A-Za-z0-9_-]+)+\/?$|^\/$/

/**
 * The path and query of a request. The WHATWG URL parser cost ~1% of a payment's CPU; a plain path needs none of
 * its normalisation, so only other targets go through it. The query is parsed when a caller asks for it.
 */
function requestTarget(target: string): RequestTarget {
  const query = target.indexOf('?')
  const pathname = query < 0 ? target : target.slice(0, query)
  if (!plainPath.test(pathname) || target.includes('#')) return new URL(target, 'http://localhost')
  let params: URLSearchParams | undefined
  return {
    pathname,
    get searchParams() {
      return (params ??= new URLSearchParams(query < 0 ? '' : target.slice(query + 1)))
    },
  }
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value
}

function write(res: ServerResponse, answer: HttpAnswer, headers: Record<string, string>, headOnly = false): void {
  const body = JSON.stringify(answer.body)
  res.writeHead(answer.status, {
    ...headers,
    ...(bodyLeftUnread(res.req) ? { connection: 'close' } : {}),
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
  })
  res.end(headOnly ? undefined : body)
}

/**
 * A request answered before its body was read (refused by the guest budget, or too large): keeping the connection
 * would make the server read and throw away the rest of the body to reach the next request — a flood of large
 * refused uploads then costs the daemon as much as accepted ones. Closing it leaves the rest unread.
 */
function bodyLeftUnread(req: IncomingMessage): boolean {
  if (req.complete) return false
  return Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined
}

/** Routes a caller without credentials may use: they get the guest body limit and the per-address guest budget. */
function isGuestRoute(entry: CatalogueEntry): boolean {
  return entry.auth === 'guest' || entry.auth === 'guestOrWallet'
}
