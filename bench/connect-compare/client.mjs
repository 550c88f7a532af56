// Client cost: relaypay's own gRPC channel (src/node/lnd/grpc-channel.ts) against @connectrpc/connect-node with
// protobuf-es codecs generated from LND's protos, client CPU µs per call on the same fake LND in another process.
// Not part of relaypay and not installed with it: run it from a copy of this folder, against a built repo:
//   cp -r bench/connect-compare /tmp/cc && cd /tmp/cc && npm install
//   mkdir proto && cp <repo>/node_modules/lightning/grpc/protos/{lightning,router}.proto proto/
//   PATH=$PWD/node_modules/.bin:$PATH buf generate
//   RELAYPAY_ROOT=<repo> N=1000 C=8 ROUNDS=3 node client.mjs
// In the daemon: copy the repo with its build, make its build/src/node/lnd/grpc-channel.js the one line
// `export * from '/tmp/cc/grpc-channel-connect.js'`, then
//   BENCH_LND_RUNS=2 BENCH_LND_ROOTS=<repo>,<copy> npm run bench -- paymentsLnd
import fs from 'node:fs'
import { spawn } from 'node:child_process'
import { createClient } from '@connectrpc/connect'
import { createGrpcTransport } from '@connectrpc/connect-node'
import { Lightning } from './gen/lightning_pb.js'
import { Router } from './gen/router_pb.js'
const B = `${process.env.RELAYPAY_ROOT ?? new URL('../..', import.meta.url).pathname}/build`
const { grpcChannel } = await import(`${B}/src/node/lnd/grpc-channel.js`)
const m = await import(`${B}/src/node/lnd/rpc-messages.js`)

const N = Number(process.env.N ?? 1000)
const C = Number(process.env.C ?? 8)
const ROUNDS = Number(process.env.ROUNDS ?? 3)
// The fake in its own process, with one invoice of another node for each SendPaymentV2 of the run.
const info = new URL('fake.json', import.meta.url).pathname
fs.rmSync(info, { force: true })
const serverScript = new URL('server.mjs', import.meta.url).pathname
const server = spawn(process.execPath, [serverScript, info, String(N * ROUNDS * 2 + 50)], { stdio: 'inherit' })
while (!fs.existsSync(info)) await new Promise(r => setTimeout(r, 100))
await new Promise(r => setTimeout(r, 200))
const { connection, invoices } = JSON.parse(fs.readFileSync(info, 'utf8'))
const macaroonHex = fs.readFileSync(connection.macaroonPath).toString('hex')
const cert = fs.readFileSync(connection.certPath)

const ours = grpcChannel({ socket: connection.socket, credentials: () => ({ cert, macaroonHex }) })
const transport = createGrpcTransport({
  baseUrl: `https://${connection.socket}`,
  nodeOptions: { ca: cert },
  interceptors: [
    next => req => {
      req.header.set('macaroon', macaroonHex)
      return next(req)
    },
  ],
})
const ln = createClient(Lightning, transport)
const router = createClient(Router, transport)
const safe = (value, field) => {
  const n = Number(value)
  if (!Number.isSafeInteger(n)) throw new RangeError(field)
  return n
}

let invoiceAt = 0
const nextInvoice = () => invoices[invoiceAt++]
const addRequest = { valueMsat: 100_000, memo: 'x', expirySeconds: 3600, isBlinded: false }
const sendRequest = { feeLimitMsat: 1000, timeoutSeconds: 60, maxParts: 16, allowSelfPayment: true, cancelable: true }
// Each side reads what the daemon reads of a reply (64-bit values as checked numbers).
const impl = {
  ours: {
    add: () => ours.unary('/lnrpc.Lightning/AddInvoice', m.encodeAddInvoice, m.decodeAddInvoiceReply, addRequest),
    decode: request => ours.unary('/lnrpc.Lightning/DecodePayReq', m.encodePayReqString, m.decodePayReq, request),
    send: request =>
      new Promise((resolve, reject) => {
        const path = '/routerrpc.Router/SendPaymentV2'
        const stream = ours.serverStream(path, m.encodeSendPayment, m.decodePaymentUpdate, { ...sendRequest, paymentRequest: request })
        let last
        stream.on('data', payment => (last = payment))
        stream.on('error', reject)
        stream.on('end', () => (last?.status === 2 ? resolve(last) : reject(new Error(`not succeeded: ${last?.status}`))))
      }),
  },
  connect: {
    add: async () => {
      const reply = await ln.addInvoice({ valueMsat: 100_000n, memo: 'x', expiry: 3600n })
      return { rHash: reply.rHash, paymentRequest: reply.paymentRequest }
    },
    decode: async request => {
      const p = await ln.decodePayReq({ payReq: request })
      return {
        destination: p.destination,
        paymentHash: p.paymentHash,
        timestamp: safe(p.timestamp),
        expiry: safe(p.expiry),
        numMsat: safe(p.numMsat),
        bits: Object.keys(p.features),
      }
    },
    send: async request => {
      let last
      const { feeLimitMsat, ...rest } = sendRequest
      for await (const p of router.sendPaymentV2({ ...rest, feeLimitMsat: BigInt(feeLimitMsat), paymentRequest: request })) {
        last = {
          status: p.status,
          valueMsat: safe(p.valueMsat),
          feeMsat: safe(p.feeMsat),
          preimage: p.paymentPreimage,
          htlcs: p.htlcs.map(h => [h.status, h.resolveTimeNs]),
        }
      }
      if (last?.status !== 2) throw new Error('not succeeded')
      return last
    },
  },
}

async function measure(fn, n, c) {
  let i = 0
  const t0 = process.hrtime.bigint(), u0 = process.cpuUsage()
  const worker = async () => {
    while (i < n) {
      i++
      await fn()
    }
  }
  await Promise.all(Array.from({ length: c }, worker))
  const u = process.cpuUsage(u0), wall = Number(process.hrtime.bigint() - t0) / 1e6
  return { cpuUsPerCall: Math.round(((u.user + u.system) / n) * 10) / 10, perSecond: Math.round(n / (wall / 1000)) }
}

// warm both
for (const k of ['ours', 'connect']) {
  await impl[k].decode(invoices[0])
  for (let j = 0; j < 50; j++) await impl[k].add()
}
const decodeTarget = invoices[1]
const out = {}
for (let round = 1; round <= ROUNDS; round++) {
  for (const k of round % 2 ? ['ours', 'connect'] : ['connect', 'ours']) {
    const res = {
      addInvoice: await measure(impl[k].add, N, C),
      decodePayReq: await measure(() => impl[k].decode(decodeTarget), N, C),
      sendPaymentV2: await measure(() => impl[k].send(nextInvoice()), N, C),
      addInvoiceC1: await measure(impl[k].add, N / 2, 1),
    }
    ;(out[k] ??= []).push(res)
    console.log(round, k, JSON.stringify(res))
  }
}
fs.writeFileSync(new URL('result.json', import.meta.url).pathname, JSON.stringify(out, null, 1))
server.kill()
process.exit(0)
