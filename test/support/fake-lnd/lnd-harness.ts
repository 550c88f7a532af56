// Opens relaypay's LND backend the way the daemon does (createNode with backend 'lnd' and a real store), against
// a fake LND that shares the test's manual clock: moving the clock expires the fake's invoices and runs the
// backend's reconnect and payment timers.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { randomBytes } from 'node:crypto'
import { openStore } from '../../../src/store/index.js'
import { createNode, type LightningNode, type LndConnectionConfig } from '../../../src/node/index.js'
import type { NodeHarness } from '../node-harness.js'
import { ManualTime } from '../manual-time.js'
import { startFakeLnd, type FakeLnd } from './fake-lnd.js'

export interface LndHarness extends NodeHarness {
  fake: FakeLnd
  time: ManualTime
}

export interface OpenLndOptions {
  /** Reuse a running fake (its clock must be `time`). */
  fake?: FakeLnd
  time?: ManualTime
  /** Overrides parts of the fake's connection (a wrong macaroon, another port). */
  connection?: Partial<LndConnectionConfig>
  waitForNode?: boolean
}

/** A store in a temporary data dir, as the daemon gives every backend one. */
export function temporaryStore() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'relaypay-lnd-'))
  const store = openStore({ dataDir, synchronous: 'normal' })
  return {
    dataDir,
    db: store.db,
    close() {
      store.close()
      fs.rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

/** createNode for backend 'lnd' with the test's clock and timers. */
export async function createLndBackend(
  connection: LndConnectionConfig,
  time: ManualTime,
  store: { dataDir: string; db: ReturnType<typeof temporaryStore>['db'] },
  waitForNode = false,
): Promise<LightningNode> {
  return createNode(
    {
      backend: 'lnd',
      network: 'regtest',
      alias: 'relaypay-test',
      simulatePayments: false,
      mock: false,
      dataDir: store.dataDir,
      lnd: connection,
      waitForNode,
    },
    { db: store.db, clock: time, random: n => new Uint8Array(randomBytes(n)), timers: time },
  )
}

/** A uvu test body run against a fresh harness, closed afterwards whatever happens. */
export const withLnd = (fn: (h: LndHarness) => Promise<void>) => async () => {
  const h = await openLnd()
  try {
    await fn(h)
  } finally {
    await h.close()
  }
}

export async function openLnd(opts: OpenLndOptions = {}): Promise<LndHarness> {
  // Starts at the wall clock: the `lightning` package measures some times (invoice expiry) against it.
  const time = opts.time ?? new ManualTime(Date.now())
  const fake = opts.fake ?? (await startFakeLnd({ now: () => time.now() }))
  const store = temporaryStore()
  let node: LightningNode
  try {
    node = await createLndBackend({ ...fake.connection, ...opts.connection }, time, store, opts.waitForNode)
  } catch (err) {
    store.close()
    if (!opts.fake) await fake.close()
    throw err
  }
  return {
    node,
    network: 'regtest',
    fake,
    time,
    now: () => time.now(),
    advance: ms => time.advance(ms),
    async close() {
      await node.close()
      store.close()
      if (!opts.fake) await fake.close()
    },
  }
}
