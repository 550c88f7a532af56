// NIP-57 zaps: a kind-9735 receipt signed by the app key, published to the
// request's relays once the invoice is paid — whether it was paid over Lightning or from another wallet of this
// service.
import { hexToBytes } from '@noble/hashes/utils.js'
import { mergeMap, type Observable, type Subscription, ofType, type DomainEvent } from '../bus/index.js'
import type { Logger } from 'pino'
import { receiptCandidates, validateZapRequest, type ZapRequest } from '../nostr-codecs/index.js'
import { zapReceiptKind } from '../nostr-kinds/index.js'
import type { LnurlKeysStore } from './keys-store.js'
import { unixSeconds } from '../units/index.js'

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
  return { kind: zapReceiptKind, content: '', tags, created_at: unixSeconds(paid.paidAtMs) }
}

export interface ZapPublisher {
  publish(template: { kind: number; content: string; tags: string[][]; created_at?: number }, secretKey: Uint8Array, relays?: readonly string[]): string
  /** Why a relay named by a zap request would not be published to; undefined when it would. */
  refusalOf(url: string): string | undefined
}

export interface ZapReceiptDeps {
  events$: Observable<DomainEvent>
  keys: LnurlKeysStore
  /** The paid invoice's zap request, bolt11 and the wallet/app it was issued for. */
  invoice(paymentHash: string): Promise<{ walletId: string; appId: string | null; paymentRequest: string; zapRequest: string | null } | undefined>
  /** Hex secret key of the app that signs receipts for this invoice. */
  signingKey(invoice: { walletId: string; appId: string | null }): Promise<string | undefined>
  /** The preimage, when the node knows it. */
  preimage(paymentHash: string): Promise<string | null>
  publisher: ZapPublisher
  log: Logger
}

/**
 * Publishes a receipt for every paid zap invoice; a failure is logged, never raised into the payment. A payment
 * announced twice at once (a redelivery while the first is being signed) is published once: the receipt is stored
 * only after publishing, so the hashes being published are remembered here until then.
 */
export function publishZapReceipts(deps: ZapReceiptDeps): Subscription {
  const { keys, log } = deps
  const publishing = new Set<string>()
  return deps.events$
    .pipe(
      ofType('invoice.paid'),
      mergeMap(async paid => {
        if (paid.zap === false || publishing.has(paid.paymentHash)) return
        publishing.add(paid.paymentHash)
        try {
          const invoice = await deps.invoice(paid.paymentHash)
          if (!invoice?.zapRequest || (await keys.zapReceiptFor(paid.paymentHash)) !== undefined) return
          const zap = validateZapRequest(invoice.zapRequest, undefined)
          // Checked when the zap request was given (receiptRelays); the publisher skips, and logs, the ones its
          // guard refuses among them.
          const relays = receiptCandidates(zap)
          const usable = relays.filter(url => deps.publisher.refusalOf(url) === undefined)
          const secretKey = await deps.signingKey(invoice)
          if (usable.length === 0 || secretKey === undefined) {
            log.warn({ paymentHash: paid.paymentHash }, 'zap receipt not published: no usable relay or signing key')
            return
          }
          const template = zapReceiptTemplate(zap, {
            paymentRequest: invoice.paymentRequest,
            paidAtMs: paid.paidAt,
            preimage: await deps.preimage(paid.paymentHash),
          })
          const eventId = deps.publisher.publish(template, hexToBytes(secretKey), relays)
          await keys.recordZapReceipt(paid.paymentHash, eventId)
          log.info({ paymentHash: paid.paymentHash, eventId, relays: relays.length }, 'zap receipt queued')
        } catch (err) {
          log.error({ err, paymentHash: paid.paymentHash }, 'zap receipt failed')
        } finally {
          publishing.delete(paid.paymentHash)
        }
      }),
    )
    .subscribe()
}
