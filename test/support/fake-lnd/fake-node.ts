// The state behind the fake LND's gRPC services: one node identity on one network, its books (invoices,
// payments, wallet, channels), the switches tests flip to inject faults, and the open streams a fault can drop.
import { randomBytes } from 'node:crypto'
import { secp256k1 } from '@noble/curves/secp256k1.js'
import { NETWORK, TEST_NETWORK } from '@scure/btc-signer'
import { channelBook, type ChannelBook } from './channel-book.js'
import { chainWallet, type ChainNetwork, type ChainWallet } from './chain-wallet.js'
import { fakeChain, type FakeChain } from './fake-chain.js'
import { invoiceBook, type Bolt11Network, type InvoiceBook } from './invoice-book.js'
import { paymentBook, type FakePayment, type PaymentBook } from './payment-book.js'

export type FakeNetworkName = 'regtest' | 'testnet' | 'signet' | 'mainnet'

export interface FakeNetwork {
  /** The network as GetInfo's `chains[].network` and LND's errors name it. */
  lndName: string
  invoice: Bolt11Network
  chain: ChainNetwork
}

const regtestChain = { bech32: 'bcrt', pubKeyHash: 0x6f, scriptHash: 0xc4, wif: 0xef }
const bolt11Of = (bech32: string, chain: ChainNetwork): Bolt11Network => ({
  bech32,
  pubKeyHash: chain.pubKeyHash,
  scriptHash: chain.scriptHash,
  validWitnessVersions: [0, 1],
})

export const fakeNetworks: Record<FakeNetworkName, FakeNetwork> = {
  regtest: { lndName: 'regtest', invoice: bolt11Of('bcrt', regtestChain), chain: regtestChain },
  testnet: { lndName: 'testnet', invoice: bolt11Of('tb', TEST_NETWORK), chain: TEST_NETWORK },
  signet: { lndName: 'signet', invoice: bolt11Of('tbs', TEST_NETWORK), chain: TEST_NETWORK },
  mainnet: { lndName: 'mainnet', invoice: bolt11Of('bc', NETWORK), chain: NETWORK },
}

/** Switches a test flips; each makes the fake answer the way a real LND does in that situation. */
export interface Faults {
  /** Every call answers UNAVAILABLE, as through a dead connection. */
  unavailable: boolean
  /** Every call answers "wallet locked", as an LND waiting for its password does. */
  locked: boolean
  /** Answers every call as LND does between opening its port and serving ("… in the process of starting up …"). */
  starting: boolean
  /** Methods (e.g. 'BumpFee') answered UNIMPLEMENTED, as by an LND built without their sub-server. */
  unimplemented: Set<string>
  /** New SubscribeInvoices calls fail UNAVAILABLE (a stream that cannot come back yet). */
  refuseInvoiceStreams: boolean
  /** Payments to other nodes stay in flight until the test resolves them. */
  holdPayments: boolean
  /**
   * Payments to other nodes stay in flight with no HTLC out (still pathfinding) until the test resolves them:
   * TrackPaymentV2 then streams IN_FLIGHT with no HTLC, which the `lightning` package passes on as nothing.
   */
  pathfinding: boolean
  /** TrackPaymentV2 sends its first update only after this many ms (a busy LND). */
  trackDelayMs: number
  /** While set, TrackPaymentV2 answers nothing until it settles (then waits trackDelayMs): an LND that holds every ask. */
  trackHold?: Promise<void>
  /**
   * The next live-only SubscribeInvoices (no indexes) takes hold only after the next ListInvoices has answered, as
   * a busy LND may register it: this runs then, and must call `register` (it may settle invoices before).
   */
  lateLiveInvoiceStream?: (register: () => void) => void
  /**
   * SubscribeInvoices replays the settlements above a settle index in the order their invoices were added, as a
   * real LND with native SQL invoice tables does (`ORDER BY id`); a node on bbolt replays in settle-index order.
   */
  replaySettledInAddOrder: boolean
  /** Settlements SubscribeInvoices leaves out of its replays (by payment hash): a hole in the settle indexes. */
  hiddenFromReplay: Set<string>
  /**
   * Asked before each unary method runs (after the gate): a promise returned holds that call's answer until it
   * settles, as a busy LND may hold it; undefined answers at once.
   */
  beforeAnswer?: (method: string) => Promise<void> | undefined
}

/** What the fake was asked: per method, and the invoices it sent from its history. */
export interface Traffic {
  calls: Map<string, number>
  /** Invoices sent in ListInvoices pages. */
  invoicesListed: number
  /** Invoices SubscribeInvoices replayed before going live (adds and settlements above the given indexes). */
  invoicesReplayed: number
}

export interface FakeNode {
  pubkey: string
  nodeKey: Uint8Array
  alias: string
  network: FakeNetwork
  now(): number
  blockHeight(): number
  blockHash: string
  invoices: InvoiceBook
  payments: PaymentBook
  wallet: ChainWallet
  /** Transactions others broadcast and their blocks: what ChainNotifier answers from. */
  chain: FakeChain
  channels: ChannelBook
  faults: Faults
  traffic: Traffic
  /** One function per open SubscribeInvoices stream: ends it with UNAVAILABLE, as a broken connection would. */
  invoiceStreamDrops: Set<() => void>
  /** The same for open SendPaymentV2 / TrackPaymentV2 streams. */
  paymentStreamDrops: Set<() => void>
  /** The same for open RegisterConfirmationsNtfn streams. */
  chainStreamDrops: Set<() => void>
  /**
   * Other nodes the fake can reach (a swap provider's node), by pubkey: a payment to one stays in flight and is
   * handed to its function, which resolves it later through `payments` (settle with a preimage, or fail).
   */
  remoteNodes: Map<string, (payment: FakePayment) => void>
  /** Told of every new block. */
  blockListeners: Set<(height: number) => void>
  /** A new block: pending coins and the chain's mempool confirm. */
  mine(): void
}

export function createFakeNode(opts: { network: FakeNetworkName; now(): number; alias?: string }): FakeNode {
  const nodeKey = secp256k1.utils.randomSecretKey()
  const pubkey = Buffer.from(secp256k1.getPublicKey(nodeKey, true)).toString('hex')
  const network = fakeNetworks[opts.network]
  let height = 800
  const blockHeight = () => height
  const wallet = chainWallet({ network: network.chain, now: opts.now })
  const node: FakeNode = {
    pubkey,
    nodeKey,
    alias: opts.alias ?? 'fake-lnd',
    network,
    now: opts.now,
    blockHeight,
    blockHash: randomBytes(32).toString('hex'),
    invoices: invoiceBook({ nodeKey, network: network.invoice, now: opts.now, blockHeight }),
    payments: paymentBook({ now: opts.now, blockHeight }),
    wallet,
    chain: fakeChain({ tipHeight: blockHeight }),
    channels: channelBook({ ownPubkey: pubkey, wallet, now: opts.now, blockHeight }),
    faults: {
      unavailable: false,
      locked: false,
      starting: false,
      unimplemented: new Set(),
      refuseInvoiceStreams: false,
      holdPayments: false,
      pathfinding: false,
      replaySettledInAddOrder: false,
      hiddenFromReplay: new Set(),
      trackDelayMs: 0,
    },
    traffic: { calls: new Map(), invoicesListed: 0, invoicesReplayed: 0 },
    invoiceStreamDrops: new Set(),
    paymentStreamDrops: new Set(),
    chainStreamDrops: new Set(),
    remoteNodes: new Map(),
    blockListeners: new Set(),
    mine() {
      height++
      node.blockHash = randomBytes(32).toString('hex')
      wallet.confirmAll()
      node.chain.mine(height, node.blockHash)
      for (const listener of node.blockListeners) listener(height)
    },
  }
  return node
}
