// relaypay's GrpcChannel (src/node/lnd/grpc-channel.ts) on @connectrpc/connect-node with the protobuf-es codecs
// generated into ./gen, dispatching by path and giving back the shapes rpc-messages.ts and get-info.ts read. Only for
// measuring connect in the daemon (client.mjs says how); relaypay does not use it.
import { EventEmitter } from 'node:events'
import { createClient, ConnectError } from '@connectrpc/connect'
import { createGrpcTransport } from '@connectrpc/connect-node'
import { Lightning } from './gen/lightning_pb.js'
import { Router } from './gen/router_pb.js'

export class GrpcError extends Error {
  constructor(code, details) {
    super(`${code}: ${details}`)
    this.code = code
    this.details = details
  }
}

const safe = (value, field) => {
  const n = Number(value)
  if (!Number.isSafeInteger(n)) throw new RangeError(`LND sent ${field} beyond 2^53`)
  return n
}
// connect's codes are gRPC's.
const toGrpc = err =>
  err instanceof RangeError ? new GrpcError(13, err.message)
  : err instanceof ConnectError ? new GrpcError(err.code, err.rawMessage)
  : new GrpcError(2, String(err?.message ?? err))
const hex = bytes => Buffer.from(bytes).toString('hex')

function payment(p) {
  let settledNs = 0n
  for (const h of p.htlcs) if (h.status === 1 && h.resolveTimeNs > settledNs) settledNs = h.resolveTimeNs
  return {
    paymentHash: p.paymentHash,
    paymentPreimage: p.paymentPreimage,
    valueMsat: safe(p.valueMsat, 'value_msat'),
    feeMsat: safe(p.feeMsat, 'fee_msat'),
    status: p.status,
    failureReason: p.failureReason,
    settledAtMs: Number(settledNs / 1_000_000n),
  }
}

function invoiceUpdate(i) {
  if (i.state !== 1) return { settled: false, paymentHash: '', paymentRequest: '', amountPaidMsat: 0, settleDate: 0, settleIndex: 0 }
  return {
    settled: true,
    paymentHash: hex(i.rHash),
    paymentRequest: i.paymentRequest,
    amountPaidMsat: safe(i.amtPaidMsat, 'amt_paid_msat'),
    settleDate: safe(i.settleDate, 'settle_date'),
    settleIndex: safe(i.settleIndex, 'settle_index'),
  }
}

export function grpcChannel({ socket, cert, macaroonHex }) {
  const transport = createGrpcTransport({ baseUrl: `https://${socket}`, nodeOptions: cert ? { ca: cert } : {} })
  const ln = createClient(Lightning, transport)
  const router = createClient(Router, transport)
  const opts = { headers: { macaroon: macaroonHex } }
  const unaries = {
    '/lnrpc.Lightning/AddInvoice': async r => {
      const reply = await ln.addInvoice(
        {
          valueMsat: BigInt(r.valueMsat),
          memo: r.memo ?? '',
          descriptionHash: r.descriptionHash ?? new Uint8Array(),
          expiry: BigInt(r.expirySeconds),
          isBlinded: r.isBlinded,
        },
        opts,
      )
      return { rHash: Buffer.from(reply.rHash), paymentRequest: reply.paymentRequest }
    },
    '/lnrpc.Lightning/DecodePayReq': async request => {
      const p = await ln.decodePayReq({ payReq: request }, opts)
      return {
        destination: p.destination,
        paymentHash: p.paymentHash,
        timestamp: safe(p.timestamp, 'timestamp'),
        expirySeconds: safe(p.expiry, 'expiry'),
        description: p.description,
        descriptionHash: p.descriptionHash,
        cltvExpiry: safe(p.cltvExpiry, 'cltv_expiry'),
        paymentAddr: Buffer.from(p.paymentAddr),
        numMsat: safe(p.numMsat, 'num_msat'),
        featureBits: Object.keys(p.features).map(Number),
      }
    },
    '/lnrpc.Lightning/GetInfo': async () => {
      const i = await ln.getInfo({}, opts)
      return {
        publicKey: i.identityPubkey,
        alias: i.alias,
        version: i.version,
        blockHeight: i.blockHeight,
        syncedToChain: i.syncedToChain,
        syncedToGraph: i.syncedToGraph,
        activeChannels: i.numActiveChannels,
        pendingChannels: i.numPendingChannels,
        peers: i.numPeers,
        uris: i.uris,
        networks: i.chains.map(c => c.network),
      }
    },
  }
  const streams = {
    '/lnrpc.Lightning/SubscribeInvoices': (from, signal) => ({
      messages: ln.subscribeInvoices({ settleIndex: BigInt(from) }, { ...opts, signal }),
      map: invoiceUpdate,
    }),
    '/routerrpc.Router/SendPaymentV2': (r, signal) => ({
      messages: router.sendPaymentV2(
        {
          paymentRequest: r.paymentRequest,
          timeoutSeconds: r.timeoutSeconds,
          amtMsat: BigInt(r.amountMsat ?? 0),
          feeLimitMsat: BigInt(r.feeLimitMsat),
          allowSelfPayment: r.allowSelfPayment,
          maxParts: r.maxParts,
          cancelable: r.cancelable,
        },
        { ...opts, signal },
      ),
      map: payment,
    }),
    '/routerrpc.Router/TrackPaymentV2': (hash, signal) => ({
      messages: router.trackPaymentV2({ paymentHash: Buffer.from(hash, 'hex') }, { ...opts, signal }),
      map: payment,
    }),
  }
  return {
    async unary(path, _serialize, _deserialize, request) {
      try {
        return await unaries[path](request)
      } catch (err) {
        throw toGrpc(err)
      }
    },
    serverStream(path, _serialize, _deserialize, request) {
      const stream = new EventEmitter()
      const aborter = new AbortController()
      let over = false
      stream.cancel = () => {
        if (over) return
        over = true
        aborter.abort()
      }
      queueMicrotask(async () => {
        try {
          const { messages, map } = streams[path](request, aborter.signal)
          for await (const message of messages) {
            if (over) return
            stream.emit('data', map(message))
          }
          if (over) return
          over = true
          stream.emit('end')
        } catch (err) {
          if (over) return
          over = true
          stream.emit('error', toGrpc(err))
        }
      })
      return stream
    },
    close() {},
  }
}
