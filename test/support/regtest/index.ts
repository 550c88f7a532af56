// The real Lightning network of the tests: a regtest network of btcd and LND nodes A (relaypay's), R (a router) and
// B (the outside world), built from their Go modules (binaries.ts) and run on loopback (network.ts). A test file
// starts its own network with startRegtest, so restarting or killing a node in one file touches no other.
//
// Which LND versions a file runs on: RELAYPAY_TEST_LND_VERSIONS (comma-separated) or every version whose binaries
// are in the cache. With none built the real-LND tests are skipped with one printed line; where
// RELAYPAY_TEST_REQUIRE_REGTEST is set (CI, which builds them first) a missing version fails instead.
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { suite } from '../suite.js'
import * as assert from 'uvu/assert'
import { systemClock } from '../../../src/bus/context.js'
import { createNode } from '../../../src/node/index.js'
import { openStore } from '../../../src/store/index.js'
import type { NodeHarness } from '../node-harness.js'
import { cacheRoot, findBinaries, type LndVersion } from './binaries.js'
import { lndVersionsForRun } from './versions.js'
import { setPasswordAndUnlock } from './unlock.js'
import { killNow } from './processes.js'
import { upFromTemplate } from './template.js'
import {
  backOnNetwork,
  blockHeight,
  btcctl,
  down,
  lncli,
  mine,
  nodeNames,
  restartNode,
  startNode,
  stopNode,
  synced,
  up,
  waitFor,
  type NetworkState,
  type NodeDatabase,
  type NodeName,
} from './network.js'

export { channelSats, pushSats, waitFor, type NetworkState, type NodeName } from './network.js'
export { lndVersions, type LndVersion } from './binaries.js'

/** The versions this run tests, or an empty list after one printed line saying why the tests are skipped. */
export function lndVersionsToTest(fileName: string): LndVersion[] {
  const required = process.env.RELAYPAY_TEST_REQUIRE_REGTEST === '1'
  const wanted = lndVersionsForRun()
  const missing = wanted.filter(version => !findBinaries(version))
  if (missing.length > 0 && required) {
    throw new Error(`RELAYPAY_TEST_REQUIRE_REGTEST is set but the binaries of LND ${missing.join(', ')} are not in ${cacheRoot()} (npm run regtest -- build)`)
  }
  const versions = wanted.filter(version => findBinaries(version))
  if (versions.length === 0) {
    const skipped = suite(`${fileName} on a real regtest LND`)
    skipped('SKIPPED: no LND binaries built (npm run regtest -- build)', () => {
      console.log(`${fileName}: skipped, no regtest binaries in ${cacheRoot()} (npm run regtest -- build)`)
      assert.is(versions.length, 0)
    })
    skipped.run()
  }
  return versions
}

export interface PaidByCli {
  payment_hash: string
  payment_preimage: string
  status: string
  fee_msat: string
  value_msat: string
  failure_reason: string
}

/** A started network and the commands of its outside world. */
export class Regtest {
  constructor(readonly state: NetworkState) {}

  get lndVersion(): LndVersion {
    return this.state.lndVersion
  }

  node(name: NodeName) {
    return this.state.nodes[name]
  }

  /** How relaypay reaches A. */
  get connection() {
    const a = this.state.nodes.A
    return { socket: a.rpc, certPath: a.cert, macaroonPath: a.macaroon }
  }

  /** The daemon's [node] section for A. */
  nodeConfig(extra = ''): string {
    const c = this.connection
    return `[node]\nbackend = "lnd"\nnetwork = "regtest"\nlnd_socket = "${c.socket}"\nlnd_cert_path = "${c.certPath}"\nlnd_macaroon_path = "${c.macaroonPath}"\n${extra}`
  }

  /** lncli against one node, its JSON answer parsed (its text, with `raw`). */
  lncli<T = any>(name: NodeName, args: string[], opts: { raw?: boolean } = {}): Promise<T> {
    return lncli<T>(this.state, name, args, opts)
  }

  btcctl(args: string[]): Promise<string> {
    return btcctl(this.state, args)
  }

  mine(blocks: number): Promise<string[]> {
    return mine(this.state, blocks)
  }

  height(): Promise<number> {
    return blockHeight(this.state)
  }

  /** An invoice of `name` (B by default), as lncli addinvoice answers. */
  async addInvoice(name: NodeName, amountSats: number, memo = 'regtest'): Promise<{ paymentRequest: string; paymentHash: string }> {
    const added = await this.lncli<{ payment_request: string; r_hash: string }>(name, ['addinvoice', `--amt=${amountSats}`, `--memo=${memo}`])
    return { paymentRequest: added.payment_request, paymentHash: added.r_hash }
  }

  /** `name` pays a BOLT 11 request and waits for the outcome (lncli payinvoice --json). */
  async pay(name: NodeName, paymentRequest: string, opts: { amountSats?: number; feeLimitSats?: number } = {}): Promise<PaidByCli> {
    const args = ['payinvoice', '--force', '--json', `--fee_limit=${opts.feeLimitSats ?? 100}`, '--timeout=60s']
    if (opts.amountSats !== undefined) args.push(`--amt=${opts.amountSats}`)
    return this.lncli<PaidByCli>(name, [...args, paymentRequest])
  }

  /** `name` sends a keysend payment of `amountSats` to `dest`. */
  keysend(name: NodeName, dest: string, amountSats: number): Promise<PaidByCli> {
    return this.lncli<PaidByCli>(name, ['sendpayment', '--force', '--json', '--keysend', `--dest=${dest}`, `--amt=${amountSats}`, '--fee_limit=100'])
  }

  /** Stops `name` (SIGTERM, or SIGKILL for a crash) and starts it again, synced and with its channels active. */
  restart(name: NodeName, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    return restartNode(this.state, name, signal)
  }

  stop(name: NodeName, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    return stopNode(this.state, name, signal)
  }

  /** Starts a stopped node and waits until it answers, is synced and has its channels back. */
  async start(name: NodeName): Promise<void> {
    await startNode(this.state, name)
    await backOnNetwork(this.state, name)
  }

  /**
   * btcd stops answering for `ms` (SIGSTOP, then SIGCONT): the nodes' calls to it and its block notifications stall,
   * and come back with the chain as it was. This is the chain backend's outage a regtest network can have: a btcd
   * started again on regtest deletes its block database first (it gives the regression test a clean chain on every
   * start), so a restart would bring it back on another chain. Mines a block after and waits until every node is
   * synced to it.
   */
  async stallBtcd(ms: number): Promise<void> {
    const { pid } = this.state.btcd.process
    process.kill(pid, 'SIGSTOP')
    try {
      await new Promise(resolve => setTimeout(resolve, ms))
    } finally {
      process.kill(pid, 'SIGCONT')
    }
    await this.mine(1)
    await Promise.all(nodeNames.map(name => synced(this.state, name)))
  }

  /** Starts a stopped node without unlocking its wallet; it waits, LOCKED, for unlock(). */
  startLocked(name: NodeName): Promise<void> {
    return startNode(this.state, name, { locked: true })
  }

  /** Unlocks a node started locked (its wallet gets `password`), then waits as start() does. */
  async unlock(name: NodeName, password: string): Promise<void> {
    await setPasswordAndUnlock(this.state, name, password)
    await this.waitFor(`LND ${name} to answer once unlocked`, async () => ((await this.lncli(name, ['getinfo']).catch(() => undefined)) ? true : undefined))
    await backOnNetwork(this.state, name)
  }

  waitFor<T>(what: string, check: () => Promise<T | undefined>, timeoutMs?: number): Promise<T> {
    return waitFor(what, check, timeoutMs)
  }

  async close(): Promise<void> {
    await down(this.state.dir, { remove: true })
  }
}

/**
 * Starts a network of its own in a temporary folder, copied from the template of that version (template.ts: built
 * once, about a minute), stopped and removed by close().
 */
export async function startRegtest(lndVersion: LndVersion, opts: { aDatabase?: NodeDatabase } = {}): Promise<Regtest> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `relaypay-regtest-${lndVersion}-`))
  // A's SQLite database is one file's subject: a template of it would be built for one copy, and a copy costs about
  // 12 s of CPU on top of the 28 s of coming up from nothing.
  const state = opts.aDatabase === 'sqlite' ? await up({ dir, lndVersion, ...opts }) : await upFromTemplate({ dir, lndVersion, ...opts })
  // A test that crashes must not leave its daemons running: kill them as the process exits.
  process.once('exit', () => {
    for (const name of nodeNames) killNow(state.nodes[name].process)
    killNow(state.btcd.process)
  })
  return new Regtest(state)
}

/**
 * A test file's way onto the network: for each LND version this run tests, a network of its own is started, the
 * file's suites registered on it by `register`, and the network stopped after the last of them.
 */
export async function onRegtestNetworks(
  fileName: string,
  register: (net: Regtest) => void,
  opts: { aDatabase?: NodeDatabase } = {},
): Promise<void> {
  for (const version of lndVersionsToTest(fileName)) {
    const net = await startRegtest(version, opts)
    register(net)
    const done = suite(`the regtest network of LND ${version}`)
    done.after(() => net.close())
    done('stops', () => assert.ok(true))
    done.run()
  }
}

/** relaypay's LND backend on A, as the daemon opens it (a store in a temporary data dir), with A's admin macaroon or another. */
export async function openNodeOnA(net: Regtest, opts: { macaroonPath?: string } = {}): Promise<NodeHarness> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'relaypay-regtest-node-'))
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
        lnd: { ...net.connection, ...(opts.macaroonPath ? { macaroonPath: opts.macaroonPath } : {}) },
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
