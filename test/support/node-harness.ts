// What a backend's test hands the node contract (test/node/contract.ts): a started node with its clock, for the
// embedded node and for LND over the fake server alike.
import type { BitcoinNetwork, LightningNode } from '../../src/node/index.js'

export interface NodeHarness {
  node: LightningNode
  network: BitcoinNetwork
  /** The node's clock. */
  now(): number
  /** Moves the node's clock forward, running whatever falls due on the way. */
  advance(ms: number): Promise<void>
  close(): Promise<void>
}

export interface HarnessOptions {
  simulatePayments?: boolean
  mock?: boolean
}

export type MakeNode = (opts?: HarnessOptions) => Promise<NodeHarness>
