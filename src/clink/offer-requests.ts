// A payer's kind-21001 request (the CLINK offers spec; docs/pub-protocol.md, "Offers"): which offer it names, what
// amount and payer data it must carry, and the invoice it gets — or an error with the spec's code 1–5. The
// requester is owed a receipt once the invoice is paid (receipts.ts).
import { sha256 } from '@noble/hashes/sha2.js'
import { bytesToHex } from '@noble/hashes/utils.js'
import type { Logger } from 'pino'
import { isOperationError } from '../bus/index.js'
import type { LightningNode } from '../node/index.js'
import { receiptRelays, validateZapRequest } from '../nostr-codecs/index.js'
import { positiveSatsAsMsat, type CreatedInvoice, type InvoiceForWallet, type Wallet } from '../wallet/index.js'
import type { ClinkAnswer, ClinkRequest } from './wire.js'
import { defaultOfferLabel, payerDataOf, type OfferRow, type OfferStore } from './offer-store.js'
import type { ReceiptBook } from './receipts.js'
import { msatAsSats } from '../units/index.js'

/** The spec's offer error codes and their messages. */
const offerErrors = {
  1: 'Invalid Offer',
  2: 'Temporary Failure',
  3: 'Expired Offer',
  4: 'Unsupported Feature',
  5: 'Invalid Amount',
} as const
type OfferErrorCode = keyof typeof offerErrors

/** Upstream's floor for payer-chosen amounts. */
export const minOfferAmountSats = 10
/** Upstream's ceiling when the node reports no inbound liquidity (the liquidity provider may still take it). */
const fallbackMaxAmountSats = 10_000_000
const maxDescriptionLength = 100
const maxOfferIdLength = 256

export interface OfferRequestDeps {
  offers: OfferStore
  receipts: ReceiptBook
  wallet: Pick<Wallet, 'accounts' | 'createInvoiceFor' | 'productInvoiceFor'>
  node: Pick<LightningNode, 'getBalances'>
  /** Why a relay a zap request names would not get the receipt; undefined when it would. */
  zapRelayRefusal(url: string): string | undefined
  log: Logger
}

class OfferRefusal extends Error {
  constructor(
    readonly code: OfferErrorCode,
    readonly details: Record<string, unknown> = {},
  ) {
    super(offerErrors[code])
  }
}

/** What the request resolved to: the wallet paid, and the offer's terms. */
interface Terms {
  userId: string
  offerId: string
  label: string
  priceSats: number
  payerData: string[]
  row?: OfferRow
}

export function offerRequests(deps: OfferRequestDeps) {
  const { offers, wallet, log } = deps

  /** The offer named by `offer` in the app that received the request. */
  async function termsOf(offer: string, appId: string): Promise<Terms> {
    const row = await offers.byId(offer)
    const owner = row ? await wallet.accounts.appUserOf(row.user_id) : await wallet.accounts.appUser(offer)
    if (!owner || owner.app_id !== appId) throw new OfferRefusal(1)
    // The default offer (id = the app user's identifier) always takes any amount, with or without its row.
    if (offer === owner.identifier) {
      return { userId: owner.user_id, offerId: offer, label: row && !row.deleted_at ? row.label : defaultOfferLabel, priceSats: 0, payerData: [], ...(row && !row.deleted_at ? { row } : {}) }
    }
    if (!row) throw new OfferRefusal(1)
    if (row.deleted_at !== null) throw new OfferRefusal(3)
    return { userId: row.user_id, offerId: row.offer_id, label: row.label, priceSats: row.price_sats, payerData: payerDataOf(row), row }
  }

  async function maxAmountSats(): Promise<number> {
    const remoteMsat = (await deps.node.getBalances()).channelsRemoteMsat
    return remoteMsat > 0 ? msatAsSats(remoteMsat) : fallbackMaxAmountSats
  }

  async function amountSatsFor(terms: Terms, body: Record<string, unknown>): Promise<number> {
    if (terms.priceSats > 0) return terms.priceSats // a fixed price ignores the amount asked
    const max = await maxAmountSats()
    // The SDK and upstream send `amount_sats`; the spec's example says `amount`.
    const amount = body.amount_sats ?? body.amount
    if (typeof amount !== 'number' || !Number.isSafeInteger(amount) || amount < minOfferAmountSats || amount > max) {
      throw new OfferRefusal(5, { range: { min: minOfferAmountSats, max } })
    }
    return amount
  }

  function payerDataFor(terms: Terms, body: Record<string, unknown>): Record<string, string> | undefined {
    if (terms.payerData.length === 0) return undefined
    const given = body.payer_data
    const complete =
      typeof given === 'object' && given !== null && terms.payerData.every(key => typeof (given as Record<string, unknown>)[key] === 'string')
    if (!complete) throw new OfferRefusal(1, { payer_data: terms.payerData })
    // Only the keys the offer asks for are kept.
    return Object.fromEntries(terms.payerData.map(key => [key, (given as Record<string, string>)[key]!]))
  }

  function optionsFrom(body: Record<string, unknown>, amountMsat: number): Partial<InvoiceForWallet> {
    const options: Partial<InvoiceForWallet> = {}
    const expiry = body.expires_in_seconds
    if (expiry !== undefined && expiry !== null) {
      if (typeof expiry !== 'number' || !Number.isSafeInteger(expiry) || expiry <= 0) throw new OfferRefusal(1)
      options.expirySeconds = expiry // the wallet caps it at 3600
    }
    if (body.zap !== undefined && body.zap !== null && body.zap !== '') {
      if (typeof body.zap !== 'string') throw new OfferRefusal(1)
      let zap
      try {
        zap = validateZapRequest(body.zap, amountMsat)
      } catch {
        throw new OfferRefusal(1)
      }
      try {
        receiptRelays(zap, deps.zapRelayRefusal)
      } catch (err) {
        // Refused now, with the reason, rather than paid and left without a receipt.
        throw new OfferRefusal(1, { error: `${offerErrors[1]}: ${(err as Error).message}` })
      }
      // NIP-57: the invoice commits to the zap request; the LNURL room publishes the receipt once it is paid.
      options.descriptionHash = bytesToHex(sha256(new TextEncoder().encode(zap.description)))
      options.zapRequest = zap.description
    }
    return options
  }

  async function invoiceFor(request: ClinkRequest, body: Record<string, unknown>): Promise<CreatedInvoice> {
    const offer = body.offer
    if (typeof offer !== 'string' || offer === '' || offer.length > maxOfferIdLength) throw new OfferRefusal(1)
    const version = request.tags.find(tag => tag[0] === 'clink_version')?.[1]
    if (version !== undefined && version !== '1') throw new OfferRefusal(4)

    if (offer.includes(':')) {
      const [prefix, productId] = [offer.slice(0, offer.indexOf(':')), offer.slice(offer.indexOf(':') + 1)]
      if (prefix !== 'p') throw new OfferRefusal(1)
      // A product has its own memo and price; it cannot be a zap.
      if (body.zap) throw new OfferRefusal(4)
      const invoice = await wallet.productInvoiceFor(productId, request.appId)
      if (!invoice) throw new OfferRefusal(1)
      return invoice
    }

    const terms = await termsOf(offer, request.appId)
    const amountSats = await amountSatsFor(terms, body)
    const amountMsat = positiveSatsAsMsat(amountSats, 'amount_sats')
    const payerData = payerDataFor(terms, body)
    const description = body.description
    const memo = typeof description === 'string' && description !== '' && description.length <= maxDescriptionLength ? description : terms.label
    const row = terms.row
    return wallet.createInvoiceFor(terms.userId, {
      amountMsat,
      memo,
      appId: request.appId,
      offerId: terms.offerId,
      ...optionsFrom(body, amountMsat),
      ...(payerData ? { payerData } : {}),
      ...(row
        ? {
            callback: { url: row.callback_url, token: row.token, rejectUnauthorized: row.reject_unauthorized === 1 },
            blind: row.blind === 1,
          }
        : {}),
    })
  }

  return {
    async answer(request: ClinkRequest): Promise<ClinkAnswer> {
      const body = request.body
      try {
        if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new OfferRefusal(1)
        const invoice = await invoiceFor(request, body as Record<string, unknown>)
        await deps.receipts.owe({
          paymentHash: invoice.paymentHash,
          appId: request.appId,
          requester: request.requester,
          requestId: request.id,
          expiresAt: invoice.expiresAt,
        })
        return { payload: { bolt11: invoice.paymentRequest }, clinkVersion: true }
      } catch (err) {
        const refusal = asRefusal(err)
        if (refusal.code === 2) log.warn({ err, id: request.id }, 'CLINK offer request failed')
        return { payload: { code: refusal.code, error: offerErrors[refusal.code], ...refusal.details }, clinkVersion: true }
      }
    },
  }
}

/** A locked or missing wallet is an invalid offer; an outage or a bug is a temporary failure. */
function asRefusal(err: unknown): OfferRefusal {
  if (err instanceof OfferRefusal) return err
  if (isOperationError(err) && (err.code === 'forbidden' || err.code === 'not_found' || err.code === 'invalid_input')) {
    return new OfferRefusal(1)
  }
  return new OfferRefusal(2)
}
