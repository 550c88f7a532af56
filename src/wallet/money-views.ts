// What other rooms (the host API, extensions, LNURL, callbacks) may ask of the wallet's money: issue an invoice
// for a wallet, pay one from a wallet, and read invoices and payments by payment hash. Plain values, never rows.
import type { InvoicePayer } from './payments/pay-invoice.js'
import { paymentOperation, type PaymentRow, type PaymentStore } from './payments/store.js'
import type { SpendLimit } from './spend-limit.js'
import type { UserOperation } from './user-operations.js'
import type { IssueInvoice } from './invoices/issue.js'
import { extraOf, type InvoiceRow, type InvoiceStore } from './invoices/store.js'

export interface InvoiceForWallet {
  amountMsat: number
  memo: string
  /** Capped at 3600 (the default). */
  expirySeconds?: number
  /** JSON object ≤ 4 KiB, returned with the invoice.paid event (`tag` names an extension). */
  extra?: Record<string, unknown>
  /** 32-byte hex committed to instead of the memo (LUD-06 metadata, NIP-57 zap requests). */
  descriptionHash?: string
  /** A kind-9734 zap request, kept for the zap receipt. */
  zapRequest?: string
  /** The application the invoice is issued through, if any. */
  appId?: string
  /** The CLINK offer it answers (GetUserOfferInvoices lists it under that offer). */
  offerId?: string
  /** What the payer supplied (a flat object of strings; expanded into the paid-callback URL). */
  payerData?: Record<string, string>
  /** The paid-invoice callback for this invoice (checked by the SSRF guard when it is called). */
  callback?: { url: string; token?: string; rejectUnauthorized?: boolean }
  /** Blinded paths instead of route hints. */
  blind?: boolean
}

/** An invoice issued for a CLINK offer, as GetUserOfferInvoices lists it. */
export interface OfferInvoiceView {
  paymentRequest: string
  offerId: string
  paidAt: number | null
  paidMsat: number | null
  payerData: Record<string, string>
}

export interface CreatedInvoice {
  paymentHash: string
  paymentRequest: string
  amountMsat: number
  expiresAt: number
}

export interface WalletInvoice {
  walletId: string
  appId: string | null
  paymentHash: string
  paymentRequest: string
  amountMsat: number
  memo: string
  descriptionHash: string | null
  createdAt: number
  expiresAt: number
  paid: boolean
  paidAt: number | null
  paidMsat: number | null
  /** Paid from another wallet of this service (true) or over Lightning (false); null while unpaid. */
  internal: boolean | null
  payerWalletId: string | null
  productId: string | null
  offerId: string | null
  callback: { url: string; token: string | null; rejectUnauthorized: boolean }
  payerData: unknown
  zapRequest: string | null
  extra: Record<string, unknown> | null
}

export interface WalletPayment {
  walletId: string
  operationSerial: number
  paymentHash: string
  paymentRequest: string
  amountMsat: number
  serviceFeeMsat: number
  routingFeeMsat: number | null
  status: 'pending' | 'succeeded' | 'failed'
  /** Hex; empty for an internal payment (as upstream), null until known. */
  preimage: string | null
  failureReason: string | null
  internal: boolean
  createdAt: number
  resolvedAt: number | null
}

/** A paid invoice as extension listeners receive it. */
export interface WalletPaidInvoice {
  walletId: string
  paymentHash: string
  amountMsat: number
  extra: Record<string, unknown>
  paidAt: number
  internal: boolean
}

export interface MoneyViewDeps {
  issue: IssueInvoice
  payer: InvoicePayer
  invoices: InvoiceStore
  payments: PaymentStore
}

export function walletMoneyViews({ issue, payer, invoices, payments }: MoneyViewDeps) {
  return {
    /** Issues an invoice credited to `walletId` when paid (host API, extensions, LNURL). */
    async createInvoiceFor(walletId: string, request: InvoiceForWallet): Promise<CreatedInvoice> {
      const row = await issue({
        userId: walletId,
        amountMsat: request.amountMsat,
        memo: request.memo,
        ...(request.appId !== undefined ? { appId: request.appId } : {}),
        ...(request.expirySeconds !== undefined ? { expirySeconds: request.expirySeconds } : {}),
        ...(request.extra !== undefined ? { extra: request.extra } : {}),
        ...(request.descriptionHash !== undefined ? { descriptionHash: request.descriptionHash } : {}),
        ...(request.zapRequest !== undefined ? { zapRequest: request.zapRequest } : {}),
        ...(request.offerId !== undefined ? { offerId: request.offerId } : {}),
        ...(request.payerData !== undefined ? { payerData: request.payerData } : {}),
        ...(request.blind !== undefined ? { blind: request.blind } : {}),
        ...(request.callback !== undefined
          ? {
              callbackUrl: request.callback.url,
              ...(request.callback.token ? { callbackToken: request.callback.token } : {}),
              ...(request.callback.rejectUnauthorized !== undefined ? { callbackRejectUnauthorized: request.callback.rejectUnauthorized } : {}),
            }
          : {}),
      })
      return {
        paymentHash: row.payment_hash,
        paymentRequest: row.payment_request,
        amountMsat: row.amount_msat,
        expiresAt: row.expires_at,
      }
    },

    /**
     * Pays an invoice that carries an amount from `walletId`, with the same fees, checks and ledger as PayInvoice.
     * Throws OperationError on refusal; an external payment whose outcome is not known yet also throws
     * (`upstream_failed`) and stays pending until the node knows. `spendLimit` is the caller's own limit, checked
     * in the transaction that debits the wallet.
     */
    async payInvoiceFor(
      walletId: string,
      paymentRequest: string,
      opts: { spendLimit?: SpendLimit } = {},
    ): Promise<WalletPayment & { feeMsat: number }> {
      const { payment } = await payer.pay(walletId, { invoice: paymentRequest, amountSats: 0, ...opts })
      return { ...paymentView(payment), feeMsat: payment.service_fee_msat }
    },

    /** The invoices issued to `walletId` for a CLINK offer, oldest first; only the paid ones unless asked. */
    async offerInvoices(walletId: string, offerId: string, includeUnpaid: boolean): Promise<OfferInvoiceView[]> {
      return (await invoices.forOffer(walletId, offerId, includeUnpaid)).map(row => ({
        paymentRequest: row.payment_request,
        offerId: row.offer_id!,
        paidAt: row.paid_at,
        paidMsat: row.paid_msat,
        payerData: stringsOf(row.payer_data === null ? null : JSON.parse(row.payer_data)),
      }))
    },

    async invoiceByPaymentHash(paymentHash: string): Promise<WalletInvoice | undefined> {
      const row = await invoices.byHash(paymentHash)
      return row && invoiceView(row)
    },

    async paymentByHash(paymentHash: string): Promise<WalletPayment | undefined> {
      const row = await payments.byHash(paymentHash)
      return row && paymentView(row)
    },

    /** A payment as the wallet's operation history shows it (UserOperation), or undefined. */
    async paymentOperationByHash(paymentHash: string): Promise<UserOperation | undefined> {
      const row = await payments.byHash(paymentHash)
      return row && paymentOperation(row)
    },

    /** Deletes an unpaid invoice of an extension (`extra.tag`) that expired by `now`; see InvoiceStore.forgetExpired. */
    forgetExpiredInvoice: (paymentHash: string, tag: string, now: number) => invoices.forgetExpired(paymentHash, tag, now),

    /** Every paid invoice whose `extra.tag` is `tag`, oldest first (re-delivery to extensions at start). */
    async paidInvoicesTagged(tag: string): Promise<WalletPaidInvoice[]> {
      return (await invoices.paidTagged(tag)).map(row => ({
        walletId: row.user_id,
        paymentHash: row.payment_hash,
        amountMsat: row.paid_msat!,
        extra: extraOf(row)!,
        paidAt: row.paid_at!,
        internal: row.paid_internally === 1,
      }))
    },
  }
}

/** The string entries of stored payer data; AddAppUserInvoice keeps upstream's `{data: {…}}` wrapper. */
function stringsOf(payerData: unknown): Record<string, string> {
  if (typeof payerData !== 'object' || payerData === null) return {}
  const inner = (payerData as { data?: unknown }).data
  const source = typeof inner === 'object' && inner !== null ? inner : payerData
  return Object.fromEntries(Object.entries(source).filter(([, v]) => typeof v === 'string')) as Record<string, string>
}

function invoiceView(row: InvoiceRow): WalletInvoice {
  return {
    walletId: row.user_id,
    appId: row.app_id,
    paymentHash: row.payment_hash,
    paymentRequest: row.payment_request,
    amountMsat: row.amount_msat,
    memo: row.memo,
    descriptionHash: row.description_hash,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    paid: row.paid_at !== null,
    paidAt: row.paid_at,
    paidMsat: row.paid_msat,
    internal: row.paid_internally === null ? null : row.paid_internally === 1,
    payerWalletId: row.payer_user_id,
    productId: row.product_id,
    offerId: row.offer_id,
    callback: { url: row.callback_url, token: row.callback_token, rejectUnauthorized: row.callback_reject_unauthorized === 1 },
    payerData: row.payer_data === null ? null : JSON.parse(row.payer_data),
    zapRequest: row.zap_request,
    extra: extraOf(row),
  }
}

function paymentView(row: PaymentRow): WalletPayment {
  return {
    walletId: row.user_id,
    operationSerial: row.serial,
    paymentHash: row.payment_hash,
    paymentRequest: row.payment_request,
    amountMsat: row.amount_msat,
    serviceFeeMsat: row.service_fee_msat,
    routingFeeMsat: row.routing_fee_msat,
    status: row.status,
    preimage: row.preimage,
    failureReason: row.failure_reason,
    internal: row.internal === 1,
    createdAt: row.created_at,
    resolvedAt: row.resolved_at,
  }
}
