// PayInvoice (the caller's wallet), PayAppUserInvoice (an app user's wallet, by the app) and GetPaymentState.
import { OperationError, type HandlerTable } from '../../bus/index.js'
import type { LightningNode } from '../../node/index.js'
import type { AccountStore } from '../accounts.js'
import { appUserOf } from '../app-users.js'
import type { InvoiceStore } from '../invoices/store.js'
import { msatAsSats, unixSeconds } from '../../units/index.js'
import { operationId } from '../user-operations.js'
import type { InvoicePayer, PaidInvoice } from '../payments/pay-invoice.js'
import { paymentOperation, type PaymentStore } from '../payments/store.js'
import type { SpendLimit } from '../spend-limit.js'

export interface PaymentHandlerDeps {
  accounts: AccountStore
  invoices: InvoiceStore
  payer: InvoicePayer
  payments: PaymentStore
  node: LightningNode
  /** See WalletDeps.debitLimit. */
  debitLimit?: (payment: { payerId: string; appId: string; debitNpub: string }) => SpendLimit
}

/** Upstream's answer, with the extra `operation` record its server adds beside the declared fields. */
function payAnswer({ payment, payerBalanceMsat }: PaidInvoice) {
  const answer = {
    preimage: payment.preimage ?? '',
    amount_paid: msatAsSats(payment.amount_msat),
    operation_id: operationId('OUTGOING_INVOICE', payment.serial),
    service_fee: msatAsSats(payment.service_fee_msat),
    network_fee: 0, // upstream always answers 0 here; the routing fee is in `operation.network_fee`
    latest_balance: msatAsSats(payerBalanceMsat),
    operation: paymentOperation(payment),
  }
  return answer
}

export function paymentHandlers({ accounts, invoices, payer, payments, node, debitLimit }: PaymentHandlerDeps): HandlerTable {
  /** A payment naming `debit_npub` counts against that key's debit grant, checked in the payment's transaction. */
  const limitFor = (payerId: string, appId: string, debitNpub: string | undefined): { spendLimit?: SpendLimit } => {
    if (debitNpub === undefined || debitNpub === '') return {}
    if (!debitLimit) throw new OperationError('not_implemented', 'payments attributed to a debit key (debit_npub) are not available')
    return { spendLimit: debitLimit({ payerId, appId, debitNpub }) }
  }

  return {
    PayInvoice: async (input, ctx) =>
      payAnswer(
        await payer.pay(ctx.caller.userId, {
          invoice: input.invoice,
          amountSats: input.amount,
          ...(input.expected_fees ? { expectedFees: input.expected_fees } : {}),
          ...limitFor(ctx.caller.userId, ctx.caller.appId, input.debit_npub),
        }),
      ),

    PayAppUserInvoice: async (input, ctx) => {
      const appUser = await appUserOf(accounts, ctx.caller.appId, input.user_identifier)
      return payAnswer(
        await payer.pay(appUser.user_id, {
          invoice: input.invoice,
          amountSats: input.amount,
          ...(input.expected_fees ? { expectedFees: input.expected_fees } : {}),
          ...limitFor(appUser.user_id, ctx.caller.appId, input.debit_npub),
        }),
      )
    },

    GetPaymentState: async (input, ctx) => {
      // The caller's latest attempt at this invoice; the invoices of this service give their text without a decode.
      const own = await invoices.byRequest(input.invoice)
      const invoice = own
        ? { hash: own.payment_hash, request: own.payment_request }
        : await node.decodeInvoice(input.invoice.trim()).then(decoded => ({ hash: decoded.paymentHash, request: decoded.paymentRequest }))
      const payment = await payments.latestOfPayer(invoice.hash, invoice.request, ctx.caller.userId)
      if (!payment) throw new OperationError('not_found', 'payment not found')
      return {
        paid_at_unix: payment.status === 'succeeded' ? unixSeconds(payment.resolved_at!) : payment.status === 'pending' ? 0 : -1,
        amount: msatAsSats(payment.amount_msat),
        service_fee: msatAsSats(payment.service_fee_msat),
        network_fee: 0, // as upstream
        internal: payment.internal === 1,
        operation_id: operationId('OUTGOING_INVOICE', payment.serial),
      }
    },
  }
}
