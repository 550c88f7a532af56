// The paid-invoice HTTP callback, as upstream sends it: the stored URL is an
// RFC 6570 template expanded with `amount` (sats), `invoice` and every payer_data key; `ok=true` is appended; a GET
// with `Authorization: Bearer <token>` when a token is set; 5 s timeout; at most 3 redirects, each hop checked
// again. Fire-and-forget: the caller logs the outcome; crediting never depends on it.
import http from 'node:http'
import https from 'node:https'
import { parseTemplate } from 'url-template'
import { checkOutboundUrl, guardedLookup, type GuardOptions } from './outbound-guard.js'

const timeoutMs = 5000
const maxRedirects = 3

export interface PaidCallback {
  urlTemplate: string
  amountSats: number
  invoice: string
  payerData?: Record<string, string>
  bearerToken?: string
  rejectUnauthorized?: boolean
}

export interface CallbackOutcome {
  url: string
  status?: number
  error?: string
}

export function expandCallbackUrl(c: PaidCallback): string {
  const expanded = parseTemplate(c.urlTemplate).expand({ ...(c.payerData ?? {}), amount: String(c.amountSats), invoice: c.invoice })
  return expanded + (expanded.includes('?') ? '&' : '?') + 'ok=true'
}

export async function sendPaidCallback(c: PaidCallback, guard: GuardOptions): Promise<CallbackOutcome> {
  let url = expandCallbackUrl(c)
  let origin: string | undefined
  for (let hop = 0; hop <= maxRedirects; hop++) {
    let target: URL
    try {
      target = checkOutboundUrl(url, guard)
    } catch (err) {
      return { url, error: (err as Error).message }
    }
    origin ??= target.origin
    // The bearer token is the integrator's: a redirect to another origin does not get it.
    const { bearerToken, ...withoutToken } = c
    const answer = await get(target, target.origin === origin && bearerToken ? { ...withoutToken, bearerToken } : withoutToken, guard)
    if (answer.error || !answer.location || !answer.status || answer.status < 300 || answer.status >= 400) {
      return { url, status: answer.status, error: answer.error }
    }
    url = new URL(answer.location, target).toString()
  }
  return { url, error: `more than ${maxRedirects} redirects` }
}

function get(target: URL, c: PaidCallback, guard: GuardOptions): Promise<{ status?: number; location?: string; error?: string }> {
  const client = target.protocol === 'https:' ? https : http
  return new Promise(resolve => {
    const req = client.request(
      target,
      {
        method: 'GET',
        lookup: guardedLookup(guard),
        timeout: timeoutMs,
        headers: c.bearerToken ? { authorization: `Bearer ${c.bearerToken}` } : {},
        ...(target.protocol === 'https:' ? { rejectUnauthorized: c.rejectUnauthorized ?? true } : {}),
      },
      res => {
        res.resume() // the body is not read: only the status matters
        resolve({ status: res.statusCode, location: res.headers.location })
      },
    )
    req.on('timeout', () => req.destroy(new Error(`timed out after ${timeoutMs} ms`)))
    req.on('error', err => resolve({ error: err.message }))
    req.end()
  })
}
