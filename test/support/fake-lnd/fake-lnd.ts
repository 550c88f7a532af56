// A fake LND for tests: a real gRPC server on 127.0.0.1, built from the .proto files shipped inside the
// `lightning` package, behind TLS with a self-signed certificate and a macaroon check, so that the unmodified
// `lightning` client (and so relaypay's LND backend) talks to it exactly as to LND. What it cannot prove:
// pathfinding, HTLC timing, channel confirmation, fee estimation, real macaroon caveats.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { randomBytes } from 'node:crypto'
import { createRequire } from 'node:module'
import * as grpc from '@grpc/grpc-js'
import * as protoLoader from '@grpc/proto-loader'
import type { LndConnectionConfig } from '../../../src/node/index.js'
import { chainNotifierService } from './chain-notifier.js'
import { channelService } from './channel-service.js'
import { createFakeNode, type FakeNetworkName, type FakeNode } from './fake-node.js'
import { lightningService, type ServiceImpl } from './lightning-service.js'
import type { FakeForward } from './channel-book.js'
import { routerService, walletKitService } from './router-service.js'
import { grpcCode, lndSays, statusOf } from './rpc-error.js'

type GrpcStatus = { code: number; details: string }
import { makeTlsCert, type TlsFiles } from './tls-cert.js'

const protosDir = path.join(path.dirname(createRequire(import.meta.url).resolve('lightning/package.json')), 'grpc', 'protos')
/** How `lightning` loads the protos (lnd_grpc/grpc_options.json); the server must read messages the same way. */
const protoOptions = { keepCase: true, longs: String, enums: String, defaults: true, oneofs: true, includeDirs: [protosDir] }

export interface FakeLndOptions {
  network?: FakeNetworkName
  /** The node's clock (unix ms); defaults to the wall clock. */
  now?: () => number
  /** Listen on this port (a restart on the port a client already knows); default: any free port. */
  port?: number
}

export interface FakeLnd {
  readonly node: FakeNode
  readonly port: number
  /** What relaypay's [node] keys would say to reach this fake. */
  readonly connection: LndConnectionConfig
  /** A macaroon file with other bytes, which the fake refuses. */
  readonly wrongMacaroonPath: string
  /** An operator's rotation: a new macaroon is written to the connection's file, and the old one is refused from now on. */
  rotateMacaroon(): void
  readonly faults: FakeNode['faults']
  /** Ends every open SubscribeInvoices stream with UNAVAILABLE. */
  dropInvoiceStreams(): void
  /** Ends every open SendPaymentV2 / TrackPaymentV2 stream with UNAVAILABLE. */
  dropPaymentStreams(): void
  /** Settles one of the fake's invoices as if another node had paid it. */
  settleInvoice(paymentHash: string, amountMsat?: number): void
  /** Resolves a payment held in flight (faults.holdPayments): succeeded with a preimage, or failed. */
  resolvePayment(paymentHash: string, outcome: { preimage: string } | { failed: 'FAILURE_REASON_NO_ROUTE' | 'FAILURE_REASON_TIMEOUT' }): void
  recordForward(chanIdIn: string, chanIdOut: string, amountOutMsat: number, feeMsat: number): FakeForward
  /** Stops listening (open calls are cut); the state is kept for start(). */
  stop(): Promise<void>
  /** Listens again on the same port. */
  start(): Promise<void>
  /** Stops and deletes the certificate and macaroon files. */
  close(): Promise<void>
}

function loadServices() {
  const load = (file: string) => grpc.loadPackageDefinition(protoLoader.loadSync(path.join(protosDir, file), protoOptions))
  const lnrpc = load('lightning.proto').lnrpc as grpc.GrpcObject
  const routerrpc = load('router.proto').routerrpc as grpc.GrpcObject
  const walletrpc = load('walletkit.proto').walletrpc as grpc.GrpcObject
  const chainrpc = load('chainnotifier.proto').chainrpc as grpc.GrpcObject
  const service = (pkg: grpc.GrpcObject, name: string) => (pkg[name] as grpc.ServiceClientConstructor).service
  return {
    lightning: service(lnrpc, 'Lightning'),
    router: service(routerrpc, 'Router'),
    walletKit: service(walletrpc, 'WalletKit'),
    chainNotifier: service(chainrpc, 'ChainNotifier'),
  }
}

/** Loaded once per test process: reading the protos costs more than everything else a fake does. */
const services = loadServices()

export async function startFakeLnd(opts: FakeLndOptions = {}): Promise<FakeLnd> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'relaypay-fake-lnd-'))
  const tls: TlsFiles = makeTlsCert(dir)
  let macaroon = randomBytes(32)
  const macaroonPath = path.join(dir, 'admin.macaroon')
  const wrongMacaroonPath = path.join(dir, 'other.macaroon')
  fs.writeFileSync(macaroonPath, macaroon)
  fs.writeFileSync(wrongMacaroonPath, randomBytes(32))
  const node = createFakeNode({ network: opts.network ?? 'regtest', now: opts.now ?? (() => Date.now()) })

  // What LND checks before it runs a method: is it up, is the method built in, is the wallet unlocked (LND 0.13+
  // rpcperms), does the macaroon verify.
  const gate = (service: string, method: string, metadata: grpc.Metadata): GrpcStatus | undefined => {
    const { faults, traffic } = node
    traffic.calls.set(method, (traffic.calls.get(method) ?? 0) + 1)
    if (faults.unavailable) return { code: grpcCode.unavailable, details: 'fake LND is unavailable' }
    if (faults.unimplemented.has(method)) {
      return { code: grpcCode.unimplemented, details: `unknown method ${method} for service ${service}` }
    }
    if (faults.starting) return statusOf(lndSays('the RPC server is in the process of starting up, but not yet ready to accept calls'))
    if (faults.locked) return statusOf(lndSays('wallet locked, unlock it to enable full RPC access'))
    const sent = metadata.get('macaroon')[0]
    if (sent !== macaroon.toString('hex')) {
      return statusOf(lndSays('verification failed: signature mismatch after caveat verification'))
    }
    return undefined
  }

  const implement = (service: string, impl: ServiceImpl): grpc.UntypedServiceImplementation => {
    const handlers: grpc.UntypedServiceImplementation = {}
    for (const [method, fn] of Object.entries(impl.unary)) {
      handlers[method] = (call: grpc.ServerUnaryCall<any, any>, callback: grpc.sendUnaryData<any>) => {
        const refused = gate(service, method, call.metadata)
        if (refused) return callback(refused)
        Promise.resolve()
          .then(() => node.faults.beforeAnswer?.(method))
          .then(() => fn(call.request))
          .then(
            reply => callback(null, reply),
            err => callback(statusOf(err)),
          )
      }
    }
    for (const [method, fn] of Object.entries(impl.streams)) {
      handlers[method] = (call: grpc.ServerWritableStream<any, any>) => {
        const refused = gate(service, method, call.metadata)
        if (refused) return call.emit('error', refused)
        fn(call)
      }
    }
    return handlers
  }

  let server: grpc.Server | undefined
  let port = opts.port ?? 0
  const listen = async () => {
    const next = new grpc.Server()
    const lightning = lightningService(node)
    const channels = channelService(node)
    next.addService(services.lightning, implement('lnrpc.Lightning', {
      unary: { ...lightning.unary, ...channels.unary },
      streams: { ...lightning.streams, ...channels.streams },
    }))
    next.addService(services.router, implement('routerrpc.Router', routerService(node)))
    next.addService(services.walletKit, implement('walletrpc.WalletKit', walletKitService(node)))
    next.addService(services.chainNotifier, implement('chainrpc.ChainNotifier', chainNotifierService(node)))
    const credentials = grpc.ServerCredentials.createSsl(null, [{ private_key: tls.key, cert_chain: tls.cert }], false)
    port = await new Promise<number>((resolve, reject) =>
      next.bindAsync(`127.0.0.1:${port}`, credentials, (err, bound) => (err ? reject(err) : resolve(bound))),
    )
    server = next
  }
  const stop = async () => {
    for (const drop of [...node.invoiceStreamDrops, ...node.paymentStreamDrops, ...node.chainStreamDrops]) drop()
    server?.forceShutdown()
    server = undefined
  }
  await listen()

  return {
    node,
    get port() {
      return port
    },
    get connection() {
      return { socket: `localhost:${port}`, certPath: tls.certPath, macaroonPath }
    },
    wrongMacaroonPath,
    rotateMacaroon() {
      macaroon = randomBytes(32)
      fs.writeFileSync(macaroonPath, macaroon)
    },
    faults: node.faults,
    dropInvoiceStreams() {
      for (const drop of [...node.invoiceStreamDrops]) drop()
    },
    dropPaymentStreams() {
      for (const drop of [...node.paymentStreamDrops]) drop()
    },
    settleInvoice(paymentHash, amountMsat) {
      const invoice = node.invoices.lookup(paymentHash)
      if (!invoice) throw new Error(`the fake issued no invoice ${paymentHash}`)
      node.invoices.settle(paymentHash, amountMsat ?? invoice.valueMsat)
    },
    resolvePayment(paymentHash, outcome) {
      if ('preimage' in outcome) node.payments.succeed(paymentHash, outcome.preimage)
      else node.payments.fail(paymentHash, outcome.failed)
    },
    recordForward(chanIdIn, chanIdOut, amountOutMsat, feeMsat) {
      return node.channels.recordForward(chanIdIn, chanIdOut, amountOutMsat, feeMsat)
    },
    stop,
    start: listen,
    async close() {
      await stop()
      fs.rmSync(dir, { recursive: true, force: true })
    },
  }
}
