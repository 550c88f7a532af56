// One GET to a rate provider, bounded by a timeout, answering the parsed JSON body with numbers kept as their
// literal text. Every way it can fail becomes a ProviderFailure whose reason is short enough to go into the
// caller's message ("kraken: HTTP 500", "coinbase: timed out after 3000 ms").
import { parseJsonKeepingNumbers } from './json-numbers.js'

export class ProviderFailure extends Error {
  constructor(readonly reason: string) {
    super(reason)
    this.name = 'ProviderFailure'
  }
}

export interface ProviderRequestOptions {
  fetch: typeof globalThis.fetch
  timeoutMs: number
  headers?: Record<string, string>
}

/** The body's JSON; throws ProviderFailure on a network error, timeout, non-2xx status or unparsable body. */
export async function getProviderJson(url: string, opts: ProviderRequestOptions): Promise<unknown> {
  const controller = new AbortController()
  const timer = setTimeout(() => controller.abort(), opts.timeoutMs)
  try {
    let response: Response
    try {
      response = await opts.fetch(url, {
        signal: controller.signal,
        headers: { accept: 'application/json', ...opts.headers },
      })
    } catch (err) {
      throw new ProviderFailure(controller.signal.aborted ? `timed out after ${opts.timeoutMs} ms` : networkCause(err))
    }
    let text: string
    try {
      text = await response.text()
    } catch (err) {
      throw new ProviderFailure(controller.signal.aborted ? `timed out after ${opts.timeoutMs} ms` : networkCause(err))
    }
    if (!response.ok) throw new ProviderFailure(`HTTP ${response.status}`)
    try {
      return parseJsonKeepingNumbers(text)
    } catch {
      throw new ProviderFailure('answer is not JSON')
    }
  } finally {
    clearTimeout(timer)
  }
}

/** undici reports network failures as `TypeError: fetch failed` with the real error as its cause. */
function networkCause(err: unknown): string {
  const cause = (err as { cause?: { code?: unknown; message?: unknown } }).cause
  if (typeof cause?.code === 'string') return `unreachable (${cause.code})`
  if (typeof cause?.message === 'string') return `unreachable (${cause.message})`
  return `unreachable (${err instanceof Error ? err.message : String(err)})`
}

/** Reads `obj[key1][key2]…`, undefined when any step is missing or not an object. */
export function pick(obj: unknown, ...path: (string | number)[]): unknown {
  let at = obj
  for (const key of path) {
    if (typeof at !== 'object' || at === null) return undefined
    at = (at as Record<string | number, unknown>)[key]
  }
  return at
}

/** `base` may carry a path prefix (a proxy or the test fake); `path` starts with '/'. */
export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}${path}`
}
