// LND's invoices as the daemon sees them: issuing and decoding on our own gRPC channel (grpc-channel.ts), looking up and
// reading LND's whole invoice list (when a settlement subscriber knows no settle index yet) through the `lightning`
// package. LND is the authority on every rule (expiry, network, signature); this file checks only what our
// interface promises beyond LND and maps the results.
import { getInvoice, getInvoices, type AuthenticatedLnd } from 'lightning'
import { type Clock, OperationError } from '../../bus/index.js'
import { validInvoiceRequest } from '../invoice-request.js'
import type { BitcoinNetwork, CreateInvoiceRequest, DecodedInvoice, NodeInvoice, SettledInvoice } from '../lightning-node.js'
import { refuseNonInvoice } from '../invoice-text.js'
import { describeLndFailure, grpcStatus, isLocked, isMacaroonRefused, isStarting, isUnreachable, lndError } from './lnd-errors.js'
import type { GrpcChannel } from './grpc-channel.js'
import { decodeAddInvoiceReply, decodePayReq, encodeAddInvoice, encodePayReqString, type AddInvoiceRequest, type AddInvoiceReply, type PayReq } from './rpc-messages.js'

/**
 * AddInvoice, not the library's createInvoice: that one parses the new request twice (each parse recovers the
 * signer's key, ~0.3 ms of CPU) and then asks LND for the invoice once more (LookupInvoice) to learn what
 * AddInvoice's answer already holds.
 */
async function addInvoice(rpc: GrpcChannel, request: AddInvoiceRequest): Promise<AddInvoiceReply> {
  let reply: AddInvoiceReply
  try {
    reply = await rpc.unary('/lnrpc.Lightning/AddInvoice', encodeAddInvoice, decodeAddInvoiceReply, request)
  } catch (err) {
    throw lndError('create an invoice', err)
  }
  if (!reply.paymentRequest || reply.rHash.length !== 32) {
    throw new OperationError('upstream_failed', 'LND could not create an invoice: its answer has no payment request or hash')
  }
  return reply
}

/** DecodePayReq, with the checks the library's decodePaymentRequest made of LND's answer. */
async function decodePayReqOf(rpc: GrpcChannel, request: string): Promise<PayReq> {
  let payReq: PayReq
  try {
    payReq = await rpc.unary('/lnrpc.Lightning/DecodePayReq', encodePayReqString, decodePayReq, request)
  } catch (err) {
    // LND answering with a refusal is the caller's mistake, whatever its reason (wrong network, bad checksum, …);
    // an LND that cannot be asked is not.
    const failure = describeLndFailure(err)
    if (failure.grpcCode === undefined || isUnreachable(failure) || isStarting(failure) || isLocked(failure) || isMacaroonRefused(failure)) {
      throw lndError('decode an invoice', err)
    }
    if (/network/.test(failure.details ?? '')) throw new OperationError('invalid_input', failure.details!)
    throw new OperationError('invalid_input', `invalid payment request: ${failure.details || 'LND cannot read it'}`)
  }
  const missing = !payReq.destination
    ? 'destination'
    : !/^[0-9a-f]{64}$/.test(payReq.paymentHash)
      ? 'payment hash'
      : !payReq.timestamp
        ? 'timestamp'
        : !payReq.expirySeconds
          ? 'expiry'
          : undefined
  if (missing) throw new OperationError('upstream_failed', `LND could not decode an invoice: its answer has no ${missing}`)
  return payReq
}

const bech32Charset = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l'

/**
 * The creation time of a BOLT11 request, in unix seconds: the first 35 bits after the separator. Read without the
 * signature check, for requests LND has just handed us.
 */
export function bolt11TimestampSeconds(request: string): number {
  const data = request.lastIndexOf('1')
  let seconds = 0
  for (let i = data + 1; i < data + 8; i++) {
    const word = bech32Charset.indexOf(request.charAt(i).toLowerCase())
    if (word < 0) throw new OperationError('upstream_failed', 'LND answered with a payment request that cannot be read')
    seconds = seconds * 32 + word
  }
  return seconds
}

/** DecodePayReq answers kept (a few hundred bytes each). */
const recentDecodesKept = 256

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

export function lndInvoices({ lnd, rpc, clock, network }: { lnd: AuthenticatedLnd; rpc: GrpcChannel; clock: Clock; network: BitcoinNetwork }) {
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

  // LND's reading of a request never changes, and a payment asks twice (the wallet, to tell our invoices from
  // others', then the payment for the feature bits): the last few answers are kept, failures are not.
  const recentDecodes = new Map<string, Promise<PayReq>>()
  const decodedOnce = (request: string): Promise<PayReq> => {
    const known = recentDecodes.get(request)
    if (known) return known
    const decoding = decodePayReqOf(rpc, request)
    recentDecodes.set(request, decoding)
    if (recentDecodes.size > recentDecodesKept) recentDecodes.delete(recentDecodes.keys().next().value!)
    decoding.catch(() => {
      if (recentDecodes.get(request) === decoding) recentDecodes.delete(request)
    })
    return decoding
  }

  const decodeForPayment = async (paymentRequest: string): Promise<{ invoice: DecodedInvoice; featureBits: number[] }> => {
    refuseNonInvoice(paymentRequest, network)
    const request = paymentRequest.trim().toLowerCase()
    const decoded = await decodedOnce(request)
    const createdAt = decoded.timestamp * 1000
    const invoice: DecodedInvoice = {
      paymentRequest: request,
      paymentHash: decoded.paymentHash,
      payeePubkey: decoded.destination,
      ...(decoded.numMsat > 0 ? { amountMsat: decoded.numMsat } : {}),
      ...(decoded.descriptionHash
        ? { descriptionHash: decoded.descriptionHash }
        : { description: decoded.description }),
      createdAt,
      expiresAt: createdAt + decoded.expirySeconds * 1000,
      minFinalCltvExpiry: decoded.cltvExpiry,
      ...(decoded.paymentAddr.length > 0 ? { paymentAddr: decoded.paymentAddr.toString('hex') } : {}),
    }
    return { invoice, featureBits: [...decoded.featureBits] }
  }

  return {
    async create(request: CreateInvoiceRequest): Promise<NodeInvoice> {
      const fields = validInvoiceRequest(request)
      const created = await addInvoice(rpc, {
        valueMsat: fields.amountMsat ?? 0,
        ...(fields.descriptionHash !== undefined
          ? { descriptionHash: Buffer.from(fields.descriptionHash, 'hex') }
          : { memo: fields.description ?? '' }),
        expirySeconds: fields.expirySeconds,
        isBlinded: request.blinded === true,
      })
      // LND stamps the invoice with its own clock; the request carries that stamp, and the expiry is ours.
      const createdAt = bolt11TimestampSeconds(created.paymentRequest) * 1000
      return {
        paymentHash: created.rHash.toString('hex'),
        paymentRequest: created.paymentRequest,
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
      return (await decodeForPayment(paymentRequest)).invoice
    },

    /** The decoded invoice and the feature bits it sets, which a payment checks. */
    decodeForPayment,

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
