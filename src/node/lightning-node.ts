// The one Lightning node surface the daemon uses, whichever backend stands behind it. Amounts carry their unit in
// the name (msat for Lightning, sats where Bitcoin itself has no msat); times are unix milliseconds.
// Failures are thrown as OperationError; absence that is normal (an unknown payment hash) is `undefined`.
import type { Observable, Clock, Timers } from '../bus/index.js'
import type {
  ChainHistoryPage, ChainHistoryRequest, HistoryPage, HistoryPageRequest, NodeInvoiceRecord, NodePaymentRecord,
} from './node-history.js'
export type {
  ChainHistoryPage, ChainHistoryRequest, HistoryPage, HistoryPageRequest, NodeChainTransaction, NodeInvoiceRecord, NodePaymentRecord,
} from './node-history.js'
import type { Logger } from 'pino'
import type { Db } from '../store/index.js'

export type BitcoinNetwork = 'regtest' | 'testnet' | 'signet' | 'mainnet'

/** The `[node]` section as the node needs it. */
export interface NodeConfig {
  backend: 'embedded' | 'lnd'
  network: BitcoinNetwork
  alias: string
  /** Embedded only: invoices of other nodes "succeed" after a short delay with a small fee (demos). */
  simulatePayments: boolean
  /** Enables the mock controls (`node.mock`), e.g. for SetMockInvoiceAsPaid. */
  mock: boolean
  dataDir: string
  /** Required with backend 'lnd': where LND listens and the files that let us in. */
  lnd?: LndConnectionConfig
  /** LND only: while LND is unreachable or locked at start, wait and retry with backoff instead of refusing. */
  waitForNode?: boolean
}

/** How to reach one LND over gRPC (its `[node]` keys, or the upstream env names LND_ADDRESS, …). */
export interface LndConnectionConfig {
  /** `host:port` of LND's gRPC listener. */
  socket: string
  /** LND's tls.cert; leave out only when LND's certificate is signed by a CA this machine trusts. */
  certPath?: string
  /** A macaroon granting what relaypay uses (admin.macaroon does). */
  macaroonPath: string
}

export type { Timers } from '../bus/index.js'

export interface NodeDeps {
  db: Db
  clock: Clock
  /** Cryptographically strong random bytes. */
  random(bytes: number): Uint8Array
  /** Defaults to real timers. */
  timers?: Timers
  /** How long a simulated foreign payment takes (default 200 ms). */
  simulatedPaymentDelayMs?: number
  log?: Logger
}

export interface NodeInfo {
  pubkey: string
  alias: string
  network: BitcoinNetwork
  version: string
  blockHeight: number
  syncedToChain: boolean
  syncedToGraph: boolean
  activeChannelsCount: number
  pendingChannelsCount: number
  peersCount: number
  /** `pubkey@host:port` the node listens on; empty when it listens nowhere. */
  uris: string[]
}

export interface CreateInvoiceRequest {
  /** Omitted (or 0): the payer chooses the amount. */
  amountMsat?: number
  /** Shown to the payer; at most 639 bytes (what a BOLT11 `d` field holds). */
  description?: string
  /** 32-byte hex committed to instead of a description (NIP-57 zaps, LUD-06). Excludes `description`. */
  descriptionHash?: string
  /** Default 3600. */
  expirySeconds?: number
  /** Ask for blinded paths instead of route hints; backends without routes ignore it. */
  blinded?: boolean
}

export type InvoiceState = 'unpaid' | 'paid' | 'expired'

/** An invoice this node issued. */
export interface NodeInvoice {
  paymentHash: string
  paymentRequest: string
  amountMsat?: number
  description?: string
  descriptionHash?: string
  createdAt: number
  expiresAt: number
  state: InvoiceState
  settledAt?: number
  receivedMsat?: number
  /** Known to the node from the start; revealed here only once the invoice is paid. */
  preimage?: string
  /** Its place in settlement order once paid, where the backend reports it (the embedded node; LND's listings). */
  settleIndex?: number
}

/** One settlement of one of this node's invoices, emitted once, after it is stored. */
export interface SettledInvoice {
  paymentHash: string
  paymentRequest: string
  /** What was received (the invoice amount, or the payer's choice for an open-amount invoice). */
  amountMsat: number
  settledAt: number
  /** 1, 2, 3… in settlement order; resume with `settlementsAfter(lastSeenIndex)`. */
  settleIndex: number
}

/** Any BOLT11 invoice, as the node reads it (signature checked, payee recovered). */
export interface DecodedInvoice {
  paymentRequest: string
  paymentHash: string
  payeePubkey: string
  amountMsat?: number
  description?: string
  descriptionHash?: string
  createdAt: number
  expiresAt: number
  minFinalCltvExpiry: number
  paymentAddr?: string
}

export interface PayRequest {
  paymentRequest: string
  /** Only for invoices without an amount; for others it must be absent or equal to the invoice amount. */
  amountMsat?: number
  maxFeeMsat: number
  /** How long to wait for an outcome before answering `in_flight`. */
  timeoutMs: number
}

/**
 * The outcome of a payment. `failed` means certainly not paid (safe to refund); anything the node cannot be sure
 * of is `in_flight`, to be resolved later with trackPayment. `pay` throws (nothing sent, nothing recorded) when
 * it refuses the request up front: invalid, expired or already-paid invoice, wrong network, amount mismatch.
 */
export type PaymentOutcome =
  | {
      status: 'succeeded'
      paymentHash: string
      amountMsat: number
      feeMsat: number
      preimage: string
      settledAt: number
    }
  | { status: 'failed'; paymentHash: string; failureReason: string }
  | { status: 'in_flight'; paymentHash: string }

export type AddressType = 'WITNESS_PUBKEY_HASH' | 'NESTED_PUBKEY_HASH' | 'TAPROOT_PUBKEY'

export interface NodeBalances {
  /** Confirmed on-chain wallet balance. */
  chainBalanceSats: number
  /** Incoming on-chain funds not yet confirmed. */
  unconfirmedChainBalanceSats: number
  /** Our side of the open channels. */
  channelsLocalMsat: number
  /** The peers' side of the open channels: what we can receive. */
  channelsRemoteMsat: number
}

export interface SendToAddressRequest {
  address: string
  amountSats: number
  /** 0 or omitted: the node's own estimate. */
  satPerVbyte?: number
}

export interface ChainSend {
  txid: string
  feeSats: number
}

export interface ChainFeeEstimateRequest {
  address: string
  amountSats: number
  /** Blocks to confirm within; the node's default (6) when omitted. */
  targetConf?: number
}

export interface ChainFeeEstimate {
  /** What sending `amountSats` to `address` would cost in fees now. */
  feeSats: number
  satPerVbyte: number
}

export interface BumpFeeRequest {
  txid: string
  outputIndex: number
  satPerVbyte: number
}

/** A transaction to watch for on the node's own view of the chain. */
export interface ConfirmationRequest {
  /** The transaction id, hex, as block explorers show it. */
  txid: string
  /** Hex of an output script the transaction pays (LND matches block filters on it). */
  outputScript: string
  /** A height at or below the block that could include it: the node looks back from here, then ahead. */
  heightHint: number
}

/** The block that confirmed a watched transaction, and the transaction as mined. */
export interface ChainConfirmation {
  blockHeight: number
  blockHash: string
  /** The raw transaction, hex, so the caller can check it is the one it asked for. */
  rawTx: string
}

export interface NodePeer {
  pubkey: string
  /** `host:port` */
  address: string
  inbound: boolean
  connectedAt: number
}

export interface AddPeerRequest {
  pubkey: string
  host: string
  port: number
}

/** Our side's forwarding policy on a channel. */
export interface ChannelPolicy {
  baseFeeMsat: number
  feeRatePpm: number
  minHtlcMsat: number
  maxHtlcMsat: number
  timeLockDelta: number
}

export interface NodeChannel {
  /** Short channel id as a decimal uint64 string, as LND prints it. */
  channelId: string
  /** `funding_txid:output_index` */
  channelPoint: string
  peerPubkey: string
  capacitySats: number
  localBalanceMsat: number
  remoteBalanceMsat: number
  active: boolean
  private: boolean
  /** Seconds the node has watched the channel. */
  lifetimeSeconds: number
  /** When it went inactive; absent while active. */
  inactiveSince?: number
  label: string
  policy: ChannelPolicy
  /** Blocks our side stays locked after a force close of ours (the peer's to_self_delay); absent when not known. */
  forceCloseDelayBlocks?: number
}

export interface ClosedChannel {
  channelId: string
  channelPoint: string
  capacitySats: number
  closingTxid: string
  closedHeight: number
  closedAt: number
}

export interface OpenChannelRequest {
  peerPubkey: string
  localFundingSats: number
  pushSats?: number
  satPerVbyte?: number
  /** Where a cooperative close pays our side; a fresh P2WPKH address when omitted. */
  closeAddress?: string
  private?: boolean
}

export interface OpenedChannel {
  /** Hex of the pending channel id (OpenChannelResponse.channel_id). */
  pendingChannelId: string
  fundingTxid: string
  outputIndex: number
}

export interface CloseChannelRequest {
  fundingTxid: string
  outputIndex: number
  force: boolean
  satPerVbyte?: number
}

export interface UpdateChannelPolicyRequest {
  scope: { kind: 'channel'; channelPoint: string } | { kind: 'all' }
  policy: ChannelPolicy
}

export interface ForwardingHistoryRequest {
  /** Inclusive. */
  fromMs: number
  /** Exclusive. */
  toMs: number
}

export interface NodeForward {
  at: number
  incomingChannelId: string
  outgoingChannelId: string
  amountInMsat: number
  amountOutMsat: number
  feeMsat: number
}

/** Test and demo controls; present only when `[node] mock = true` and the backend supports them. */
export interface NodeMockControls {
  /**
   * Settles one of this node's invoices as if it had been paid over Lightning. `amountMsat` is required for an
   * open-amount invoice and must be absent (or equal) for one with an amount.
   */
  markInvoicePaidExternally(paymentRequest: string, amountMsat?: number): Promise<SettledInvoice>
  /** Records a forward through two open channels, moving their balances and earning `feeMsat`. */
  recordForward(forward: {
    incomingChannelId: string
    outgoingChannelId: string
    amountOutMsat: number
    feeMsat: number
  }): Promise<NodeForward>
}

export interface LightningNode {
  getInfo(): Promise<NodeInfo>
  /** 24 words from which the node's key can be restored. */
  getSeed(): Promise<string[]>

  createInvoice(request: CreateInvoiceRequest): Promise<NodeInvoice>
  /** `undefined` when the node issued no invoice with this hash. */
  lookupInvoice(paymentHash: string): Promise<NodeInvoice | undefined>
  /**
   * Settlements of this node's invoices in settle-index order, each once: first every one above `settleIndex`
   * (what a subscriber missed while away), then each new one as it happens; with 'now', only those after the
   * subscription. Cold: each subscription follows on its own (a remote node resumes a dropped stream from the
   * last index it emitted). Completes when the node closes.
   */
  settlementsAfter(settleIndex: number | 'now'): Observable<SettledInvoice>
  /** Reads any invoice for this node's network; invalid_input when it does not parse or verify. */
  decodeInvoice(paymentRequest: string): Promise<DecodedInvoice>

  pay(request: PayRequest): Promise<PaymentOutcome>
  /** The latest known outcome of a payment this node attempted; `undefined` when it never attempted one. */
  trackPayment(paymentHash: string): Promise<PaymentOutcome | undefined>

  newAddress(type: AddressType): Promise<string>
  sendToAddress(request: SendToAddressRequest): Promise<ChainSend>
  /** The fee of a prospective send from the node's wallet (LND EstimateFee). */
  estimateChainFee(request: ChainFeeEstimateRequest): Promise<ChainFeeEstimate>
  getBalances(): Promise<NodeBalances>
  bumpFee(request: BumpFeeRequest): Promise<void>
  /**
   * Resolves once the transaction has one confirmation on the node's chain (at once when it already has).
   * Rejects with OperationError when the node cannot watch (connection lost: ask again; no chain: not_implemented)
   * or with `signal`'s reason once it aborts.
   */
  waitForConfirmation(request: ConfirmationRequest, signal: AbortSignal): Promise<ChainConfirmation>
  /** Hands a raw transaction to the node's peers (LND PublishTransaction); resolves with its txid. */
  publishTransaction(rawTx: string): Promise<string>

  addPeer(request: AddPeerRequest): Promise<void>
  listPeers(): Promise<NodePeer[]>
  /** The aliases the node's graph knows for these node keys; a key the graph does not know is left out. */
  nodeAliases(pubkeys: readonly string[]): Promise<Record<string, string>>

  listChannels(): Promise<NodeChannel[]>
  listClosedChannels(): Promise<ClosedChannel[]>
  openChannel(request: OpenChannelRequest): Promise<OpenedChannel>
  /** Returns the closing transaction id. */
  closeChannel(request: CloseChannelRequest): Promise<{ closingTxid: string }>
  updateChannelPolicy(request: UpdateChannelPolicyRequest): Promise<void>

  forwardingHistory(request: ForwardingHistoryRequest): Promise<NodeForward[]>

  /** A window of the node's succeeded payments, the newest first (LND ListPayments, reversed). */
  listPayments(request: HistoryPageRequest): Promise<HistoryPage<NodePaymentRecord>>
  /** A window of the node's invoices, the newest first (LND ListInvoices, reversed). */
  listInvoices(request: HistoryPageRequest): Promise<HistoryPage<NodeInvoiceRecord>>
  /** The node's confirmed chain transactions, newest first (LND GetTransactions from a height down). */
  listChainTransactions(request: ChainHistoryRequest): Promise<ChainHistoryPage>

  readonly mock?: NodeMockControls

  /** Cancels pending timers and completes every settlementsAfter stream. The database stays open: its owner closes it. */
  close(): Promise<void>
}
