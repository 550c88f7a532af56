// Issuing an invoice for a wallet: the checks every receiving path shares, the node's invoice, and the row that
// remembers who is credited and what the callbacks, zaps, offers and extensions need once it is paid.
import { OperationError } from '../../bus/index.js'
import { checkCallbackUrl, type GuardOptions } from '../../callbacks/index.js'
import type { LightningNode } from '../../node/index.js'
import type { AccountStore } from '../accounts.js'
import type { GroupCommit } from '../group-commit.js'
import type { InvoiceRow, InvoiceStore } from './store.js'

/** Upstream caps longer expiries instead of refusing them, and uses the cap as the default. */
export const maxExpirySeconds = 3600
/** `extra` is for small references (an order id, a payroll run); the host API bounds it at 4 KiB. */
export const maxExtraBytes = 4096

export interface InvoiceRequest {
  /** The wallet credited when the invoice is paid. */
  userId: string
  appId?: string | null
  amountMsat: number
  memo: string
  expirySeconds?: number
  descriptionHash?: string
  blind?: boolean
  payerUserId?: string
  productId?: string
  offerId?: string
  callbackUrl?: string
  callbackToken?: string
  callbackRejectUnauthorized?: boolean
  payerData?: unknown
  zapRequest?: string
  extra?: Record<string, unknown>
}

export interface InvoiceIssuerDeps {
  node: LightningNode
  accounts: AccountStore
  invoices: InvoiceStore
  /**
   * The row is written in the wallet's shared transaction: under `synchronous = full` an insert of its own paid
   * for an fsync on the event loop, which held every other request while invoices were made. The caller still hears
   * of the invoice only once its row is on disk.
   */
  commits: GroupCommit
  now(): number
  /** The SSRF guard's options for the callback URL an invoice is given (`[callbacks] allow_loopback`). */
  callbackGuard: GuardOptions
}

export type IssueInvoice = (request: InvoiceRequest) => Promise<InvoiceRow>

export function invoiceIssuer({ node, accounts, invoices, commits, now, callbackGuard }: InvoiceIssuerDeps): IssueInvoice {
  return async request => {
    const user = await accounts.userById(request.userId)
    if (!user) throw new OperationError('not_found', 'wallet not found')
    if (user.locked) throw new OperationError('forbidden', 'user is locked')
    if (!Number.isSafeInteger(request.amountMsat) || request.amountMsat <= 0) {
      throw new OperationError('invalid_input', 'amount must be greater than 0')
    }
    const expirySeconds = cappedExpiry(request.expirySeconds)
    const extra = request.extra === undefined ? null : extraJson(request.extra)
    // Checked before the node makes the invoice: a URL the guard refuses is the caller's error now, not a
    // callback silently dropped when the invoice is paid.
    const callbackUrl = checkCallbackUrl(request.callbackUrl ?? '', callbackGuard, 'http_callback_url')

    const created = await node.createInvoice({
      amountMsat: request.amountMsat,
      ...(request.descriptionHash !== undefined ? { descriptionHash: request.descriptionHash } : { description: request.memo }),
      expirySeconds,
      blinded: request.blind ?? false,
    })
    const row = {
      paymentHash: created.paymentHash,
      paymentRequest: created.paymentRequest,
      userId: user.id,
      appId: request.appId ?? null,
      amountMsat: request.amountMsat,
      memo: request.memo,
      descriptionHash: created.descriptionHash ?? null,
      createdAt: now(),
      expiresAt: created.expiresAt,
      payerUserId: request.payerUserId ?? null,
      productId: request.productId ?? null,
      offerId: request.offerId ?? null,
      callbackUrl,
      callbackToken: request.callbackToken ?? null,
      callbackRejectUnauthorized: request.callbackRejectUnauthorized ?? true,
      payerData: request.payerData === undefined ? null : JSON.stringify(request.payerData),
      zapRequest: request.zapRequest ?? null,
      blind: request.blind ?? false,
      extra,
    }
    return commits.run(tx => invoices.insert(tx, row))
  }
}

function cappedExpiry(seconds: number | undefined): number {
  if (seconds === undefined) return maxExpirySeconds
  if (!Number.isSafeInteger(seconds) || seconds <= 0) {
    throw new OperationError('invalid_input', 'expiry must be a positive number of seconds')
  }
  return Math.min(seconds, maxExpirySeconds)
}

function extraJson(extra: Record<string, unknown>): string {
  if (typeof extra !== 'object' || extra === null || Array.isArray(extra)) {
    throw new OperationError('invalid_input', 'extra must be a JSON object')
  }
  const json = JSON.stringify(extra)
  if (Buffer.byteLength(json, 'utf8') > maxExtraBytes) {
    throw new OperationError('invalid_input', `extra is too large: at most ${maxExtraBytes} bytes of JSON`)
  }
  return json
}
