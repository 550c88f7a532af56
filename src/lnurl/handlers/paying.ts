// Paying out to LNURL-pay links and Lightning addresses: ResolveLnurlPay tells what a destination asks, and
// GetLnurlPayInvoice fetches its invoice for an amount, checked; the caller pays that invoice with PayInvoice, so the
// money moves the way every payment does.
import type { HandlerTable } from '../../bus/index.js'
import type { GuardOptions } from '../../callbacks/index.js'
import { positiveSatsAsMsat } from '../../wallet/index.js'
import { fetchPayRequest, invoiceFrom, payRequestUrl } from '../pay-request-client.js'
import { msatAsSats, satsCovering } from '../../units/index.js'

export function payingHandlers({ guard }: { guard: GuardOptions }): HandlerTable {
  return {
    ResolveLnurlPay: async input => {
      const request = await fetchPayRequest(payRequestUrl(input.destination, guard), guard)
      return {
        domain: request.domain,
        description: request.description,
        // Whole sats inside the range: a person pays whole sats.
        min_sats: satsCovering(request.minMsat),
        max_sats: msatAsSats(request.maxMsat),
        comment_chars: request.commentChars,
      }
    },
    GetLnurlPayInvoice: async input => {
      const amountMsat = positiveSatsAsMsat(input.amount_sats, 'amount_sats')
      const request = await fetchPayRequest(payRequestUrl(input.destination, guard), guard)
      const { invoice, successAction } = await invoiceFrom(request, amountMsat, input.comment?.trim() ?? '', guard)
      return { invoice, ...(successAction ? { success_action: successAction } : {}) }
    },
  }
}
