// Opens the embedded node the way the daemon will: a real SQLite store in a temporary data dir, the node built by
// createNode, and a manual clock and timer source the test moves.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { randomBytes } from 'node:crypto'
import { openStore } from '../../src/store/index.js'
import { createNode, type BitcoinNetwork, type LightningNode, type SettledInvoice } from '../../src/node/index.js'
import type { NodeHarness } from './contract.js'
import { ManualTime } from '../support/manual-time.js'

export const startMs = Date.UTC(2025, 4, 1, 12, 0, 0)
export const delayMs = 200

export interface EmbeddedHarness extends NodeHarness {
  dataDir: string
  time: ManualTime
  /** Closes node and database but keeps the data dir, for a restart. */
  stop(): Promise<void>
}

interface OpenOptions {
  dataDir?: string
  time?: ManualTime
  network?: BitcoinNetwork
  simulatePayments?: boolean
  mock?: boolean
}

export async function openEmbedded(opts: OpenOptions = {}): Promise<EmbeddedHarness> {
  const dataDir = opts.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'relaypay-node-'))
  const time = opts.time ?? new ManualTime(startMs)
  const network = opts.network ?? 'regtest'
  const store = openStore({ dataDir, synchronous: 'normal' })
  let node: LightningNode
  try {
    node = await createNode(
      {
        backend: 'embedded',
        network,
        alias: 'relaypay-test',
        simulatePayments: opts.simulatePayments ?? false,
        mock: opts.mock ?? false,
        dataDir,
      },
      {
        db: store.db,
        clock: time,
        random: n => new Uint8Array(randomBytes(n)),
        timers: time,
        simulatedPaymentDelayMs: delayMs,
      },
    )
  } catch (err) {
    store.close()
    throw err
  }
  const stop = async () => {
    await node.close()
    store.close()
  }
  return {
    node,
    network,
    dataDir,
    time,
    now: () => time.now(),
    advance: ms => time.advance(ms),
    stop,
    close: async () => {
      await stop()
      fs.rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

export function collect(node: LightningNode): SettledInvoice[] {
  const seen: SettledInvoice[] = []
  node.settlementsAfter('now').subscribe(settled => seen.push(settled))
  return seen
}

