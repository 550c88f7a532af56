// The node room's door: the LightningNode interface, its value types, and createNode, which picks the backend
// named by `[node] backend`. Nothing outside src/node/ imports a backend.
import { OperationError } from '../bus/errors.js'
import { createEmbeddedNode } from './embedded/embedded-node.js'
import type { LightningNode, NodeConfig, NodeDeps } from './lightning-node.js'

export type {
  AddPeerRequest,
  AddressType,
  BitcoinNetwork,
  BumpFeeRequest,
  ChainSend,
  ChannelPolicy,
  CloseChannelRequest,
  ClosedChannel,
  CreateInvoiceRequest,
  DecodedInvoice,
  ForwardingHistoryRequest,
  InvoiceState,
  LightningNode,
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

/** Builds the configured backend; the embedded node creates its key file in `config.dataDir` on first start. */
export async function createNode(config: NodeConfig, deps: NodeDeps): Promise<LightningNode> {
  switch (config.backend) {
    case 'embedded':
      return createEmbeddedNode(config, deps)
    case 'lnd':
      throw new OperationError('not_implemented', 'LND backend not available yet: use [node] backend = "embedded"')
  }
}
export { nodeHandlers, type NodeHandlerDeps } from './handlers.js'
