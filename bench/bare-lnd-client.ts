// The bare client of bench/payments-regtest.ts: plain @grpc/grpc-js clients on one LND node of a regtest network,
// built the way relaypay builds its `lightning` clients (authenticatedLndGrpc: the .proto files the `lightning`
// package ships, read by @grpc/proto-loader, TLS pinned to the node's tls.cert, the admin macaroon on each call).
// It makes the LND calls relaypay makes on each path, with the fields relaypay sends, and nothing else, so that
// what it reaches is what LND gives; and it is B's payer, so that B's payments do not start a process each.
import fs from 'node:fs'
import { authenticatedLndGrpc } from 'lightning'
import type { NodeName, Regtest } from '../test/support/regtest/index.js'

/** What relaypay asks for a user's invoice (src/wallet/invoices/issue.ts caps and defaults the expiry to an hour). */
export const invoiceExpirySeconds = 3600
/** SendPaymentV2 as relaypay sends it (src/node/lnd/payments.ts): one part, 25 s of pathfinding, cancelable. */
const relaypayPayment = { timeout_seconds: 25, max_parts: 1, allow_self_payment: true, cancelable: true }
/** The outside world's payments: a fee limit no route here reaches, and only the final update. */
const outsidePayment = { timeout_seconds: 60, fee_limit_sat: '100', no_inflight_updates: true }

interface GrpcStream {
  on(event: 'data', listener: (message: any) => void): this
  on(event: 'error', listener: (err: Error) => void): this
  on(event: 'end', listener: () => void): this
  cancel(): void
}

export interface CreatedInvoice {
  paymentRequest: string
  paymentHash: string
}

export interface BareLnd {
  /** AddInvoice with relaypay's fields: memo, value_msat and expiry. */
  addInvoice(amountMsat: number, memo: string): Promise<CreatedInvoice>
  /**
   * relaypay's external payment: DecodePayReq, then SendPaymentV2 with its parameters read to the stream's end.
   * Resolves with the last status LND sent (SUCCEEDED, FAILED).
   */
  payLikeRelaypay(paymentRequest: string, feeLimitMsat: number): Promise<string>
  /** The outside world paying: SendPaymentV2 to the stream's end; the last status. */
  pay(paymentRequest: string): Promise<string>
  /** SubscribeInvoices from now on; `settled` hears the hash of each invoice LND settles, `failed` why it ended. */
  subscribeSettlements(settled: (paymentHash: string) => void, failed: (err: Error) => void): { close(): void }
  close(): void
}

export function bareLnd(net: Regtest, name: NodeName): BareLnd {
  const node = net.node(name)
  const { lnd } = authenticatedLndGrpc({
    socket: node.rpc,
    cert: fs.readFileSync(node.cert).toString('base64'),
    macaroon: fs.readFileSync(node.macaroon).toString('hex'),
  })
  const unary = <T>(service: any, method: string, request: object): Promise<T> =>
    new Promise((resolve, reject) => service[method](request, (err: Error | null, reply: T) => (err ? reject(err) : resolve(reply))))
  /** Reads a payment's stream to its end; its last status. */
  const streamed = (request: object): Promise<string> =>
    new Promise((resolve, reject) => {
      const stream: GrpcStream = lnd.router.sendPaymentV2(request)
      let last = ''
      stream.on('data', (payment: { status: string }) => (last = payment.status))
      stream.on('error', reject)
      stream.on('end', () => resolve(last))
    })

  return {
    async addInvoice(amountMsat, memo) {
      const added = await unary<{ r_hash: Buffer; payment_request: string }>(lnd.default, 'addInvoice', {
        memo,
        value_msat: String(amountMsat),
        expiry: String(invoiceExpirySeconds),
      })
      return { paymentRequest: added.payment_request, paymentHash: added.r_hash.toString('hex') }
    },

    async payLikeRelaypay(paymentRequest, feeLimitMsat) {
      await unary(lnd.default, 'decodePayReq', { pay_req: paymentRequest })
      return streamed({ payment_request: paymentRequest, fee_limit_msat: String(feeLimitMsat), ...relaypayPayment })
    },

    pay: paymentRequest => streamed({ payment_request: paymentRequest, ...outsidePayment }),

    subscribeSettlements(settled, failed) {
      const stream: GrpcStream = lnd.default.subscribeInvoices({})
      let closed = false
      stream.on('data', (invoice: { state: string; r_hash: Buffer }) => {
        if (invoice.state === 'SETTLED') settled(invoice.r_hash.toString('hex'))
      })
      // Cancelling ends the call with CANCELLED, which is no failure.
      stream.on('error', err => closed || failed(err))
      stream.on('end', () => closed || failed(new Error('LND ended SubscribeInvoices')))
      return {
        close() {
          closed = true
          stream.cancel()
        },
      }
    },

    close() {
      for (const service of Object.values(lnd) as { close?: () => void }[]) service.close?.()
    },
  }
}
