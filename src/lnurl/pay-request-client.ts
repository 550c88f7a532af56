// Paying out to an LNURL-pay link or a Lightning address (LUD-01, LUD-06, LUD-16): find the pay request, check what
// it says, and ask its callback for an invoice of the chosen amount. Every URL is a stranger's, so every request
// goes through the outbound guard (no private addresses, loopback only when allowed), with a timeout and a size cap.
// The invoice is checked against what was asked (amount, LUD-06's description hash) before anyone pays it; paying
// it is the wallet's PayInvoice, as for any invoice.
import http from 'node:http'
import https from 'node:https'
import net from 'node:net'
import { createHash } from 'node:crypto'
import { decode as decodeBolt11 } from 'light-bolt11-decoder'
import { OperationError } from '../bus/index.js'
import { addressAllowed, checkOutboundUrl, guardedLookup, type GuardOptions } from '../callbacks/index.js'
import { decodeLnurl } from './lnurl-string.js'
import { msatAsSats, satsCovering } from '../units/index.js'

const timeoutMs = 5000
/** A pay request or a callback's answer is a small JSON object; more is refused unread. */
const maxAnswerBytes = 64 * 1024
const lnurlUrl = { what: 'LNURL', protocols: ['http:', 'https:'] } as const

export interface PayRequest {
  /** The host that answers for it, shown to the payer. */
  domain: string
  callback: URL
  minMsat: number
  maxMsat: number
  /** The text/plain entry of its metadata. */
  description: string
  metadata: string
  /** LUD-12: the longest comment it takes (0: none). */
  commentChars: number
}

/** LUD-09: a success action, as checked for the payer's wallet to show (contract/messages/lnurl.ts LnurlSuccessAction). */
export type SuccessAction =
  | { tag: 'message'; message: string }
  | { tag: 'url'; description: string; url: string }
  | { tag: 'aes'; description: string; ciphertext: string; iv: string }

/** LUD-09's and LUD-10's limits: 144 characters of text, a ciphertext of up to 4 KiB, a 16-byte iv in base64. */
const maxActionText = 144
const maxCiphertextChars = 4096
const base64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/

const refuse = (message: string): never => {
  throw new OperationError('invalid_input', message)
}
const upstream = (message: string): never => {
  throw new OperationError('upstream_failed', message)
}

/** The URL behind an LNURL (`lnurl1…`, `lightning:` allowed) or a Lightning address (`name@domain`). */
export function payRequestUrl(destination: string, guard: GuardOptions): URL {
  const text = destination.trim().replace(/^lightning:/i, '')
  const address = /^([a-z0-9._+-]+)@([a-z0-9.-]+(?::\d+)?)$/i.exec(text)
  if (address) {
    const [, name, domain] = address
    const host = domain!.replace(/:\d+$/, '')
    // LUD-16: https, but http for an onion service; and on loopback, when it is allowed (tests), where there is no TLS.
    const plain = host.endsWith('.onion') || (guard.allowLoopback && isLoopback(host))
    return checkOutboundUrl(`${plain ? 'http' : 'https'}://${domain}/.well-known/lnurlp/${name!.toLowerCase()}`, guard, lnurlUrl)
  }
  if (/^lnurl1[02-9ac-hj-np-z]+$/i.test(text)) {
    let url: string
    try {
      url = decodeLnurl(text)
    } catch {
      return refuse('This LNURL is damaged: copy it again.')
    }
    return checkOutboundUrl(url, guard, lnurlUrl)
  }
  return refuse('Not an LNURL (lnurl1…) or a Lightning address (name@domain).')
}

/** The pay request at `url`, checked. */
export async function fetchPayRequest(url: URL, guard: GuardOptions): Promise<PayRequest> {
  const answer = await getJson(url, guard)
  if (answer.status === 'ERROR') upstream(`${url.host} refused: ${String(answer.reason ?? 'no reason given').slice(0, 200)}`)
  if (answer.tag !== 'payRequest') refuse(`${url.host} does not offer a payment there (it is no LNURL-pay link).`)
  const minMsat = answer.minSendable
  const maxMsat = answer.maxSendable
  if (!Number.isSafeInteger(minMsat) || !Number.isSafeInteger(maxMsat) || (minMsat as number) < 1 || (minMsat as number) > (maxMsat as number)) {
    upstream(`${url.host} answered a pay request without a valid amount range.`)
  }
  if (typeof answer.callback !== 'string' || typeof answer.metadata !== 'string') upstream(`${url.host} answered an incomplete pay request.`)
  let description = ''
  try {
    const entries = JSON.parse(answer.metadata as string) as unknown
    if (Array.isArray(entries)) {
      const plain = entries.find(entry => Array.isArray(entry) && entry[0] === 'text/plain' && typeof entry[1] === 'string') as [string, string] | undefined
      description = plain?.[1] ?? ''
    }
  } catch {
    upstream(`${url.host} answered a pay request whose metadata is not JSON.`)
  }
  const commentChars = Number.isSafeInteger(answer.commentAllowed) ? Math.max(0, answer.commentAllowed as number) : 0
  return {
    domain: url.host,
    callback: checkOutboundUrl(answer.callback as string, guard, lnurlUrl),
    minMsat: minMsat as number,
    maxMsat: maxMsat as number,
    description: description.slice(0, 500),
    metadata: answer.metadata as string,
    commentChars,
  }
}

/**
 * An invoice of exactly `amountMsat` from the pay request's callback, its description hash checked (LUD-06), and the
 * success action the callback's answer carries, when it is a valid one (LUD-09).
 */
export async function invoiceFrom(
  request: PayRequest,
  amountMsat: number,
  comment: string,
  guard: GuardOptions,
): Promise<{ invoice: string; successAction: SuccessAction | undefined }> {
  if (amountMsat < request.minMsat || amountMsat > request.maxMsat) {
    refuse(`${request.domain} takes from ${satsCovering(request.minMsat)} to ${msatAsSats(request.maxMsat)} sats.`)
  }
  if (comment.length > request.commentChars) {
    refuse(request.commentChars === 0 ? `${request.domain} takes no comment.` : `${request.domain} takes a comment of at most ${request.commentChars} characters.`)
  }
  const url = new URL(request.callback)
  url.searchParams.set('amount', String(amountMsat))
  if (comment) url.searchParams.set('comment', comment)
  const answer = await getJson(url, guard)
  if (answer.status === 'ERROR') upstream(`${request.domain} refused: ${String(answer.reason ?? 'no reason given').slice(0, 200)}`)
  if (typeof answer.pr !== 'string') upstream(`${request.domain} answered no invoice.`)
  const invoice = (answer.pr as string).toLowerCase()
  let sections: { name: string; value?: unknown }[]
  try {
    sections = decodeBolt11(invoice).sections as { name: string; value?: unknown }[]
  } catch {
    return upstream(`${request.domain} answered something that is not an invoice.`)
  }
  const amount = sections.find(section => section.name === 'amount')?.value
  if (String(amount) !== String(amountMsat)) upstream(`${request.domain} answered an invoice for another amount than asked; nothing was paid.`)
  const hash = sections.find(section => section.name === 'description_hash')?.value
  const expected = createHash('sha256').update(request.metadata, 'utf8').digest('hex')
  if (hash !== undefined && hash !== expected) upstream(`${request.domain} answered an invoice for something else than its pay request; nothing was paid.`)
  return { invoice, successAction: successActionOf(answer.successAction, request.callback) }
}

/**
 * The success action of a callback's answer, or undefined when there is none or it breaks LUD-09 / LUD-10 in any way
 * (unknown tag, a field missing or too long, a URL that is not http(s) or not on the callback's host, an iv that is
 * not 16 bytes of base64): a payee's mistake never stops the payment, its action is only left out.
 */
export function successActionOf(value: unknown, callback: URL): SuccessAction | undefined {
  if (typeof value !== 'object' || value === null) return undefined
  const action = value as Record<string, unknown>
  const shortText = (field: unknown): field is string => typeof field === 'string' && field.length <= maxActionText
  switch (action.tag) {
    case 'message':
      return shortText(action.message) && action.message.trim() !== '' ? { tag: 'message', message: action.message } : undefined
    case 'url': {
      if (!shortText(action.description) || typeof action.url !== 'string') return undefined
      let url: URL
      try {
        url = new URL(action.url)
      } catch {
        return undefined
      }
      const web = url.protocol === 'https:' || url.protocol === 'http:'
      return web && url.hostname === callback.hostname ? { tag: 'url', description: action.description, url: url.href } : undefined
    }
    case 'aes': {
      const { description, ciphertext, iv } = action
      if (!shortText(description) || typeof ciphertext !== 'string' || typeof iv !== 'string') return undefined
      // AES-CBC: whole 16-byte blocks.
      const cipherOk = ciphertext.length > 0 && ciphertext.length <= maxCiphertextChars && base64.test(ciphertext) &&
        Buffer.from(ciphertext, 'base64').length % 16 === 0
      return cipherOk && iv.length === 24 && base64.test(iv) ? { tag: 'aes', description, ciphertext, iv } : undefined
    }
    default:
      return undefined
  }
}

function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '')
  if (bare === 'localhost') return true
  return net.isIP(bare) !== 0 && !addressAllowed(bare, { allowLoopback: false }) && addressAllowed(bare, { allowLoopback: true })
}

function getJson(url: URL, guard: GuardOptions): Promise<Record<string, unknown>> {
  const client = url.protocol === 'https:' ? https : http
  return new Promise((resolve, reject) => {
    // The whole answer within the time, not only each pause in it: a server that drips a byte every few seconds would
    // hold the call (and its socket) for days under an idle timeout alone.
    const deadline = setTimeout(() => req.destroy(new Error('timeout')), timeoutMs)
    const fail = (why: string) => {
      clearTimeout(deadline)
      reject(new OperationError('upstream_failed', `${url.host} ${why}`))
    }
    const req = client.request(url, { method: 'GET', lookup: guardedLookup(guard), timeout: timeoutMs, headers: { accept: 'application/json' } }, res => {
      const chunks: Buffer[] = []
      let size = 0
      res.on('data', (chunk: Buffer) => {
        size += chunk.length
        if (size > maxAnswerBytes) {
          req.destroy()
          return fail('answered too much.')
        }
        chunks.push(chunk)
      })
      res.on('end', () => {
        clearTimeout(deadline)
        try {
          const value = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown
          if (typeof value !== 'object' || value === null || Array.isArray(value)) return fail('answered no JSON object.')
          resolve(value as Record<string, unknown>)
        } catch {
          fail(`answered no JSON (HTTP ${res.statusCode}).`)
        }
      })
      res.on('error', () => fail('broke off its answer.'))
    })
    req.on('timeout', () => req.destroy(new Error('timeout')))
    req.on('error', err => fail(err.message === 'timeout' ? `did not answer within ${timeoutMs / 1000} s.` : 'cannot be reached.'))
    req.end()
  })
}
