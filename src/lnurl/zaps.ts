// NIP-57 zaps (reference/pub-protocol.md §6.4): zap requests validated as upstream does, and a kind-9735 receipt
// signed by the app key, published to the request's relays once the invoice is paid — whether it was paid over
// Lightning or from another wallet of this service.
import { hexToBytes } from '@noble/hashes/utils.js'
import { verifyEvent, type Event } from 'nostr-tools/pure'
import { mergeMap, type Observable, type Subscription } from '../bus/rx.js'
import type { Logger } from 'pino'
import { OperationError } from '../bus/errors.js'
import { ofType, type DomainEvent } from '../bus/events.js'
import type { LnurlKeysStore } from './keys-store.js'

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

/** Receipts go to at most this many of the request's relays; they must be WebSocket URLs. */
const maxReceiptRelays = 10

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

/** The kind-9735 receipt's unsigned template (NIP-57 appendix E). */
export function zapReceiptTemplate(
  zap: ZapRequest,
  paid: { paymentRequest: string; paidAtMs: number; preimage: string | null },
): { kind: number; content: string; tags: string[][]; created_at: number } {
  const tags: string[][] = [['p', zap.pub], ['P', zap.senderPub]]
  if (zap.eventId !== null) tags.push(['e', zap.eventId])
  if (zap.eventCoordinate !== null) tags.push(['a', zap.eventCoordinate])
  if (zap.eventKind !== null) tags.push(['k', zap.eventKind])
  tags.push(['bolt11', paid.paymentRequest], ['description', zap.description])
  if (paid.preimage) tags.push(['preimage', paid.preimage])
  return { kind: 9735, content: '', tags, created_at: Math.floor(paid.paidAtMs / 1000) }
}

export interface ZapPublisher {
  publish(template: { kind: number; content: string; tags: string[][]; created_at?: number }, secretKey: Uint8Array, relays?: readonly string[]): string
}

export interface ZapReceiptDeps {
  events$: Observable<DomainEvent>
  keys: LnurlKeysStore
  /** The paid invoice's zap request, bolt11 and the wallet/app it was issued for. */
  invoice(paymentHash: string): { walletId: string; appId: string | null; paymentRequest: string; zapRequest: string | null } | undefined
  /** Hex secret key of the app that signs receipts for this invoice. */
  signingKey(invoice: { walletId: string; appId: string | null }): string | undefined
  /** The preimage, when the node knows it. */
  preimage(paymentHash: string): Promise<string | null>
  publisher: ZapPublisher
  log: Logger
}

/** Publishes a receipt for every paid zap invoice; a failure is logged, never raised into the payment. */
export function publishZapReceipts(deps: ZapReceiptDeps): Subscription {
  const { keys, log } = deps
  return deps.events$
    .pipe(
      ofType('invoice.paid'),
      mergeMap(async paid => {
        try {
          if (paid.zap === false) return
          const invoice = deps.invoice(paid.paymentHash)
          if (!invoice?.zapRequest || keys.zapReceiptFor(paid.paymentHash) !== undefined) return
          const zap = validateZapRequest(invoice.zapRequest, undefined)
          const relays = zap.relays.filter(url => /^wss?:\/\//i.test(url)).slice(0, maxReceiptRelays)
          const secretKey = deps.signingKey(invoice)
          if (relays.length === 0 || secretKey === undefined) {
            log.warn({ paymentHash: paid.paymentHash }, 'zap receipt not published: no usable relay or signing key')
            return
          }
          const template = zapReceiptTemplate(zap, {
            paymentRequest: invoice.paymentRequest,
            paidAtMs: paid.paidAt,
            preimage: await deps.preimage(paid.paymentHash),
          })
          const eventId = deps.publisher.publish(template, hexToBytes(secretKey), relays)
          keys.recordZapReceipt(paid.paymentHash, eventId)
          log.info({ paymentHash: paid.paymentHash, eventId, relays: relays.length }, 'zap receipt queued')
        } catch (err) {
          log.error({ err, paymentHash: paid.paymentHash }, 'zap receipt failed')
        }
      }),
    )
    .subscribe()
}

function safeDecode(raw: string): string {
  try {
    return decodeURIComponent(raw)
  } catch {
    throw refusal('zap request is not valid JSON')
  }
}

const refusal = (message: string) => new OperationError('invalid_input', message)
