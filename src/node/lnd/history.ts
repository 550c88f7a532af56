// LND's own record of what the node did, a page at a time and newest first: ListPayments, ListInvoices and
// GetTransactions with their index offsets, for the operator's assets-and-liabilities report. Called through the
// package's gRPC client (the package's helpers page by opaque tokens and hide LND's indexes, which the report hands
// back to its caller as cursors). An admin call, not a payment path: proto-loader's strings for 64-bit fields are fine.
import type { AuthenticatedLnd } from 'lightning'
import type {
  ChainHistoryPage,
  ChainHistoryRequest,
  HistoryPage,
  HistoryPageRequest,
  NodeInvoiceRecord,
  NodePaymentRecord,
} from '../node-history.js'
import { lndError } from './lnd-errors.js'

type Long = string | number

interface LndPayment {
  payment_hash: string
  payment_request: string
  value_sat: Long
  creation_time_ns: Long
  status: string
}

interface LndInvoiceListed {
  r_hash: Buffer
  payment_request: string
  state: string
  settle_date: Long
  amt_paid_sat: Long
}

interface LndTransaction {
  tx_hash: string
  amount: Long
  time_stamp: Long
  output_details: { address: string; amount: Long; output_index: Long; is_our_address: boolean }[]
  previous_outpoints: { outpoint: string; is_our_output: boolean }[]
}

/** Calls one unary method of the package's lnrpc client. */
function unary<T>(lnd: AuthenticatedLnd, method: string, request: object): Promise<T> {
  return new Promise((resolve, reject) => {
    const client = lnd.default as unknown as Record<string, (req: object, cb: (err: unknown, res: T) => void) => void>
    client[method].call(lnd.default, request, (err, res) => (err ? reject(err) : resolve(res)))
  })
}

const num = (value: Long | undefined) => Number(value ?? 0)

export function lndHistory({ lnd }: { lnd: AuthenticatedLnd }) {
  return {
    async listPayments({ indexOffset, max }: HistoryPageRequest): Promise<HistoryPage<NodePaymentRecord>> {
      try {
        // Without include_incomplete LND lists the succeeded payments only.
        const res = await unary<{ payments: LndPayment[]; first_index_offset: Long }>(lnd, 'listPayments', {
          include_incomplete: false,
          index_offset: indexOffset,
          max_payments: max,
          reversed: true,
        })
        return {
          items: res.payments.map(p => ({
            paymentHash: p.payment_hash,
            paymentRequest: p.payment_request,
            valueSats: num(p.value_sat),
            createdAtSeconds: Math.floor(num(p.creation_time_ns) / 1e9),
            succeeded: p.status === 'SUCCEEDED',
          })),
          firstIndexOffset: num(res.first_index_offset),
        }
      } catch (err) {
        throw lndError('list its payments', err)
      }
    },

    async listInvoices({ indexOffset, max }: HistoryPageRequest): Promise<HistoryPage<NodeInvoiceRecord>> {
      try {
        const res = await unary<{ invoices: LndInvoiceListed[]; first_index_offset: Long }>(lnd, 'listInvoices', {
          index_offset: indexOffset,
          num_max_invoices: max,
          reversed: true,
        })
        return {
          items: res.invoices.map(i => ({
            paymentHash: Buffer.from(i.r_hash).toString('hex'),
            paymentRequest: i.payment_request,
            settled: i.state === 'SETTLED',
            settledAtSeconds: num(i.settle_date),
            paidSats: num(i.amt_paid_sat),
          })),
          firstIndexOffset: num(res.first_index_offset),
        }
      } catch (err) {
        throw lndError('list its invoices', err)
      }
    },

    async listChainTransactions({ startHeight, indexOffset, max }: ChainHistoryRequest): Promise<ChainHistoryPage> {
      try {
        // A start above the end reads the chain backwards, newest first. The end is block 1, not 0: LND reads an
        // end of 0 as "to the tip and the mempool", which from a start at the tip lists only the newest block.
        const res = await unary<{ transactions: LndTransaction[] }>(lnd, 'getTransactions', {
          start_height: startHeight,
          end_height: 1,
          index_offset: indexOffset,
          max_transactions: max,
        })
        return {
          transactions: res.transactions.map(tx => ({
            txHash: tx.tx_hash,
            amountSats: num(tx.amount),
            timeStampSeconds: num(tx.time_stamp),
            outputs: tx.output_details.map(o => ({
              address: o.address,
              amountSats: num(o.amount),
              outputIndex: num(o.output_index),
              ours: o.is_our_address,
            })),
            spendsOurs: tx.previous_outpoints.some(p => p.is_our_output),
          })),
          // LND's first_index is the offset it was given and last_index its last item's: the next window starts
          // after the last, which first_index would only repeat.
          nextIndexOffset: indexOffset + res.transactions.length,
        }
      } catch (err) {
        throw lndError('list its chain transactions', err)
      }
    },
  }
}
