// routerrpc.Router (SendPaymentV2, TrackPaymentV2) and walletrpc.WalletKit (ListAccounts, BumpFee,
// GetTransaction, PublishTransaction). A payment to one of the fake's own invoices settles it; a payment to another node finds no
// route, unless the test holds payments in flight to resolve them later.
import type { ServerWritableStream } from '@grpc/grpc-js'
import type { FakeNode } from './fake-node.js'
import type { FakePayment } from './payment-book.js'
import type { ServiceImpl } from './lightning-service.js'
import { readPaymentRequest } from './payment-request.js'
import { txAsRpc } from './chain-wallet.js'
import { grpcCode, lndSays, RpcError, statusOf } from './rpc-error.js'

/** Streams a payment's current state, then each change, and ends the stream once it is final. */
function follow(node: FakeNode, call: ServerWritableStream<any, any>, paymentHash: string): void {
  const forget = () => {
    stop()
    node.paymentStreamDrops.delete(drop)
  }
  const drop = () => {
    forget()
    call.emit('error', { code: grpcCode.unavailable, details: 'fake LND dropped the stream' })
  }
  const send = (payment: FakePayment) => {
    call.write(node.payments.asRpc(payment))
    if (payment.status !== 'IN_FLIGHT') {
      forget()
      call.end()
    }
  }
  const stop = node.payments.watch(paymentHash, send)
  node.paymentStreamDrops.add(drop)
  call.on('cancelled', forget)
  send(node.payments.get(paymentHash)!)
}

/** Where SendPaymentV2's HTLC goes: our own invoice settles; other nodes fail or wait for the test. */
function route(node: FakeNode, payment: FakePayment): void {
  if (payment.destination === node.pubkey) {
    const invoice = node.invoices.lookup(payment.paymentHash)
    if (!invoice || invoice.state !== 'OPEN') {
      node.payments.fail(payment.paymentHash, 'FAILURE_REASON_INCORRECT_PAYMENT_DETAILS')
      return
    }
    node.invoices.settle(payment.paymentHash, payment.valueMsat)
    node.payments.succeed(payment.paymentHash, invoice.preimage.toString('hex'))
    return
  }
  const remote = node.remoteNodes.get(payment.destination)
  if (remote) {
    remote(payment)
    return
  }
  if (node.faults.holdPayments || payment.pathfinding) return
  node.payments.fail(payment.paymentHash, 'FAILURE_REASON_NO_ROUTE')
}

export function routerService(node: FakeNode): ServiceImpl {
  return {
    unary: {},
    streams: {
      SendPaymentV2: call => {
        const request = call.request
        let payment: FakePayment
        try {
          if (!request.payment_request) throw lndSays('the fake pays payment requests only')
          const read = readPaymentRequest(request.payment_request, node.network.invoice, node.network.lndName)
          const expiresAtMs = (read.timestampSec + read.expirySec) * 1000
          if (node.now() >= expiresAtMs) {
            throw lndSays(`invoice expired. Valid until ${new Date(expiresAtMs).toISOString()}`)
          }
          const requestedMsat = Number(request.amt_msat) || Number(request.amt) * 1000
          if (read.amountMsat > 0 && requestedMsat > 0) {
            throw lndSays('amount must not be specified when paying a non-zero amount invoice')
          }
          if (read.amountMsat === 0 && requestedMsat === 0) {
            throw lndSays('amount must be specified when paying a zero amount invoice')
          }
          payment = node.payments.start({
            paymentHash: read.paymentHash,
            request: read.request,
            destination: read.destination,
            valueMsat: read.amountMsat || requestedMsat,
            feeMsat: 0,
            paymentAddr: read.paymentAddr,
            pathfinding: read.destination !== node.pubkey && !node.remoteNodes.has(read.destination) && node.faults.pathfinding,
          })
        } catch (err) {
          call.emit('error', statusOf(err))
          return
        }
        follow(node, call, payment.paymentHash)
        route(node, payment)
      },

      TrackPaymentV2: call => {
        const paymentHash = Buffer.from(call.request.payment_hash ?? []).toString('hex')
        if (!node.payments.get(paymentHash)) {
          call.emit('error', { code: grpcCode.unknown, details: "payment isn't initiated" })
          return
        }
        const answer = () => {
          if (node.faults.trackDelayMs > 0) setTimeout(() => follow(node, call, paymentHash), node.faults.trackDelayMs)
          else follow(node, call, paymentHash)
        }
        if (node.faults.trackHold) void node.faults.trackHold.then(answer)
        else answer()
      },
    },
  }
}

export function walletKitService(node: FakeNode): ServiceImpl {
  const account = (address_type: string, path: string) => ({
    name: 'default',
    address_type,
    extended_public_key: 'tpubFAKE',
    master_key_fingerprint: Buffer.alloc(4),
    derivation_path: path,
    external_key_count: 0,
    internal_key_count: 0,
    watch_only: false,
  })
  return {
    unary: {
      ListAccounts: () => ({
        accounts: [
          account('WITNESS_PUBKEY_HASH', "m/84'/1'/0'"),
          account('NESTED_WITNESS_PUBKEY_HASH', "m/49'/1'/0'"),
          account('TAPROOT_PUBKEY', "m/86'/1'/0'"),
        ],
      }),

      BumpFee: request => {
        const outpoint = request.outpoint ?? {}
        const txid = outpoint.txid_str || Buffer.from(outpoint.txid_bytes ?? []).reverse().toString('hex')
        if (!(Number(request.sat_per_vbyte) > 0) && !(Number(request.target_conf) > 0)) {
          throw lndSays('either target_conf or sat_per_vbyte must be set')
        }
        node.wallet.bump(txid, Number(outpoint.output_index))
        return { status: 'Successfully registered rbf-tx with sweeper' }
      },

      PublishTransaction: request => {
        const raw = Buffer.from(request.tx_hex ?? [])
        try {
          node.chain.publish(raw.toString('hex'))
        } catch {
          throw lndSays('TX decode failed')
        }
        return { publish_error: '' }
      },

      GetTransaction: request => {
        if (!/^[0-9a-f]{64}$/.test(String(request.txid))) throw new RpcError(grpcCode.invalidArgument, 'invalid txid')
        return txAsRpc(node.wallet.tx(String(request.txid)), node.blockHeight())
      },
    },
    streams: {},
  }
}
