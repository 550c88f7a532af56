// The node room's door: the LightningNode interface, its value types, and createNode, which picks the backend
// named by `[node] backend`. Nothing outside src/node/ imports a backend.
import type { LightningNode, NodeConfig, NodeDeps } from './lightning-node.js'
import type { Config } from '../config/index.js'
import type { HandlerTable } from '../bus/index.js'
import { chainHandlers } from './handlers/chain.js'
import { channelHandlers } from './handlers/channels.js'
import { infoHandlers } from './handlers/info.js'
import { assetHandlers, type OperationBooks } from './handlers/assets.js'
import { invoiceHandlers } from './handlers/invoices.js'
import { nodeViewHandlers } from './handlers/node-view.js'
import { resolveLndConnection } from './lnd/lnd-settings.js'

export type {
  AddPeerRequest,
  AddressType,
  BitcoinNetwork,
  BumpFeeRequest,
  ChainConfirmation,
  ChainFeeEstimate,
  ChainFeeEstimateRequest,
  ChainHistoryPage,
  ChainHistoryRequest,
  ChainSend,
  ChannelPolicy,
  CloseChannelRequest,
  ConfirmationRequest,
  ClosedChannel,
  CreateInvoiceRequest,
  DecodedInvoice,
  ForwardingHistoryRequest,
  HistoryPage,
  HistoryPageRequest,
  InvoiceState,
  LightningNode,
  LndConnectionConfig,
  NodeBalances,
  NodeChainTransaction,
  NodeChannel,
  NodeConfig,
  NodeDeps,
  NodeForward,
  NodeInfo,
  NodeInvoice,
  NodeInvoiceRecord,
  NodeMockControls,
  NodePaymentRecord,
  NodePeer,
  OpenChannelRequest,
  OpenedChannel,
  PaymentOutcome,
  PayRequest,
  SendToAddressRequest,
  SettledInvoice,
  Timers,
  UpdateChannelPolicyRequest,
} from './lightning-node.js'

export { defaultLndSocket, resolveLndConnection } from './lnd/lnd-settings.js'

/** The start log's one loud line while test mode is on. */
export const mockModeWarning =
  'MOCK MODE IS ON ([node] mock = true): anyone who can reach this daemon can credit wallets from nothing; never use it with real money'

/** The backend's options from `[node]` (and, for LND, the environment's LND_* settings). */
export function nodeOptions(config: Config['node'], dataDir: string, env: NodeJS.ProcessEnv): NodeConfig {
  return {
    backend: config.backend,
    network: config.network,
    alias: config.alias,
    simulatePayments: config.simulate_payments,
    // Test mode mints money for anyone who can reach the daemon, so it is off unless the operator asks.
    mock: config.mock,
    dataDir,
    lnd:
      config.backend === 'lnd'
        ? resolveLndConnection({ socket: config.lnd_socket, certPath: config.lnd_cert_path, macaroonPath: config.lnd_macaroon_path }, env)
        : undefined,
    waitForNode: config.wait_for_node,
  }
}

/**
 * Builds the configured backend. The embedded node creates its key file in `config.dataDir` on first start; the
 * LND backend refuses with an Error of one line when LND cannot be used (or, with `waitForNode`, waits for it).
 */
export async function createNode(config: NodeConfig, deps: NodeDeps): Promise<LightningNode> {
  // Each backend is loaded only when it is the one configured: the `lightning` package is most of the LND
  // backend's import time, and the embedded node brings the BOLT11 signer (a bundle of some 380 kB).
  switch (config.backend) {
    case 'embedded': {
      const { createEmbeddedNode } = await import('./embedded/embedded-node.js')
      return createEmbeddedNode(config, deps)
    }
    case 'lnd': {
      const { createLndNode } = await import('./lnd/lnd-node.js')
      return createLndNode(config, deps)
    }
  }
}
export { nodeNotReadyReason } from './readiness.js'
export { asWireChannel } from './handlers/channels.js'
export type { BookedOperation, OperationBooks } from './handlers/assets.js'

/**
 * The node room's operations, answered from the configured LightningNode: the operator's node administration
 * (info, seed, assets, peers, channels, on-chain bumps, the console's node page) and the node-only invoice operations (handlers/).
 */
export interface NodeHandlerDeps {
  node: LightningNode
  /** What the wallets' books say of the node's operations (GetAssetsAndLiabilities). */
  books: OperationBooks
  /** Settles once the wallet has credited the node's settlement `settleIndex` (or after `withinMs`). */
  settlementApplied?(settleIndex: number, withinMs: number, paymentHash?: string): Promise<void>
}

export function nodeHandlers(deps: NodeHandlerDeps): HandlerTable {
  return {
    ...infoHandlers(deps.node),
    ...assetHandlers(deps),
    ...chainHandlers(deps.node),
    ...channelHandlers(deps.node),
    ...invoiceHandlers(deps.node, deps.settlementApplied),
    ...nodeViewHandlers(deps.node),
  }
}
