// The operator console's server side: the page and its assets at /console/, sign-in and sign-out.
// No business logic lives here: the page calls the daemon's own operation routes, and a request that carries a
// live session cookie and its CSRF header is let through as the operator (`authorization` below).
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Logger } from 'pino'
import { loadAssets, type Assets } from './assets.js'
import { createSessionStore, createSignInBackoff, csrfMatches, sameSecret, type Session } from './sessions.js'

export interface ConsoleOptions {
  adminToken: string
  /** `[auth] metrics_token` when set: the metrics operations (charts, error counts) take it instead of the admin token. */
  metricsToken?: string
  /**
   * `[console]`: session_minutes, and trust_proxy (believe `X-Forwarded-Proto` for the cookie's Secure flag,
   * `X-Forwarded-Host` for the Origin check and `X-Forwarded-For` for the wrong-token delay).
   */
  config: { session_minutes: number; trust_proxy: boolean }
  log: Logger
  /**
   * What the overview shows that no operation tells: backend, network, mock mode, each relay link's state, and
   * the embedded relay's database file when the daemon runs one.
   */
  about: () => {
    backend: string
    network: string
    mock: boolean
    relays: { url: string; connected: boolean; queued: number }[]
    /** The embedded relay's latest stats and the limits they are measured against. */
    embeddedRelay?: { limits: { maxStoreBytes: number; maxConnections: number }; stats?: { connections: number; storeBytes: number; fileBytes: number; memoryBytes: number; diskLow: boolean; refused: Record<string, number> } }
    /** The relays named in connection strings handed out, and whether they are all loopback addresses. */
    publicRelays: { urls: string[]; loopbackOnly: boolean }
  }
  now?: () => number
  /** Where the built page lives; build/console by default. */
  assetsDir?: string
}

export interface Console {
  /** Answers a request under /console; false for any other path. */
  serve(req: IncomingMessage, res: ServerResponse, pathname: string): Promise<boolean>
  /**
   * The operator's credential for a request with a live session, its CSRF header and no foreign Origin: the
   * metrics token for an operation of the metrics caller kind (`auth`), else the admin token.
   */
  authorization(req: IncomingMessage, auth?: string): string | undefined
}

export const cookieName = 'relaypay_console'
export const csrfHeader = 'x-console-csrf'

/**
 * Only files of this origin run or style the page: no inline script or style, no framing, no plugin, and the
 * page may talk only to this daemon. Images may be data: URLs (the QR codes are drawn as GIF data URLs).
 */
export const contentSecurityPolicy = [
  "default-src 'none'", "script-src 'self'", "style-src 'self'", "img-src 'self' data:", "connect-src 'self'",
  "font-src 'self'", "manifest-src 'self'", "base-uri 'none'", "form-action 'self'", "frame-ancestors 'none'",
].join('; ')

const securityHeaders = {
  'content-security-policy': contentSecurityPolicy,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
}

export function createConsole(opts: ConsoleOptions): Console {
  const now = opts.now ?? Date.now
  const sessions = createSessionStore(opts.config.session_minutes * 60_000)
  const backoff = createSignInBackoff()
  const assets: Assets = loadAssets(opts.assetsDir)

  function sessionOf(req: IncomingMessage): Session | undefined {
    return sessions.find(cookieValue(req.headers.cookie, cookieName), now())
  }

  function secure(req: IncomingMessage): boolean {
    if ((req.socket as { encrypted?: boolean }).encrypted) return true
    return opts.config.trust_proxy && String(req.headers['x-forwarded-proto'] ?? '').split(',')[0]!.trim() === 'https'
  }

  function cookie(req: IncomingMessage, value: string, maxAgeSeconds: number): string {
    return `${cookieName}=${value}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}${secure(req) ? '; Secure' : ''}`
  }

  async function signIn(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!sameOrigin(req, opts.config.trust_proxy)) return json(res, 403, { detail: 'Sign-in must come from the console page.' })
    const address = clientAddress(req, opts.config.trust_proxy)
    const wait = backoff.waitMs(address, now())
    if (wait > 0) {
      return json(res, 429, { detail: `Too many wrong tokens from this address: try again in ${Math.ceil(wait / 1000)} s.` }, {
        'retry-after': String(Math.ceil(wait / 1000)),
      })
    }
    let token: unknown
    try {
      token = (JSON.parse(await readSmallBody(req)) as { token?: unknown }).token
    } catch {
      return json(res, 400, { detail: 'Send {"token": "<admin token>"}.' })
    }
    if (typeof token !== 'string' || !sameSecret(token.trim(), opts.adminToken)) {
      const delay = backoff.failed(address, now())
      opts.log.warn({ address }, 'console sign-in with a wrong admin token')
      // The wrong answer itself waits half the delay, so a script gains nothing by ignoring the Retry-After; the
      // other half is left for the next try from this address.
      await new Promise(resolve => setTimeout(resolve, Math.min(delay / 2, 2000)))
      return json(res, 401, {
        detail: 'That is not the admin token. It is in <data_dir>/admin.token, or [auth] admin_token in the config.',
      })
    }
    backoff.succeeded(address)
    sessions.close(cookieValue(req.headers.cookie, cookieName))
    const session = sessions.open(now())
    json(res, 200, { csrf: session.csrf }, { 'set-cookie': cookie(req, session.id, opts.config.session_minutes * 60) })
  }

  return {
    async serve(req, res, pathname) {
      if (pathname !== '/console' && !pathname.startsWith('/console/')) return false
      const method = req.method ?? 'GET'
      if (pathname === '/console') {
        res.writeHead(308, { location: '/console/' })
        res.end()
        return true
      }
      if (pathname === '/console/api/session') {
        if (method === 'POST') await signIn(req, res)
        else if (method === 'GET') {
          const session = sessionOf(req)
          json(res, session ? 200 : 401, session ? { csrf: session.csrf } : { detail: 'Not signed in.' })
        } else if (method === 'DELETE') {
          const session = sessionOf(req)
          if (session && csrfMatches(session, header(req, csrfHeader))) sessions.close(session.id)
          json(res, 200, {}, { 'set-cookie': cookie(req, '', 0) })
        } else json(res, 405, { detail: 'Method Not Allowed' }, { allow: 'GET, POST, DELETE' })
        return true
      }
      if (pathname === '/console/api/about') {
        const session = sessionOf(req)
        if (!session || !csrfMatches(session, header(req, csrfHeader))) json(res, 401, { detail: 'Not signed in.' })
        else {
          const { embeddedRelay, publicRelays, ...about } = opts.about()
          json(res, 200, {
            ...about,
            public_relays: { urls: publicRelays.urls, loopback_only: publicRelays.loopbackOnly },
            embedded_relay: embeddedRelay
              ? {
                  connections: embeddedRelay.stats?.connections ?? null,
                  max_connections: embeddedRelay.limits.maxConnections,
                  store_bytes: embeddedRelay.stats?.storeBytes ?? null,
                  file_bytes: embeddedRelay.stats?.fileBytes ?? null,
                  memory_bytes: embeddedRelay.stats?.memoryBytes ?? null,
                  max_store_bytes: embeddedRelay.limits.maxStoreBytes,
                  disk_low: embeddedRelay.stats?.diskLow ?? false,
                  refused: embeddedRelay.stats?.refused ?? {},
                }
              : null,
          })
        }
        return true
      }
      if (method !== 'GET' && method !== 'HEAD') {
        json(res, 405, { detail: 'Method Not Allowed' }, { allow: 'GET, HEAD' })
        return true
      }
      const file = pathname === '/console/' ? assets.get('index.html') : assets.get(pathname.slice('/console/assets/'.length), pathname.startsWith('/console/assets/'))
      if (!file) {
        json(res, assets.built ? 404 : 503, { detail: assets.built ? 'Not Found' : 'The console is not built: run npm run build.' })
        return true
      }
      res.writeHead(200, { ...securityHeaders, 'content-type': file.contentType, 'content-length': file.body.length })
      res.end(method === 'HEAD' ? undefined : file.body)
      return true
    },
    authorization(req, auth) {
      const session = sessionOf(req)
      if (!session || !csrfMatches(session, header(req, csrfHeader)) || !sameOrigin(req, opts.config.trust_proxy)) return undefined
      return `Bearer ${auth === 'metrics' && opts.metricsToken ? opts.metricsToken : opts.adminToken}`
    },
  }
}

/**
 * A browser names the page's origin on every cross-site request; when it does, it must be this host (or, behind a
 * trusted proxy, the host the proxy says the browser asked for).
 */
function sameOrigin(req: IncomingMessage, trustProxy: boolean): boolean {
  const origin = header(req, 'origin')
  if (origin === undefined) return true
  try {
    const host = new URL(origin).host
    return host === req.headers.host || (trustProxy && host === header(req, 'x-forwarded-host')?.split(',')[0]!.trim())
  } catch {
    return false
  }
}

/**
 * Whom a sign-in comes from, for the wrong-token delay: the socket's peer, or behind a trusted proxy the address the
 * proxy appended to X-Forwarded-For (the last entry; earlier ones the browser may have written itself). Without
 * this every sign-in through the proxy would share the proxy's address, and a stranger's wrong tokens would keep
 * the operator waiting.
 */
function clientAddress(req: IncomingMessage, trustProxy: boolean): string {
  const peer = req.socket.remoteAddress ?? 'unknown'
  if (!trustProxy) return peer
  const forwarded = (header(req, 'x-forwarded-for') ?? '').split(',').map(part => part.trim()).filter(Boolean)
  return forwarded.at(-1) ?? peer
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name]
  return Array.isArray(value) ? value[0] : value
}

function cookieValue(cookies: string | undefined, name: string): string | undefined {
  if (!cookies) return undefined
  for (const part of cookies.split(';')) {
    const eq = part.indexOf('=')
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim()
  }
  return undefined
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body)
  res.writeHead(status, { ...securityHeaders, ...headers, 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) })
  res.end(text)
}

/** The sign-in body is one token: 4 KiB is plenty, and more is refused unread. */
function readSmallBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    req.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size > 4096) {
        reject(new Error('too large'))
        req.destroy()
      } else chunks.push(chunk)
    })
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    req.on('error', reject)
  })
}
