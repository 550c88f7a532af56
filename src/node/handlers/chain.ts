// The operator's on-chain operation: BumpTx raises the fee of an unconfirmed transaction (child pays for parent).
import type { HandlerTable } from '../../bus/index.js'
import type { LightningNode } from '../lightning-node.js'
import { requireNonNegative, requirePositive, requireTxid } from './input-rules.js'

export function chainHandlers(node: LightningNode): HandlerTable {
  return {
    BumpTx: async input => {
      const txid = requireTxid(input.txid, 'txid')
      requireNonNegative(input.output_index, 'output_index')
      // A zero rate would leave the choice to the node's estimator, which cannot be a bump.
      requirePositive(input.sat_per_vbyte, 'sat_per_vbyte')
      await node.bumpFee({ txid, outputIndex: input.output_index, satPerVbyte: input.sat_per_vbyte })
      return {}
    },
  }
}
