// LND's invoices as the daemon sees them: issuing, looking up and decoding through the `lightning` package, and
// reading LND's whole invoice list when a settlement subscriber knows no settle index yet. LND is the authority
// on every rule (expiry, network, signature); this file checks only what our interface promises beyond LND and
// maps the results.
import {
  createInvoice,
  decodePaymentRequest,
  getInvoice,
  getInvoices,
  type AuthenticatedLnd,
  type CreateInvoiceResult,
  type DecodePaymentRequestResult,
} from 'lightning'
import { type Clock, OperationError } from '../../bus/index.js'
import { validInvoiceRequest } from '../invoice-request.js'
import type { CreateInvoiceRequest, DecodedInvoice, NodeInvoice, SettledInvoice } from '../lightning-node.js'
import { grpcStatus, lndError, describeLndFailure } from './lnd-errors.js'

/** Invoices per ListInvoices page when reading the whole list. */
const invoicePageSize = 1000

/**
 * The fields we read of an invoice as the `lightning` package gives it (getInvoice, getInvoices, subscriptions).
 * Its type declarations lag its code (no `mtokens` on getInvoice, no `created_at` on decodePaymentRequest), so
 * results are read through these shapes of what lnd_responses/rpc_invoice_as_invoice.js returns.
 */
export interface LndInvoice {
  id: string
  request?: string
  secret: string
  mtokens: string
  description?: string
  description_hash?: string
  created_at: string
  expires_at: string
  is_confirmed: boolean
  is_canceled?: boolean
  confirmed_at?: string
  received_mtokens: string
  /** Settle index; subscriptions and listings only. */
  confirmed_index?: number
}

export function invoiceFromLnd(invoice: LndInvoice, nowMs: number): NodeInvoice {
  const expiresAt = Date.parse(invoice.expires_at)
  const amountMsat = Number(invoice.mtokens)
  // LND cancels an invoice once it expires; an open one past its expiry is only waiting for that sweep.
  const expired = invoice.is_canceled === true || nowMs >= expiresAt
  return {
    paymentHash: invoice.id,
    paymentRequest: invoice.request ?? '',
    ...(amountMsat > 0 ? { amountMsat } : {}),
    ...(invoice.description_hash
      ? { descriptionHash: invoice.description_hash }
      : { description: invoice.description ?? '' }),
    createdAt: Date.parse(invoice.created_at),
    expiresAt,
    state: invoice.is_confirmed ? 'paid' : expired ? 'expired' : 'unpaid',
    ...(invoice.is_confirmed
      ? {
          settledAt: Date.parse(invoice.confirmed_at!),
          receivedMsat: Number(invoice.received_mtokens),
          preimage: invoice.secret,
        }
      : {}),
  }
}

/** A settled invoice as a settlement; undefined for one that is not settled. */
export function settlementFromLnd(invoice: LndInvoice): SettledInvoice | undefined {
  if (!invoice.is_confirmed || !invoice.confirmed_index || !invoice.confirmed_at) return undefined
  return {
    paymentHash: invoice.id,
    paymentRequest: invoice.request ?? '',
    amountMsat: Number(invoice.received_mtokens),
    settledAt: Date.parse(invoice.confirmed_at),
    settleIndex: invoice.confirmed_index,
  }
}

export function lndInvoices({ lnd, clock }: { lnd: AuthenticatedLnd; clock: Clock }) {
  const pages = new Set<Promise<unknown>>()
  const listing = <T>(page: Promise<T>): Promise<T> => {
    pages.add(page)
    void page.finally(() => pages.delete(page)).catch(() => undefined)
    return page
  }

  const lookup = async (paymentHash: string): Promise<NodeInvoice | undefined> => {
    if (!/^[0-9a-fA-F]{64}$/.test(paymentHash)) return undefined
    try {
      const invoice = await getInvoice({ lnd, id: paymentHash.toLowerCase() })
      return invoiceFromLnd(invoice as unknown as LndInvoice, clock.now())
    } catch (err) {
      const failure = describeLndFailure(err)
      // LND: codes.NotFound "unable to locate invoice" (older releases: the same words with code UNKNOWN).
      if (failure.grpcCode === grpcStatus.notFound || /unable to locate invoice/.test(failure.details ?? '')) {
        return undefined
      }
      throw lndError('look up an invoice', err)
    }
  }

  return {
    async create(request: CreateInvoiceRequest): Promise<NodeInvoice> {
      const fields = validInvoiceRequest(request)
      let created: CreateInvoiceResult
      try {
        created = await createInvoice({
          lnd,
          ...(fields.amountMsat ? { mtokens: String(fields.amountMsat) } : {}),
          ...(fields.descriptionHash !== undefined
            ? { description_hash: fields.descriptionHash }
            : { description: fields.description ?? '' }),
          // The library turns `expires_at` back into AddInvoice's relative `expiry` against the wall clock
          // (new Date()), so it must be measured from the same clock for the round trip to give expirySeconds.
          expires_at: new Date(Date.now() + fields.expirySeconds * 1000).toISOString(),
          ...(request.blinded ? { is_encrypting_routes: true } : {}),
        })
      } catch (err) {
        throw lndError('create an invoice', err)
      }
      const createdAt = Date.parse(created.created_at)
      return {
        paymentHash: created.id,
        paymentRequest: created.request,
        ...(fields.amountMsat ? { amountMsat: fields.amountMsat } : {}),
        ...(fields.descriptionHash !== undefined
          ? { descriptionHash: fields.descriptionHash }
          : { description: fields.description ?? '' }),
        createdAt,
        expiresAt: createdAt + fields.expirySeconds * 1000,
        state: 'unpaid',
      }
    },

    lookup,

    async decode(paymentRequest: string): Promise<DecodedInvoice> {
      const request = paymentRequest.trim().toLowerCase()
      let decoded: DecodePaymentRequestResult & { created_at: string }
      try {
        decoded = (await decodePaymentRequest({ lnd, request })) as typeof decoded
      } catch (err) {
        throw lndError('decode an invoice', err, [
          { when: /network/, code: 'invalid_input' },
          {
            when: /^UnexpectedDecodePaymentRequestError$/,
            code: 'invalid_input',
            message: f => `invalid payment request: ${f.details ?? 'LND cannot read it'}`,
          },
        ])
      }
      const amountMsat = Number(decoded.mtokens)
      return {
        paymentRequest: request,
        paymentHash: decoded.id,
        payeePubkey: decoded.destination,
        ...(amountMsat > 0 ? { amountMsat } : {}),
        ...(decoded.description_hash
          ? { descriptionHash: decoded.description_hash }
          : { description: decoded.description ?? '' }),
        createdAt: Date.parse(decoded.created_at),
        expiresAt: Date.parse(decoded.expires_at),
        minFinalCltvExpiry: decoded.cltv_delta ?? 0,
        ...(decoded.payment ? { paymentAddr: decoded.payment } : {}),
      }
    },

    /**
     * Every settlement LND holds, oldest first. LND lists invoices by add index only, and an old invoice can be
     * settled late, so this reads the whole list: only for a subscriber that knows no settle index yet (LND
     * replays settlements above an index of 1 or more, never from 0). `stop` is asked before each page.
     */
    async allSettled(stop: () => boolean): Promise<SettledInvoice[]> {
      const settled: SettledInvoice[] = []
      try {
        let page = await listing(getInvoices({ lnd, limit: invoicePageSize }))
        for (;;) {
          for (const invoice of page.invoices as unknown as LndInvoice[]) {
            const settlement = settlementFromLnd(invoice)
            if (settlement) settled.push(settlement)
          }
          if (!page.next || page.invoices.length === 0) break
          if (stop()) throw new OperationError('node_unavailable', 'the LND connection is closing')
          page = await listing(getInvoices({ lnd, token: page.next }))
        }
      } catch (err) {
        throw lndError('list its invoices', err)
      }
      return settled.sort((a, b) => a.settleIndex - b.settleIndex)
    },

    /** Resolves once no list page is awaited: the library retries a failed page on a channel that may be shut. */
    async drain(): Promise<void> {
      await Promise.allSettled([...pages])
    },
  }
}

export type LndInvoiceDesk = ReturnType<typeof lndInvoices>
