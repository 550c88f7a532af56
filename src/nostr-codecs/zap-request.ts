// NIP-57 zap requests, checked as upstream does. Both LNURL-pay and CLINK offers
// accept them, so the check lives beneath both rooms.
import { verifyEvent, type Event } from 'nostr-tools/pure'
import { OperationError } from '../bus/index.js'

export interface ZapRequest {
  /** The recipient's pubkey (the single `p` tag). */
  pub: string
  /** The zapped event (`e`), coordinate (`a`) and kind (`k`), when present. */
  eventId: string | null
  eventCoordinate: string | null
  eventKind: string | null
  relays: string[]
  /** The zap request JSON exactly as received (decoded): hashed into the invoice and quoted by the receipt. */
  description: string
  senderPub: string
}

/**
 * Parses and checks a zap request: a signed kind-9734 event with exactly one `p`, a `relays` tag, at most one
 * `e`, `a` and `k`, and an `amount` (if any) equal to `amountMsat`. URI-encoded requests are decoded first.
 */
export function validateZapRequest(raw: string, amountMsat: number | undefined): ZapRequest {
  const description = raw.trimStart().startsWith('{') ? raw : safeDecode(raw)
  let event: Event
  try {
    event = JSON.parse(description)
  } catch {
    throw refusal('zap request is not valid JSON')
  }
  if (typeof event !== 'object' || event === null || !Array.isArray(event.tags)) throw refusal('zap request is not an event')
  if (event.kind !== 9734) throw refusal('zap request must be a kind 9734 event')
  if (!verifyEvent(event)) throw refusal('zap request has an invalid signature')
  const values = (name: string) => event.tags.filter(tag => Array.isArray(tag) && tag[0] === name)
  const single = (name: string, required: boolean): string | null => {
    const found = values(name)
    if (found.length === 0) {
      if (required) throw refusal(`zap request must have a ${name} tag`)
      return null
    }
    if (found.length > 1 || found[0]!.length !== 2 || typeof found[0]![1] !== 'string') {
      throw refusal(`zap request must have exactly one ${name} tag with one value`)
    }
    return found[0]![1]
  }
  const pub = single('p', true)!
  const relayTags = values('relays')
  if (relayTags.length === 0) throw refusal('zap request must have a relays tag')
  const relays = relayTags.flatMap(tag => tag.slice(1)).filter(url => typeof url === 'string')
  if (relays.length === 0) throw refusal('zap request must name at least one relay')
  const amount = single('amount', false)
  if (amount !== null && amountMsat !== undefined && amount !== String(amountMsat)) {
    throw refusal('zap request amount does not match the invoice amount')
  }
  return {
    pub,
    eventId: single('e', false),
    eventCoordinate: single('a', false),
    eventKind: single('k', false),
    relays,
    description,
    senderPub: event.pubkey,
  }
}

/** Receipts go to at most this many of a request's relays; they must be WebSocket URLs. */
export const maxReceiptRelays = 10

/** The relays a receipt is offered to, before the outbound guard: the request's first ten WebSocket URLs. */
export function receiptCandidates(zap: ZapRequest): string[] {
  return zap.relays.filter(url => /^wss?:\/\//i.test(url)).slice(0, maxReceiptRelays)
}

/**
 * The relays a zap request's receipt will be published to: its first ten WebSocket URLs that `refusalOf` (the
 * outbound guard, which lets the service's own relays through) does not refuse. Asked when the request is given, so
 * one that names no relay we would publish to is refused then, with the guard's reason, instead of paid and left
 * without a receipt; asked again when the receipt is published, with the same answer.
 */
export function receiptRelays(zap: ZapRequest, refusalOf: (url: string) => string | undefined): string[] {
  const candidates = receiptCandidates(zap)
  const refusals = candidates.map(refusalOf)
  const usable = candidates.filter((_url, i) => refusals[i] === undefined)
  if (usable.length === 0) {
    const reason = refusals.find(r => r !== undefined) ?? 'none is a ws:// or wss:// URL'
    throw refusal(`zap request names no relay its receipt can be published to: ${reason}`)
  }
  return usable
}

function safeDecode(raw: string): string {
  try {
    return decodeURIComponent(raw)
  } catch {
    throw refusal('zap request is not valid JSON')
  }
}

const refusal = (message: string) => new OperationError('invalid_input', message)
