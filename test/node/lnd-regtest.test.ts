// Opt-in: the LightningNode contract against a real regtest LND, where the fake cannot speak for LND (stream
// timing, LND's own error words, its validators). Runs when LND_SOCKET (host:port), LND_CERT (path of tls.cert)
// and LND_MACAROON (path of admin.macaroon) are set; otherwise it says it is skipped and passes trivially.
// The node should be synced, its wallet funded is not needed: cases that need a simulated world (paying its own
// invoices, made-up peers, a funded wallet) are reported skipped, and the expiry case waits a real minute.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { randomBytes } from 'node:crypto'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { systemClock } from '../../src/bus/context.js'
import { createNode } from '../../src/node/index.js'
import { openStore } from '../../src/store/index.js'
import { nodeContract, type NodeHarness } from './contract.js'

const { LND_SOCKET: socket, LND_CERT: certPath, LND_MACAROON: macaroonPath } = process.env

async function openRegtestLnd(): Promise<NodeHarness> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'relaypay-regtest-'))
  const store = openStore({ dataDir, synchronous: 'normal' })
  const cleanUp = () => {
    store.close()
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
  try {
    const node = await createNode(
      {
        backend: 'lnd',
        network: 'regtest',
        alias: 'relaypay-regtest',
        simulatePayments: false,
        mock: false,
        dataDir,
        lnd: { socket: socket!, certPath: certPath!, macaroonPath: macaroonPath! },
      },
      { db: store.db, clock: systemClock, random: n => new Uint8Array(randomBytes(n)) },
    )
    return {
      node,
      network: 'regtest',
      now: () => Date.now(),
      // A real node's clock cannot be moved: wait it out.
      advance: ms => new Promise(resolve => setTimeout(resolve, ms)),
      async close() {
        await node.close()
        cleanUp()
      },
    }
  } catch (err) {
    cleanUp()
    throw err
  }
}

if (socket && certPath && macaroonPath) {
  nodeContract(`lnd backend (regtest LND at ${socket})`, () => openRegtestLnd(), { revealsSeed: false, simulated: false })
} else {
  const skipped = suite('lnd backend against a real regtest LND')
  skipped('SKIPPED: set LND_SOCKET, LND_CERT and LND_MACAROON to run the contract against a regtest LND', () => {
    console.log('lnd-regtest: skipped, no regtest LND configured (LND_SOCKET, LND_CERT, LND_MACAROON unset)')
    assert.ok(!(socket && certPath && macaroonPath))
  })
  skipped.run()
}
