// Receiving: NewInvoice (the caller's wallet), AddAppInvoice (the application's owner wallet) and AddAppUserInvoice
// (an app user's wallet); docs/pub-protocol.md, "Money".
import type { Handler, HandlerTable } from '../../bus/index.js'
import { receiptRelays, validateZapRequest } from '../../nostr-codecs/index.js'
import type { AccountStore } from '../accounts.js'
import { appUserOf, appUserOrCreate } from '../app-users.js'
import { positiveSatsAsMsat } from '../msat.js'
import type { IssueInvoice } from '../invoices/issue.js'

export interface InvoiceHandlerDeps {
  accounts: AccountStore
  issue: IssueInvoice
  /** Why a relay a zap request names would not get the receipt (the outbound guard), or undefined when it would. */
  zapRelayRefusal(url: string): string | undefined
}

type InvoiceFields = Parameters<Handler<'NewInvoice'>>[0]

export function invoiceHandlers({ accounts, issue, zapRelayRefusal }: InvoiceHandlerDeps): HandlerTable {
  /**
   * The fields of upstream's NewInvoiceRequest, shared by the three operations. A zap request is checked as upstream
   * checks it (docs/pub-protocol.md, "LNURL and zaps"), and its relays by the outbound guard, when it is given: the
   * receipt goes to them once the invoice is paid.
   */
  const fromNewInvoiceRequest = (req: InvoiceFields) => {
    const amountMsat = positiveSatsAsMsat(req.amountSats, 'amountSats')
    if (req.zap !== undefined && req.zap !== '') receiptRelays(validateZapRequest(req.zap, amountMsat), zapRelayRefusal)
    return {
      amountMsat,
      memo: req.memo,
      ...(req.expiry !== undefined ? { expirySeconds: req.expiry } : {}),
      ...(req.blind !== undefined ? { blind: req.blind } : {}),
      ...(req.zap !== undefined && req.zap !== '' ? { zapRequest: req.zap } : {}),
    }
  }

  return {
    NewInvoice: async (input, ctx) => {
      const invoice = await issue({
        userId: ctx.caller.userId,
        appId: ctx.caller.appId,
        ...fromNewInvoiceRequest(input),
      })
      return { invoice: invoice.payment_request }
    },

    AddAppInvoice: async (input, ctx) => {
      const app = (await accounts.appById(ctx.caller.appId))!
      const fields = fromNewInvoiceRequest(input.invoice_req)
      const payer = input.payer_identifier.trim() === '' ? undefined : await appUserOrCreate(accounts, app.id, input.payer_identifier)
      const invoice = await issue({
        userId: app.owner_user_id,
        appId: app.id,
        ...fields,
        ...(payer ? { payerUserId: payer.user_id } : {}),
        callbackUrl: input.http_callback_url,
      })
      return { invoice: invoice.payment_request }
    },

    AddAppUserInvoice: async (input, ctx) => {
      const appId = ctx.caller.appId
      const fields = fromNewInvoiceRequest(input.invoice_req)
      const receiver = await appUserOf(accounts, appId, input.receiver_identifier)
      const payer = input.payer_identifier.trim() === '' ? undefined : await appUserOrCreate(accounts, appId, input.payer_identifier)
      const invoice = await issue({
        userId: receiver.user_id,
        appId,
        ...fields,
        ...(payer ? { payerUserId: payer.user_id } : {}),
        // Upstream: the URL in the request, else the one the receiver saved with UpdateCallbackUrl.
        callbackUrl: input.http_callback_url.trim() !== '' ? input.http_callback_url : receiver.callback_url,
        ...(input.token !== undefined ? { callbackToken: input.token } : {}),
        ...(input.rejectUnauthorized !== undefined ? { callbackRejectUnauthorized: input.rejectUnauthorized } : {}),
        ...(input.payer_data !== undefined ? { payerData: input.payer_data } : {}),
        ...(input.offer_string !== undefined ? { offerId: input.offer_string } : {}),
      })
      return { invoice: invoice.payment_request }
    },
  }
}
