// The node room's door: the LightningNode interface, its value types, and createNode, which picks the backend
// named by `[node] backend`. Nothing outside src/node/ imports a backend.
import { createEmbeddedNode } from './embedded/embedded-node.js'
import type { LightningNode, NodeConfig, NodeDeps } from './lightning-node.js'

export type {
  AddPeerRequest,
  AddressType,
  BitcoinNetwork,
  BumpFeeRequest,
  ChainFeeEstimate,
  ChainFeeEstimateRequest,
  ChainSend,
  ChannelPolicy,
  CloseChannelRequest,
  ClosedChannel,
  CreateInvoiceRequest,
  DecodedInvoice,
  ForwardingHistoryRequest,
  InvoiceState,
  LightningNode,
  LndConnectionConfig,
  NodeBalances,
  NodeChannel,
  NodeConfig,
  NodeDeps,
  NodeForward,
  NodeInfo,
  NodeInvoice,
  NodeMockControls,
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

/**
 * Builds the configured backend. The embedded node creates its key file in `config.dataDir` on first start; the
 * LND backend refuses with an Error of one line when LND cannot be used (or, with `waitForNode`, waits for it).
 */
export async function createNode(config: NodeConfig, deps: NodeDeps): Promise<LightningNode> {
  switch (config.backend) {
    case 'embedded':
      return createEmbeddedNode(config, deps)
    case 'lnd': {
      // Loaded only for this backend: the `lightning` package is most of the daemon's import time.
      const { createLndNode } = await import('./lnd/lnd-node.js')
      return createLndNode(config, deps)
    }
  }
}
export { nodeHandlers, type NodeHandlerDeps } from './handlers.js'
export { nodeNotReadyReason } from './readiness.js'
