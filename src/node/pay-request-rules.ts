// What a payment request must hold, with LND's rules and words (lnrpc.SendPaymentV2): the same for the embedded
// node and for LND, so a wallet meets one rule whichever node it runs on.
import { OperationError } from '../bus/index.js'
import type { PayRequest } from './lightning-node.js'

/** The fee limit and the timeout: whole numbers, the timeout above zero. */
export function checkPayLimits(request: Pick<PayRequest, 'maxFeeMsat' | 'timeoutMs'>): void {
  if (!Number.isSafeInteger(request.maxFeeMsat) || request.maxFeeMsat < 0) {
    throw new OperationError('invalid_input', 'maxFeeMsat must be a non-negative integer')
  }
  if (!Number.isSafeInteger(request.timeoutMs) || request.timeoutMs <= 0) {
    throw new OperationError('invalid_input', 'timeoutMs must be a positive integer')
  }
}

/**
 * An open-amount invoice needs an amount; an invoice with an amount is paid exactly that. Restating the invoice's
 * own amount is tolerated here, though LND itself would refuse any amount on such an invoice (the LND client then
 * sends none).
 */
export function amountToPayMsat(invoiceAmountMsat: number | undefined, requestedMsat: number | undefined): number {
  if (requestedMsat !== undefined && (!Number.isSafeInteger(requestedMsat) || requestedMsat < 0)) {
    throw new OperationError('invalid_input', 'amount must be a non-negative integer number of msat')
  }
  if (invoiceAmountMsat === undefined) {
    if (!requestedMsat) {
      throw new OperationError('invalid_input', 'amount must be specified when paying a zero amount invoice')
    }
    return requestedMsat
  }
  if (requestedMsat && requestedMsat !== invoiceAmountMsat) {
    throw new OperationError('invalid_input', 'amount must not be specified when paying a non-zero amount invoice')
  }
  return invoiceAmountMsat
}
