// The embedded node: a LightningNode that runs offline inside the daemon (the default backend). It has a real
// identity and issues real signed invoices, settles payments between its own invoices, and simulates the rest
// (chain wallet, peers, channels) in its SQLite tables so that every admin operation visibly does something.
import { Observable, Subject, OperationError, systemTimers } from '../../bus/index.js'
import type { Db } from '../../store/index.js'
import type { LightningNode, NodeConfig, NodeDeps, SettledInvoice } from '../lightning-node.js'
import { whileOpen } from '../closed-guard.js'
import { decodeInvoice } from './bolt11-invoice.js'
import { assertSats, blockHeightAt, chainWallet, defaultSatPerVbyte, txVbytes } from './chain-wallet.js'
import { channelBook } from './channels.js'
import { forwardLog } from './forwards.js'
import { nodeHistory } from './history.js'
import { invoiceBook } from './invoices.js'
import { mockControls } from './mock-controls.js'
import { loadOrCreateNodeKey, seedWords } from './node-key.js'
import { networkParams } from './network-params.js'
import { paymentDesk } from './payments.js'
import { peerList } from './peers.js'

export const embeddedNodeVersion = '0.1.0-relaypay-embedded'
/** Upstream's historical mock paid outgoing invoices after 200 ms. */
const defaultSimulatedDelayMs = 200

export function createEmbeddedNode(config: NodeConfig, deps: NodeDeps): LightningNode {
  const { db, clock, random } = deps
  const key = loadOrCreateNodeKey(config.dataDir, random)
  const params = networkParams(config.network)
  bindDatabase(db, key.pubkey, config)

  const settled$ = new Subject<SettledInvoice>()
  const emit = (settled: SettledInvoice) => settled$.next(settled)

  const invoices = invoiceBook({ db, key, params, clock, random })
  const chain = chainWallet({ db, nodeKey: key.secretKey, params, clock, random })
  const peers = peerList({ db, ownPubkey: key.pubkey, clock })
  const channels = channelBook({ db, chain, peers, clock, random })
  const forwards = forwardLog({ db, channels, clock })
  const history = nodeHistory({ db, clock })
  const payments = paymentDesk({
    db,
    key,
    params,
    invoices,
    clock,
    random,
    timers: deps.timers ?? systemTimers,
    simulatePayments: config.simulatePayments,
    simulatedDelayMs: deps.simulatedPaymentDelayMs ?? defaultSimulatedDelayMs,
    onSettled: emit,
    log: deps.log,
  })
  chain.fundIfEmpty()
  payments.completeInterrupted()

  let closed = false
  // Every call after close() fails clearly instead of reaching a database its owner may have closed.
  const open = () => {
    if (closed) throw new OperationError('node_unavailable', 'the embedded node is stopped')
  }

  return {
    ...whileOpen(open, {
      async getInfo() {
        const channelCount = channels.count()
        return {
          pubkey: key.pubkey,
          alias: config.alias,
          network: config.network,
          version: embeddedNodeVersion,
          blockHeight: blockHeightAt(clock.now()),
          // Nothing to sync with: the simulated chain is always current.
          syncedToChain: true,
          syncedToGraph: true,
          activeChannelsCount: channelCount,
          pendingChannelsCount: 0,
          peersCount: peers.count(),
          uris: [],
        }
      },
      async getSeed() {
        return seedWords(key.secretKey)
      },

      createInvoice: request => invoices.create(request),
      lookupInvoice: paymentHash => invoices.lookup(paymentHash),
      async decodeInvoice(paymentRequest) {
        return decodeInvoice(paymentRequest, params)
      },

      pay: request => payments.pay(request),
      trackPayment: paymentHash => payments.track(paymentHash),

      newAddress: type => chain.newAddress(type),
      sendToAddress: request => chain.send(request),
      async estimateChainFee(request) {
        chain.assertAddress(request.address)
        assertSats(request.amountSats, 'amountSats')
        // The simulated chain has no fee market: its default rate for a typical one-output send.
        return { feeSats: defaultSatPerVbyte * txVbytes.send, satPerVbyte: defaultSatPerVbyte }
      },
      async getBalances() {
        const wallet = chain.balances()
        const inChannels = channels.balances()
        return {
          chainBalanceSats: wallet.confirmedSats,
          unconfirmedChainBalanceSats: wallet.unconfirmedSats,
          channelsLocalMsat: inChannels.localMsat,
          channelsRemoteMsat: inChannels.remoteMsat,
        }
      },
      async bumpFee(request) {
        chain.bumpFee(request.txid, request.outputIndex, request.satPerVbyte)
      },
      // Its chain is a ledger of its own sends, with no blocks others' transactions enter: nothing to watch or relay.
      async waitForConfirmation() {
        throw new OperationError('not_implemented', 'the embedded node has no real chain: it cannot watch for confirmations')
      },
      async publishTransaction() {
        throw new OperationError('not_implemented', 'the embedded node has no real chain: it cannot publish transactions')
      },

      async addPeer(request) {
        peers.add(request)
      },
      listPeers: () => peers.list(),
      // The simulation has no graph: its peers are keys the operator typed, with no node announcement.
      nodeAliases: () => ({}),

      listChannels: () => channels.list(),
      listClosedChannels: () => channels.listClosed(),
      openChannel: request => channels.open(request),
      closeChannel: request => channels.close(request),
      async updateChannelPolicy(request) {
        channels.updatePolicy(request)
      },

      forwardingHistory: request => forwards.history(request),
      listPayments: async request => history.listPayments(request),
      listInvoices: async request => history.listInvoices(request),
      listChainTransactions: async request => history.listChainTransactions(request),
    }),
    ...(config.mock
      ? { mock: mockControls({ db, key, params, invoices, forwards, clock, onSettled: emit }) }
      : {}),

    settlementsAfter(settleIndex) {
      return new Observable<SettledInvoice>(subscriber => {
        // Live first, held while the table is read: a settlement emitted meanwhile is not lost, and the index
        // drops the ones both give.
        let last = settleIndex === 'now' ? 0 : settleIndex
        let held: SettledInvoice[] | undefined = []
        const pass = (settled: SettledInvoice) => {
          if (settled.settleIndex <= last) return
          last = settled.settleIndex
          subscriber.next(settled)
        }
        const live = settled$.subscribe({
          next: settled => (held ? held.push(settled) : pass(settled)),
          complete: () => subscriber.complete(),
        })
        if (settleIndex !== 'now' && !closed) for (const settled of invoices.settledAfter(settleIndex)) pass(settled)
        for (const settled of held) pass(settled)
        held = undefined
        return live
      })
    },

    async close() {
      if (closed) return
      closed = true
      payments.close()
      settled$.complete()
    },
  }
}

/**
 * Ties the database to the key file and network on first start, and refuses a mismatch later: invoices, channels
 * and addresses in the tables belong to one node on one network.
 */
function bindDatabase(db: Db, pubkey: string, config: NodeConfig): void {
  const read = db.prepare('SELECT value FROM node_meta WHERE key = ?')
  const write = db.prepare('INSERT INTO node_meta (key, value) VALUES (?, ?)')
  const bind = (name: string, value: string, mismatch: (stored: string) => string) => {
    const stored = (read.get(name) as { value: string } | undefined)?.value
    if (stored === undefined) write.run(name, value)
    else if (stored !== value) throw new Error(mismatch(stored))
  }
  db.transaction(() => {
    bind('pubkey', pubkey, stored =>
      `the database belongs to the embedded node ${stored}, but ${config.dataDir}/node.key is node ${pubkey}`)
    bind('network', config.network, stored =>
      `the embedded node's database is for network ${stored}; [node] network says ${config.network}`)
  })()
}
