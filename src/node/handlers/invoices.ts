// Invoice operations answered by the node alone: DecodeInvoice (users) and SetMockInvoiceAsPaid (test mode).
import { mockDisabledReason, OperationError, type HandlerTable } from '../../bus/index.js'
import type { LightningNode } from '../lightning-node.js'
import { requireNonNegative } from './input-rules.js'
import { msatAsSats } from '../../units/index.js'


/** How long SetMockInvoiceAsPaid waits for the wallet's credit before it answers anyway. */
const creditWaitMs = 5000

export function invoiceHandlers(
  node: LightningNode,
  settlementApplied?: (settleIndex: number, withinMs: number, paymentHash?: string) => Promise<void>,
): HandlerTable {
  return {
    DecodeInvoice: async input => {
      const decoded = await node.decodeInvoice(input.invoice)
      // LND's num_satoshis: whole sats, rounded down; 0 for an invoice that leaves the amount to the payer.
      return { amount: msatAsSats(decoded.amountMsat ?? 0) }
    },

    SetMockInvoiceAsPaid: async input => {
      const mock = node.mock
      if (!mock) throw new OperationError('forbidden', mockDisabledReason)
      requireNonNegative(input.amount, 'amount')
      if (!Number.isSafeInteger(input.amount * 1000)) throw new OperationError('invalid_input', 'amount is too large')
      const decoded = await node.decodeInvoice(input.invoice)
      // The historical mock's rules: an invoice with an amount is paid exactly that, so any amount sent with it is
      // a mistake; an open-amount invoice needs the amount the payer chose.
      if (decoded.amountMsat !== undefined && input.amount > 0) {
        throw new OperationError('invalid_input', 'amount must be 0: the invoice already carries an amount')
      }
      if (decoded.amountMsat === undefined && input.amount === 0) {
        throw new OperationError('invalid_input', 'amount is required: the invoice does not carry an amount')
      }
      let settled
      try {
        settled = await mock.markInvoicePaidExternally(
          decoded.paymentRequest,
          decoded.amountMsat === undefined ? input.amount * 1000 : undefined,
        )
      } catch (err) {
        // Already paid: a caller retrying after a crash (the node settled it, the daemon died before the wallet's
        // credit) reads the balance next. The credit follows the node's settlement on restart; the refusal waits
        // for it as the success does, so that "already paid" means the balance shows it, and answers at once when
        // the wallet has it paid already (credited by an earlier run, which this one's count of applied
        // settlements does not know: it waited out the whole limit then).
        if (err instanceof OperationError && err.code === 'conflict') {
          const paid = await node.lookupInvoice(decoded.paymentHash)
          if (paid?.settleIndex !== undefined) await settlementApplied?.(paid.settleIndex, creditWaitMs, decoded.paymentHash)
        }
        throw err
      }
      // The wallet credits settlements in its own transactions after the node reports them: answer once the
      // payee's balance shows this one, as a caller of a test-mode "paid" expects.
      await settlementApplied?.(settled.settleIndex, creditWaitMs)
      return {}
    },
  }
}
