// The LND backend: a LightningNode over a real LND, through the `lightning` package. It holds no state of its
// own: LND is the record of invoices, payments, wallet and channels, and a settlement subscriber keeps its own
// settle index.
import { OperationError, Observable, systemTimers } from '../../bus/index.js'
import type { LightningNode, NodeConfig, NodeDeps, SettledInvoice } from '../lightning-node.js'
import { whileOpen } from '../closed-guard.js'
import { lndChain } from './chain.js'
import { lndChannels } from './channels.js'
import { lndConfirmations } from './confirmations.js'
import { invoiceStream, type InvoiceStream } from './invoice-stream.js'
import { lndInvoices } from './invoices.js'
import { connectLnd } from './lnd-connection.js'
import { getInfo, networkOf } from './get-info.js'
import { lndError } from './lnd-errors.js'
import { lndHistory } from './history.js'
import { lndPayments } from './payments.js'

/** Connects (or waits for LND, with `waitForNode`); settlements are subscribed to by whoever follows them. */
export async function createLndNode(config: NodeConfig, deps: NodeDeps): Promise<LightningNode> {
  if (!config.lnd) {
    throw new Error('[node] backend = "lnd" needs lnd_socket and lnd_macaroon_path (or LND_ADDRESS and LND_MACAROON_PATH)')
  }
  const timers = deps.timers ?? systemTimers
  const { clock, log } = deps
  const { client, info: started } = await connectLnd({
    connection: config.lnd,
    network: config.network,
    waitForNode: config.waitForNode ?? false,
    timers,
    log,
  })
  const { lnd, rpc } = client
  const ownPubkey = started.publicKey
  const invoices = lndInvoices({ lnd, rpc, clock, network: networkOf(started) ?? config.network })
  const payments = lndPayments({ rpc, invoices, timers, log })
  const chain = lndChain({ lnd })
  const confirmations = lndConfirmations({ lnd })
  const channels = lndChannels({ lnd, ownPubkey, timers })
  const history = lndHistory({ lnd })
  // The settlement streams open now, each with the subscriber told when the node closes.
  const streams = new Map<InvoiceStream, () => void>()
  log?.info({ socket: client.socket, pubkey: ownPubkey, version: started.version }, 'connected to LND')

  let closed = false
  // Every call after close() fails clearly instead of reaching gRPC clients that are shut.
  const open = () => {
    if (closed) throw new OperationError('node_unavailable', 'the LND connection is closed')
  }

  return {
    ...whileOpen(open, {
      async getInfo() {
        try {
          const info = await getInfo(rpc)
          return {
            pubkey: info.publicKey,
            alias: info.alias,
            network: networkOf(info) ?? config.network,
            version: info.version,
            blockHeight: info.blockHeight,
            syncedToChain: info.syncedToChain,
            syncedToGraph: info.syncedToGraph,
            activeChannelsCount: info.activeChannels,
            pendingChannelsCount: info.pendingChannels,
            peersCount: info.peers,
            uris: info.uris,
          }
        } catch (err) {
          throw lndError('describe itself', err)
        }
      },
      async getSeed() {
        // LND's wallet was created outside relaypay; LND never hands its seed out over RPC.
        throw new OperationError(
          'not_found',
          'the seed of an LND wallet is not known to relaypay: LND keeps it, and relaypay did not create this wallet',
        )
      },

      createInvoice: request => invoices.create(request),
      lookupInvoice: paymentHash => invoices.lookup(paymentHash),
      decodeInvoice: paymentRequest => invoices.decode(paymentRequest),

      pay: request => payments.pay(request),
      trackPayment: paymentHash => payments.track(paymentHash),

      newAddress: type => chain.newAddress(type),
      sendToAddress: request => chain.sendToAddress(request),
      estimateChainFee: request => chain.estimateChainFee(request),
      getBalances: () => chain.getBalances(),
      bumpFee: request => chain.bumpFee(request),
      waitForConfirmation: (request, signal) => confirmations.waitForConfirmation(request, signal),
      publishTransaction: rawTx => confirmations.publishTransaction(rawTx),

      addPeer: request => channels.addPeer(request),
      listPeers: () => channels.listPeers(),
      nodeAliases: pubkeys => channels.nodeAliases(pubkeys),

      listChannels: () => channels.listChannels(),
      listClosedChannels: () => channels.listClosedChannels(),
      openChannel: request => channels.openChannel(request),
      closeChannel: request => channels.closeChannel(request),
      updateChannelPolicy: request => channels.updateChannelPolicy(request),

      forwardingHistory: request => channels.forwardingHistory(request),
      listPayments: request => history.listPayments(request),
      listInvoices: request => history.listInvoices(request),
      listChainTransactions: request => history.listChainTransactions(request),
    }),

    settlementsAfter(settleIndex) {
      return new Observable<SettledInvoice>(subscriber => {
        if (closed) return subscriber.complete()
        const stream = invoiceStream({ rpc, invoices, clock, timers, log }, settleIndex, settled => subscriber.next(settled))
        streams.set(stream, () => subscriber.complete())
        return () => {
          streams.delete(stream)
          stream.close()
        }
      })
    },

    async close() {
      if (closed) return
      closed = true
      for (const [stream, complete] of [...streams]) {
        stream.close()
        complete()
      }
      await invoices.drain()
      payments.close()
      client.close()
    },
  }
}
