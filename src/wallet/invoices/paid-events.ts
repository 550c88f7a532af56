// What the event stream hears when one of the wallets' invoices is paid, over Lightning or internally.
import type { DomainEvent } from '../../bus/index.js'
import { msatAsSats } from '../../units/index.js'
import { userOperation } from '../user-operations.js'
import { extraOf, type InvoiceRow } from './store.js'

/** `invoice` as it reads after its paid mark; `balanceMsat` is the receiver's balance after the credit. */
export function invoicePaidEvents(invoice: InvoiceRow, balanceMsat: number): DomainEvent[] {
  const paidAt = invoice.paid_at!
  const internal = invoice.paid_internally === 1
  return [
    {
      type: 'invoice.paid',
      walletId: invoice.user_id,
      paymentHash: invoice.payment_hash,
      amountMsat: invoice.paid_msat!,
      extra: extraOf(invoice),
      paidAt,
      internal,
      zap: invoice.zap_request !== null,
      offer: invoice.offer_id !== null,
      callbackUrl: invoice.callback_url,
    },
    {
      type: 'user.operation',
      userId: invoice.user_id,
      operation: userOperation({
        type: 'INCOMING_INVOICE',
        serial: invoice.serial,
        amountMsat: invoice.paid_msat!,
        identifier: invoice.payment_request,
        paidAt,
        internal,
      }),
      latestBalanceSats: msatAsSats(balanceMsat),
    },
  ]
}
