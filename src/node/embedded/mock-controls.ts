// The embedded node's mock controls (`[node] mock = true`): settle one of its invoices as if a payment had
// arrived over Lightning (SetMockInvoiceAsPaid), and record a forward.
import { type Clock, OperationError } from '../../bus/index.js'
import type { Db } from '../../store/index.js'
import type { NodeMockControls, SettledInvoice } from '../lightning-node.js'
import { decodeInvoice } from './bolt11-invoice.js'
import type { ForwardLog } from './forwards.js'
import type { InvoiceBook } from './invoices.js'
import type { NodeKey } from './node-key.js'
import type { NetworkParams } from './network-params.js'
import { amountToPayMsat } from '../pay-request-rules.js'

export interface MockControlDeps {
  db: Db
  key: NodeKey
  params: NetworkParams
  invoices: InvoiceBook
  forwards: ForwardLog
  clock: Clock
  /** Called after commit with the settlement. */
  onSettled(settled: SettledInvoice): void
}

export function mockControls({ db, key, params, invoices, forwards, clock, onSettled }: MockControlDeps) {
  const settleExternally = db.transaction((paymentRequest: string, amountMsat?: number): SettledInvoice => {
    const decoded = decodeInvoice(paymentRequest, params)
    const invoice = decoded.payeePubkey === key.pubkey ? invoices.lookup(decoded.paymentHash) : undefined
    if (!invoice) throw new OperationError('not_found', 'invoice not found: this node did not issue it')
    if (invoice.state === 'paid') throw new OperationError('conflict', 'invoice is already paid')
    // An HTLC for an expired invoice is refused by the receiving node.
    if (clock.now() >= invoice.expiresAt) throw new OperationError('invalid_input', 'invoice expired')
    return invoices.settle(invoice.paymentHash, amountToPayMsat(invoice.amountMsat, amountMsat))
  })

  const controls: NodeMockControls = {
    async markInvoicePaidExternally(paymentRequest, amountMsat) {
      const settled = settleExternally(paymentRequest, amountMsat)
      onSettled(settled)
      return settled
    },
    async recordForward(forward) {
      return forwards.record(forward)
    },
  }
  return controls
}
