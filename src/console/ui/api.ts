// Calls from the console page to the daemon. The session cookie is HttpOnly (the page never sees it); the CSRF
// token the sign-in answer gives is kept in this module's memory only and sent as `x-console-csrf` on every call,
// which is what lets a call through as the operator. Nothing is written to localStorage or sessionStorage.

let csrf: string | undefined
let onSignedOut: () => void = () => {}

export class ApiError extends Error {
  constructor(message: string, readonly status: number) {
    super(message)
  }
}

export function whenSignedOut(callback: () => void): void {
  onSignedOut = callback
}

/** Asks whether a session is already open (a reload of the page); true when it is. */
export async function resumeSession(): Promise<boolean> {
  const res = await fetch('api/session', { credentials: 'same-origin' }).catch(() => undefined)
  if (!res || !res.ok) return false
  csrf = ((await res.json()) as { csrf: string }).csrf
  return true
}

export async function signIn(token: string): Promise<void> {
  const res = await fetch('api/session', {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token }),
  })
  const body = (await res.json().catch(() => ({}))) as { csrf?: string; detail?: string }
  if (!res.ok || !body.csrf) throw new ApiError(body.detail ?? `Sign-in failed (HTTP ${res.status}).`, res.status)
  csrf = body.csrf
}

export async function signOut(): Promise<void> {
  await fetch('api/session', { method: 'DELETE', credentials: 'same-origin', headers: csrf ? { 'x-console-csrf': csrf } : {} })
  csrf = undefined
}

export interface CallOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE'
  body?: unknown
  query?: Record<string, string | number | undefined>
  /** Another credential for this call (a wallet's key, a user token): the session is not used then. */
  apiKey?: string
  bearer?: string
}

/**
 * One operation route. Upstream's routes answer 200 with `{status: "ERROR", reason}` on failure; the others use
 * status codes and `{detail}`: both become an ApiError with the daemon's message.
 */
export async function call<T = any>(path: string, opts: CallOptions = {}): Promise<T> {
  const method = opts.method ?? (opts.body === undefined ? 'GET' : 'POST')
  const query = Object.entries(opts.query ?? {}).filter(([, v]) => v !== undefined && v !== '')
  const url = path + (query.length ? '?' + new URLSearchParams(query.map(([k, v]) => [k, String(v)])).toString() : '')
  const headers: Record<string, string> = {}
  if (csrf) headers['x-console-csrf'] = csrf
  if (opts.body !== undefined) headers['content-type'] = 'application/json'
  if (opts.apiKey) headers['x-api-key'] = opts.apiKey
  if (opts.bearer) headers['authorization'] = `Bearer ${opts.bearer}`
  const res = await fetch(url, {
    method,
    credentials: 'same-origin',
    headers,
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
  })
  const type = res.headers.get('content-type') ?? ''
  const body: any = type.includes('json') ? await res.json().catch(() => null) : await res.text()
  if (body && typeof body === 'object' && body.status === 'ERROR') {
    if (/admin (header not found|token invalid)/.test(String(body.reason)) && !opts.bearer) onSignedOut()
    throw new ApiError(String(body.reason), res.status)
  }
  if (!res.ok) {
    if (res.status === 401 && !opts.apiKey && !opts.bearer) onSignedOut()
    throw new ApiError((body && typeof body === 'object' && (typeof body.detail === 'string' ? body.detail : JSON.stringify(body.detail))) || `HTTP ${res.status}`, res.status)
  }
  return body as T
}
