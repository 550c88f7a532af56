// The swap operations while swaps run: quotes, lists and payments of the two desks. Types only from the desks,
// whose Bitcoin script libraries load with running-swaps.ts, not with this table.
import type { HandlerTable } from '../../bus/index.js'
import type { InvoiceSwapDesk } from '../invoice-swaps.js'
import type { TxSwapDesk } from '../tx-swaps.js'

export function swapHandlers({ txSwaps, invoiceSwaps }: { txSwaps: TxSwapDesk; invoiceSwaps: InvoiceSwapDesk }): HandlerTable {
  return {
    GetTransactionSwapQuotes: async (input, ctx) => ({ quotes: await txSwaps.quote(ctx.caller.userId, input.transaction_amount_sats) }),
    ListTxSwaps: async (_input, ctx) => ({ swaps: await txSwaps.list(ctx.caller.userId) }),
    GetAdminTransactionSwapQuotes: async input => ({ quotes: await txSwaps.quote(null, input.transaction_amount_sats) }),
    PayAdminTransactionSwap: async input => {
      const paid = await txSwaps.payForOperator({ address: input.address.trim(), swapOperationId: input.swap_operation_id })
      return { tx_id: paid.txId, network_fee: paid.networkFeeSats }
    },
    ListAdminTxSwaps: async () => ({ swaps: await txSwaps.list(null) }),
    GetAdminInvoiceSwapQuotes: async input => {
      const fees = input.fees_req?.fees
      return {
        quotes: await invoiceSwaps.quote({
          amountSats: input.amount_sats,
          ...(fees ? { fees: 'sat_per_v_byte' in fees ? { satPerVbyte: fees.sat_per_v_byte } : { targetConf: fees.target_conf } } : {}),
        }),
      }
    },
    ListAdminInvoiceSwaps: async () => invoiceSwaps.list(),
    PayAdminInvoiceSwap: async input =>
      invoiceSwaps.pay({
        swapOperationId: input.swap_operation_id,
        ...(input.sat_per_v_byte !== undefined ? { satPerVbyte: input.sat_per_v_byte } : {}),
        ...(input.no_claim !== undefined ? { noClaim: input.no_claim } : {}),
      }),
    RefundAdminInvoiceSwap: async input =>
      invoiceSwaps.refund({ swapOperationId: input.swap_operation_id, satPerVbyte: input.sat_per_v_byte }),
  }
}
