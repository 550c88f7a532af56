// A regtest Lightning network on loopback: btcd and three LND nodes, A (relaypay's node), R (a router) and B (the
// outside world), with channels A→R and R→B that have balance on both sides. Its state (ports, pids, files) is
// one JSON file in the network's folder, so a later command or another process can use it, restart a node, or
// stop it.
//
// Traps on the way up, each handled below:
// - btcd's `generate` pays the blocks to --miningaddr, which must be given at btcd's start; the address is A's,
//   which exists only once A runs on a btcd. So btcd starts without it, A makes an address, and btcd restarts with it.
// - LND calls itself unsynced while the newest block is more than two hours old (regtest's genesis is from 2011):
//   a block is mined after every LND start.
// - btcd's regtest activates segwit by BIP 9 signalling (144-block periods: started, locked in, active), so nothing
//   with a witness is accepted before block 432. Coinbase outputs spend after 100 blocks; 432 blocks leave A
//   hundreds of spendable coins.
// - Channels are announced after six confirmations; only then are there edges for multi-hop routes. Up waits until
//   A and B each see both edges with both directions' policies.
import fs from 'node:fs'
import path from 'node:path'
import { ensureBinaries, type Binaries, type LndVersion } from './binaries.js'
import { freePort } from '../ports.js'
import { run } from './run.js'
import { exited, running, startDaemonProcess, stopProcess, type Started } from './processes.js'

export const nodeNames = ['A', 'R', 'B'] as const
export type NodeName = (typeof nodeNames)[number]

export interface LndNodeState {
  name: NodeName
  dir: string
  rpc: string
  p2p: string
  cert: string
  macaroon: string
  pubkey: string
  process: Started
  args: string[]
}

export interface NetworkState {
  lndVersion: LndVersion
  dir: string
  /** Its daemons outlive the process that started them (`npm run regtest -- up`). */
  detached: boolean
  binaries: Binaries
  btcd: { rpc: string; p2p: string; user: string; pass: string; cert: string; process: Started; args: string[] }
  nodes: Record<NodeName, LndNodeState>
}

/** btcd regtest: segwit is active from the fourth 144-block period. */
const segwitActiveAt = 432
export const stateFile = (dir: string) => path.join(dir, 'network.json')
const rpcUser = 'relaypay'
const rpcPass = 'regtest'
/** The channel each of A→R and R→B starts with, and what its opener pushes to the other side. */
export const channelSats = 10_000_000
export const pushSats = 4_000_000

export function readState(dir: string): NetworkState | undefined {
  try {
    return JSON.parse(fs.readFileSync(stateFile(dir), 'utf8')) as NetworkState
  } catch {
    return undefined
  }
}

export function writeState(state: NetworkState): void {
  fs.writeFileSync(stateFile(state.dir) + '.partial', JSON.stringify(state, null, 2))
  fs.renameSync(stateFile(state.dir) + '.partial', stateFile(state.dir))
}

const pause = (ms: number) => new Promise(resolve => setTimeout(resolve, ms))

/**
 * Polls `check` until it returns a value that is not undefined; fails naming `what` after `timeoutMs`. The checks
 * mostly run lncli (a Go program started, a TLS handshake): polled every 100 ms, a wait of minutes kept a core busy,
 * so the pause grows to a second while nothing changes.
 */
export async function waitFor<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 120_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  let lastError: unknown
  let pauseMs = 100
  for (;;) {
    try {
      const value = await check()
      if (value !== undefined) return value
    } catch (err) {
      lastError = err
    }
    if (Date.now() > deadline) {
      const why = lastError instanceof Error ? `: ${lastError.message.split('\n')[0]}` : ''
      throw new Error(`regtest: timed out waiting for ${what}${why}`)
    }
    await pause(pauseMs)
    pauseMs = Math.min(1_000, Math.round(pauseMs * 1.5))
  }
}

/** lncli against one node, its JSON answer parsed (or its text, with `raw`). */
export async function lncli<T = any>(state: NetworkState, name: NodeName, args: string[], opts: { raw?: boolean } = {}): Promise<T> {
  const node = state.nodes[name]
  const out = await run(state.binaries.lncli, [
    `--rpcserver=${node.rpc}`,
    `--tlscertpath=${node.cert}`,
    `--macaroonpath=${node.macaroon}`,
    '--network=regtest',
    ...args,
  ])
  if (opts.raw) return out as T
  return (out.trim() === '' ? {} : JSON.parse(out)) as T
}

/** btcctl against the network's btcd; its answer as text. */
export async function btcctl(state: NetworkState, args: string[]): Promise<string> {
  const { btcd } = state
  return run(state.binaries.btcctl, [
    `--configfile=${path.join(state.dir, 'btcd', 'btcctl.conf')}`,
    '--regtest',
    `--rpcserver=${btcd.rpc}`,
    `--rpcuser=${btcd.user}`,
    `--rpcpass=${btcd.pass}`,
    `--rpccert=${btcd.cert}`,
    ...args,
  ])
}

/** Mines `blocks` blocks to A's address; the hashes. */
export async function mine(state: NetworkState, blocks: number): Promise<string[]> {
  return JSON.parse(await btcctl(state, ['generate', String(blocks)])) as string[]
}

export async function blockHeight(state: NetworkState): Promise<number> {
  return Number((await btcctl(state, ['getblockcount'])).trim())
}

function btcdArgs(state: Pick<NetworkState, 'dir' | 'btcd'>, miningAddress?: string): string[] {
  const dir = path.join(state.dir, 'btcd')
  return [
    `--configfile=${path.join(dir, 'btcd.conf')}`,
    '--regtest',
    '--txindex',
    '--rejectnonstd',
    '--nobanning',
    '--nostalldetect',
    '--trickleinterval=100ms',
    '--rpcmaxwebsockets=50',
    `--datadir=${path.join(dir, 'data')}`,
    `--logdir=${path.join(dir, 'logs')}`,
    `--rpccert=${state.btcd.cert}`,
    `--rpckey=${path.join(dir, 'rpc.key')}`,
    `--rpcuser=${state.btcd.user}`,
    `--rpcpass=${state.btcd.pass}`,
    `--rpclisten=${state.btcd.rpc}`,
    `--listen=${state.btcd.p2p}`,
    ...(miningAddress ? [`--miningaddr=${miningAddress}`] : []),
  ]
}

export async function startBtcd(state: NetworkState, miningAddress?: string): Promise<void> {
  state.btcd.args = btcdArgs(state, miningAddress)
  state.btcd.process = startDaemonProcess(state.binaries.btcd, state.btcd.args, path.join(state.dir, 'btcd', 'btcd.out'), state.detached)
  await waitFor('btcd to answer', async () => {
    if (!running(state.btcd.process)) throw new Error(`btcd exited: ${lastLines(path.join(state.dir, 'btcd', 'btcd.out'))}`)
    return (await blockHeight(state)) >= 0 ? true : undefined
  })
}

/**
 * The end of a daemon's output, for the error that says it exited: a test's network is removed when the test ends,
 * and the reason with it.
 */
function lastLines(file: string, count = 8): string {
  try {
    return `${file} ends:\n${fs.readFileSync(file, 'utf8').trimEnd().split('\n').slice(-count).join('\n')}`
  } catch {
    return `${file} cannot be read`
  }
}

function lndArgs(state: NetworkState, node: Omit<LndNodeState, 'args' | 'process' | 'pubkey'>): string[] {
  return [
    `--lnddir=${node.dir}`,
    `--configfile=${path.join(node.dir, 'lnd.conf')}`,
    `--alias=${node.name}`,
    '--bitcoin.regtest',
    '--bitcoin.node=btcd',
    `--btcd.rpchost=${state.btcd.rpc}`,
    `--btcd.rpcuser=${state.btcd.user}`,
    `--btcd.rpcpass=${state.btcd.pass}`,
    `--btcd.rpccert=${state.btcd.cert}`,
    '--noseedbackup',
    '--nobootstrap',
    '--accept-keysend',
    '--accept-amp',
    '--trickledelay=50',
    '--tlsextraip=127.0.0.1',
    '--norest',
    `--rpclisten=${node.rpc}`,
    `--listen=${node.p2p}`,
    // RPCS at debug: each call served is logged ("[/lnrpc.Lightning/GetInfo] requested"), so a test can read which
    // methods relaypay called.
    '--debuglevel=info,RPCS=debug',
  ]
}

/**
 * Starts (or starts again) one LND node and waits until its RPC server answers getinfo. `locked`: without the
 * flags that unlock its wallet, so LND waits for an unlock (`lncli state`: LOCKED) as an operator's node does after a
 * restart without auto-unlock; this waits until it says so.
 */
export async function startNode(state: NetworkState, name: NodeName, opts: { locked?: boolean } = {}): Promise<void> {
  const node = state.nodes[name]
  const args = opts.locked ? node.args.filter(arg => arg !== '--noseedbackup' && !arg.startsWith('--wallet-unlock-password-file=')) : node.args
  node.process = startDaemonProcess(state.binaries.lnd, args, path.join(node.dir, 'lnd.out'), state.detached)
  writeState(state)
  if (opts.locked) {
    await waitFor(`LND ${name} to wait for its unlock`, async () => {
      if (!running(node.process)) throw new Error(`LND ${name} exited: ${lastLines(path.join(node.dir, 'lnd.out'))}`)
      const said = await lncli<{ state?: string }>(state, name, ['state']).catch(() => undefined)
      return said?.state === 'LOCKED' ? true : undefined
    })
    return
  }
  const outcome = await waitFor(`LND ${name} to answer`, async () => {
    // A process already gone is said at once, with its last words, not waited on until the timeout.
    if (exited(node.process)) return 'exited'
    const info = await lncli<{ identity_pubkey: string }>(state, name, ['getinfo'])
    return info.identity_pubkey ? 'answered' : undefined
  })
  if (outcome === 'exited') throw new Error(`LND ${name} exited at its start: ${lastLines(path.join(node.dir, 'lnd.out'))}`)
}

/**
 * After a wallet made by --noseedbackup has been given a password: later starts unlock it from a file instead
 * (--noseedbackup would refuse a wallet with a password).
 */
export function unlockFromFile(state: NetworkState, name: NodeName, password: string): void {
  const node = state.nodes[name]
  const file = path.join(node.dir, 'wallet.password')
  fs.writeFileSync(file, password, { mode: 0o600 })
  node.args = [...node.args.filter(arg => arg !== '--noseedbackup'), `--wallet-unlock-password-file=${file}`]
  writeState(state)
}

/** Stops one LND node (SIGTERM, or `signal`) and waits until its process is gone. */
export async function stopNode(state: NetworkState, name: NodeName, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  await stopProcess(state.nodes[name].process, { signal })
}

/** Waits until `name` says it is synced to the chain at the current height; mines a block first when asked. */
export async function synced(state: NetworkState, name: NodeName): Promise<void> {
  await waitFor(`LND ${name} to sync to the chain`, async () => {
    const height = await blockHeight(state)
    const info = await lncli<{ synced_to_chain: boolean; block_height: number }>(state, name, ['getinfo'])
    return info.synced_to_chain && info.block_height >= height ? true : undefined
  })
}

/**
 * After a node answers again: a block (LND counts itself unsynced until one is fresh), then synced, connected to its
 * channel peers, channels active.
 */
export async function backOnNetwork(state: NetworkState, name: NodeName): Promise<void> {
  await mine(state, 1)
  await synced(state, name)
  await reconnect(state, name)
  await channelsActive(state, name)
}

/** Stops and starts one node, then waits until it is synced again and its channels are active. */
export async function restartNode(state: NetworkState, name: NodeName, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  await stopNode(state, name, signal)
  await startNode(state, name)
  await backOnNetwork(state, name)
}

/**
 * Waits until every channel of `name` is active (its peers reconnected after a restart), asking it to connect to its
 * channel peers again while they are not: a `connect` made while LND was still dialling a peer's old address was
 * answered with an error and never retried (a v0.20 copy of a template waited out its two minutes for R and B).
 */
export async function channelsActive(state: NetworkState, name: NodeName, count?: number): Promise<void> {
  await waitFor(`the channels of LND ${name} to be active`, async () => {
    const { channels } = await lncli<{ channels: { active: boolean }[] }>(state, name, ['listchannels'])
    const expected = count ?? channels.length
    if (channels.length >= expected && channels.every(c => c.active)) return true
    await reconnect(state, name)
    return undefined
  })
}

interface GraphEdge {
  node1_policy: unknown
  node2_policy: unknown
}

async function seesBothEdges(state: NetworkState, name: NodeName): Promise<void> {
  await waitFor(`LND ${name} to see both channels in its graph`, async () => {
    const { edges } = await lncli<{ edges: GraphEdge[] }>(state, name, ['describegraph'])
    return edges.length >= 2 && edges.every(e => e.node1_policy && e.node2_policy) ? true : undefined
  })
}

/**
 * Where A keeps its data: bbolt (LND's default), or SQLite with the native SQL invoice tables (a release build's
 * `--db.backend=sqlite --db.use-native-sql`), which replays settlements in the order invoices were added.
 */
export type NodeDatabase = 'bbolt' | 'sqlite'

export interface UpOptions {
  dir: string
  lndVersion: LndVersion
  aDatabase?: NodeDatabase
  /** true for a network that outlives this process; false (a test's) keeps it in this process group. */
  detached?: boolean
  log?: (line: string) => void
}

/** Channel peers: whom each node connects to again after it (or the template it was copied from) moved ports. */
const neighbours: Record<NodeName, NodeName[]> = { A: ['R'], R: ['A', 'B'], B: ['R'] }

/**
 * `name` connects to each of its channel peers at the address it has now, persistently (`--perm`: LND keeps
 * reconnecting there after a drop). A node copied from a template remembers its peers at the template's ports, so
 * after a start it does not find them by itself, and after any later drop (two nodes dialling each other at once,
 * a ping missed on a loaded machine) it would retry only those. An "already connected" answer, or a peer that is
 * down, is not an error here: the wait for active channels that follows decides.
 */
export async function reconnect(state: NetworkState, name: NodeName): Promise<void> {
  await Promise.all(
    neighbours[name].map(peer =>
      lncli(state, name, ['connect', '--perm', `${state.nodes[peer].pubkey}@${state.nodes[peer].p2p}`]).catch(() => undefined),
    ),
  )
}

/**
 * The state of a network about to start in `dir`: every port picked by `port` (each a different one: the kernel may
 * answer the same free port twice, and a network whose btcd RPC port was also A's p2p port came up, and then A
 * could not start again once btcd held it), each node's folder with an empty lnd.conf.
 */
export async function planNetwork(
  { dir, lndVersion, aDatabase = 'bbolt', detached = false }: Omit<UpOptions, 'log'>,
  binaries: Binaries,
  port: () => Promise<number> = freePort,
): Promise<NetworkState> {
  fs.rmSync(dir, { recursive: true, force: true })
  fs.mkdirSync(path.join(dir, 'btcd'), { recursive: true })
  fs.writeFileSync(path.join(dir, 'btcd', 'btcd.conf'), '')
  fs.writeFileSync(path.join(dir, 'btcd', 'btcctl.conf'), '')
  const taken = new Set<number>()
  const address = async () => {
    let picked = await port()
    while (taken.has(picked)) picked = await port()
    taken.add(picked)
    return `127.0.0.1:${picked}`
  }
  const state: NetworkState = {
    lndVersion,
    dir,
    detached,
    binaries,
    btcd: {
      rpc: await address(),
      p2p: await address(),
      user: rpcUser,
      pass: rpcPass,
      cert: path.join(dir, 'btcd', 'rpc.cert'),
      process: { pid: 0, binary: binaries.btcd },
      args: [],
    },
    nodes: {} as Record<NodeName, LndNodeState>,
  }
  for (const name of nodeNames) {
    const nodeDir = path.join(dir, name)
    fs.mkdirSync(nodeDir, { recursive: true })
    fs.writeFileSync(path.join(nodeDir, 'lnd.conf'), '')
    const partial = {
      name,
      dir: nodeDir,
      rpc: await address(),
      p2p: await address(),
      cert: path.join(nodeDir, 'tls.cert'),
      macaroon: path.join(nodeDir, 'data', 'chain', 'bitcoin', 'regtest', 'admin.macaroon'),
    }
    const database = name === 'A' && aDatabase === 'sqlite' ? ['--db.backend=sqlite', '--db.use-native-sql'] : []
    state.nodes[name] = { ...partial, args: [...lndArgs(state, partial), ...database], pubkey: '', process: { pid: 0, binary: binaries.lnd } }
  }
  return state
}

/** The last steps of every way up: the channels active on every node and both edges in A's and B's graphs. */
export async function channelsReady(state: NetworkState): Promise<void> {
  await channelsActive(state, 'A', 1)
  await channelsActive(state, 'R', 2)
  await channelsActive(state, 'B', 1)
  await Promise.all([seesBothEdges(state, 'A'), seesBothEdges(state, 'B')])
  writeState(state)
}

/**
 * Builds what is missing, starts btcd and A, R and B in `dir` (which must hold no running network), funds them,
 * opens A→R and R→B with balance on both sides and waits until the channels are active and announced. `port` picks
 * the ports (a template's are kept apart from the ones tests pick: see template.ts).
 */
export async function up(options: UpOptions, port: () => Promise<number> = freePort): Promise<NetworkState> {
  const { dir, lndVersion, log = () => {} } = options
  const existing = readState(dir)
  if (existing && isRunning(existing)) throw new Error(`a regtest network already runs in ${dir}; stop it first`)
  const binaries = await ensureBinaries(lndVersion, log)
  const state = await planNetwork(options, binaries, port)
  try {
    log(`starting btcd ${state.btcd.rpc} and LND ${lndVersion} nodes A, R and B in ${dir}`)
    // A's first address becomes btcd's mining address. A stops with the btcd it was made on: an LND whose btcd
    // restarts under it sees the blocks in getinfo, but its wallet keeps the old tip and finds no coin spendable.
    await startBtcd(state)
    writeState(state)
    await startNode(state, 'A')
    const { address: miningAddress } = await lncli<{ address: string }>(state, 'A', ['newaddress', 'p2wkh'])
    await stopNode(state, 'A')
    await stopProcess(state.btcd.process)
    await startBtcd(state, miningAddress)
    writeState(state)
    await Promise.all(nodeNames.map(name => startNode(state, name)))
    for (const name of nodeNames) {
      state.nodes[name].pubkey = (await lncli<{ identity_pubkey: string }>(state, name, ['getinfo'])).identity_pubkey
    }

    log('mining 432 blocks to A (segwit activates)')
    await mine(state, segwitActiveAt)
    const { softforks, bip9_softforks } = JSON.parse(await btcctl(state, ['getblockchaininfo']))
    const segwit = (bip9_softforks ?? softforks)?.segwit
    if (segwit && segwit.status !== 'active') throw new Error(`segwit is ${segwit.status} at block ${segwitActiveAt}`)
    await Promise.all(nodeNames.map(name => synced(state, name)))
    await waitFor('A to see its coinbase outputs', async () => {
      const balance = await lncli<{ confirmed_balance: string }>(state, 'A', ['walletbalance'])
      return Number(balance.confirmed_balance) >= 100 * 1e8 ? true : undefined
    })
    const fund: Record<string, number> = {}
    for (const name of ['R', 'B'] as const) {
      fund[(await lncli<{ address: string }>(state, name, ['newaddress', 'p2wkh'])).address] = 100_000_000
    }
    await lncli(state, 'A', ['sendmany', JSON.stringify(fund), '--sat_per_vbyte=2'])
    await mine(state, 1)
    for (const name of ['R', 'B'] as const) {
      await waitFor(`${name} to see its funds`, async () => {
        const balance = await lncli<{ confirmed_balance: string }>(state, name, ['walletbalance'])
        return Number(balance.confirmed_balance) >= 100_000_000 ? true : undefined
      })
    }

    log('opening A→R and R→B')
    await lncli(state, 'A', ['connect', `${state.nodes.R.pubkey}@${state.nodes.R.p2p}`])
    await lncli(state, 'R', ['connect', `${state.nodes.B.pubkey}@${state.nodes.B.p2p}`])
    const open = (from: NodeName, to: NodeName) =>
      lncli(state, from, ['openchannel', `--node_key=${state.nodes[to].pubkey}`, `--local_amt=${channelSats}`, `--push_amt=${pushSats}`, '--sat_per_vbyte=2'])
    await open('A', 'R')
    await open('R', 'B')
    await mine(state, 6)
    await Promise.all(nodeNames.map(name => synced(state, name)))
    await channelsReady(state)
    return state
  } catch (err) {
    // RELAYPAY_TEST_REGTEST_KEEP=1 leaves a network that failed to come up running, to look at.
    if (process.env.RELAYPAY_TEST_REGTEST_KEEP !== '1') await down(dir).catch(() => {})
    throw err
  }
}

export function isRunning(state: NetworkState): boolean {
  return running(state.btcd.process) || nodeNames.some(name => state.nodes[name] && running(state.nodes[name].process))
}

/** Stops every daemon the network's state names, LND nodes first; removes the folder when asked. */
export async function down(dir: string, opts: { remove?: boolean } = {}): Promise<boolean> {
  const state = readState(dir)
  if (state) {
    await Promise.all(nodeNames.filter(name => state.nodes[name]).map(name => stopProcess(state.nodes[name].process)))
    await stopProcess(state.btcd.process)
  }
  if (opts.remove) fs.rmSync(dir, { recursive: true, force: true })
  return state !== undefined
}
