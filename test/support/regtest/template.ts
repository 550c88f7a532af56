// A regtest network's first minute, done once per LND version and kept: the chain mined to block 439 and the three
// nodes funded, with A→R and R→B open and announced. Coming up from nothing costs about 28 s of CPU and 45 s on two
// cores (432 blocks mined for segwit, hundreds of lncli calls polling, the funding and the channels), and every
// real-LND test file starts networks of its own. A file now copies the template instead.
//
// What a copy is made of:
// - the nodes' folders, copied as the template's LNDs left them after a clean stop (their keys, wallets, channels
//   and graphs);
// - the chain, replayed: btcd on regtest deletes its block database at every start (a clean chain for each
//   regression run), so the template keeps its blocks and a copy's fresh btcd takes them by submitblock, the same
//   blocks with the same hashes, before any LND starts;
// - new ports. Each copy picks its own, and its nodes connect to their channel peers there (network.ts, reconnect);
//   the template's own ports lie outside the range tests pick from, so the old addresses the copies keep trying
//   lead nowhere.
//
// A template is kept in the binaries' cache folder, named by the LND version, A's database and a hash of the code
// that built it (this file and network.ts, so a change to either builds a new one), and used for 12 hours: its
// blocks' timestamps and channel updates age, and LND judges both by the clock. The first file that needs one
// builds it under a lock folder; files started beside it wait for it.
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { cacheRoot, ensureBinaries, type LndVersion } from './binaries.js'
import { btcdRpc } from './btcd-rpc.js'
import {
  channelsReady,
  down,
  mine,
  nodeNames,
  planNetwork,
  reconnect,
  startBtcd,
  startNode,
  synced,
  up,
  writeState,
  type NetworkState,
  type NodeDatabase,
  type NodeName,
} from './network.js'
import { portApartFromTests } from '../ports.js'

const maxAgeMs = 12 * 60 * 60 * 1000

interface TemplateMeta {
  lndVersion: LndVersion
  aDatabase: NodeDatabase
  createdAt: number
  miningAddress: string
  pubkeys: Record<NodeName, string>
  /** Every block above genesis, in height order, as serialized hex. */
  blocks: string[]
}

/** A hash of the code that builds a template: a changed way up makes a new template. */
function codeFingerprint(): string {
  const here = path.dirname(fileURLToPath(import.meta.url))
  const hash = createHash('sha256')
  for (const file of ['template.js', 'network.js']) hash.update(fs.readFileSync(path.join(here, file)))
  return hash.digest('hex').slice(0, 12)
}

function templateDir(lndVersion: LndVersion, aDatabase: NodeDatabase): string {
  return path.join(cacheRoot(), 'templates', `lnd-${lndVersion}-${aDatabase}-${codeFingerprint()}`)
}

function readMeta(dir: string): TemplateMeta | undefined {
  try {
    const meta = JSON.parse(fs.readFileSync(path.join(dir, 'template.json'), 'utf8')) as TemplateMeta
    return Date.now() - meta.createdAt < maxAgeMs ? meta : undefined
  } catch {
    return undefined
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}

const pause = (ms: number) => new Promise(resolve => setTimeout(resolve, ms))

/**
 * Holds the template's lock folder while `work` runs. A lock whose holder is gone (killed while building) is taken
 * over; one held by a live process is waited on, then `work` runs with the lock (and finds the template built).
 */
async function withLock<T>(dir: string, work: () => Promise<T>): Promise<T> {
  const lock = `${dir}.lock`
  fs.mkdirSync(path.dirname(lock), { recursive: true })
  for (;;) {
    try {
      fs.mkdirSync(lock)
      fs.writeFileSync(path.join(lock, 'pid'), String(process.pid))
      break
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
      const holder = Number(fs.readFileSync(path.join(lock, 'pid'), { encoding: 'utf8', flag: 'a+' }) || 0)
      // A lock folder without its pid file yet is being taken right now: wait for it.
      if (holder > 0 && !alive(holder)) fs.rmSync(lock, { recursive: true, force: true })
      else await pause(500)
    }
  }
  try {
    return await work()
  } finally {
    fs.rmSync(lock, { recursive: true, force: true })
  }
}

/** Brings a network up from nothing on ports apart from the tests', keeps its blocks and nodes, and stops it. */
async function buildTemplate(dir: string, lndVersion: LndVersion, aDatabase: NodeDatabase, log: (line: string) => void): Promise<TemplateMeta> {
  removeExpired(path.dirname(dir))
  const building = `${dir}.building`
  fs.rmSync(building, { recursive: true, force: true })
  log(`building the regtest template of LND ${lndVersion} (${aDatabase}) in ${dir}`)
  const state = await up({ dir: building, lndVersion, aDatabase }, portApartFromTests)
  try {
    const rpc = btcdRpc(state)
    try {
      const tip = await rpc.call<number>('getblockcount')
      const blocks: string[] = []
      for (let height = 1; height <= tip; height++) {
        blocks.push(await rpc.call<string>('getblock', [await rpc.call<string>('getblockhash', [height]), 0]))
      }
      const miningAddress = /--miningaddr=(.+)/.exec(state.btcd.args.find(arg => arg.startsWith('--miningaddr=')) ?? '')?.[1]
      if (!miningAddress) throw new Error('the template network has no mining address')
      const pubkeys = Object.fromEntries(nodeNames.map(name => [name, state.nodes[name].pubkey])) as Record<NodeName, string>
      const meta: TemplateMeta = { lndVersion, aDatabase, createdAt: Date.now(), miningAddress, pubkeys, blocks }
      // Stopped cleanly (SIGTERM): the nodes' databases are whole when copied.
      await down(building)
      fs.rmSync(path.join(building, 'btcd'), { recursive: true, force: true })
      fs.writeFileSync(path.join(building, 'template.json'), JSON.stringify(meta))
      fs.rmSync(dir, { recursive: true, force: true })
      fs.renameSync(building, dir)
      return meta
    } finally {
      rpc.close()
    }
  } catch (err) {
    await down(building).catch(() => {})
    throw err
  }
}

/** Templates past their 12 hours (of any version or code) are removed when a new one is built: they add up. */
function removeExpired(templatesDir: string): void {
  for (const entry of fs.existsSync(templatesDir) ? fs.readdirSync(templatesDir) : []) {
    // A lock is its holder's; a folder left half-built by a killed build is removed once it is as old.
    if (entry.endsWith('.lock')) continue
    const dir = path.join(templatesDir, entry)
    if (!readMeta(dir) && Date.now() - fs.statSync(dir).mtimeMs > maxAgeMs) fs.rmSync(dir, { recursive: true, force: true })
  }
}

/** The template of this LND version and A's database, built first when there is none or it is too old. */
async function template(lndVersion: LndVersion, aDatabase: NodeDatabase, log: (line: string) => void): Promise<{ dir: string; meta: TemplateMeta }> {
  const dir = templateDir(lndVersion, aDatabase)
  const ready = readMeta(dir)
  if (ready) return { dir, meta: ready }
  return withLock(dir, async () => ({ dir, meta: readMeta(dir) ?? (await buildTemplate(dir, lndVersion, aDatabase, log)) }))
}

export interface CopyOptions {
  dir: string
  lndVersion: LndVersion
  aDatabase?: NodeDatabase
  log?: (line: string) => void
}

/** A network of its own in `dir`, copied from the template: the same nodes, chain and channels, on new ports. */
export async function upFromTemplate({ dir, lndVersion, aDatabase = 'bbolt', log = () => {} }: CopyOptions): Promise<NetworkState> {
  const binaries = await ensureBinaries(lndVersion, log)
  const { dir: from, meta } = await template(lndVersion, aDatabase, log)
  const state = await planNetwork({ dir, lndVersion, aDatabase }, binaries)
  try {
    for (const name of nodeNames) {
      fs.cpSync(path.join(from, name), state.nodes[name].dir, { recursive: true, filter: source => !/[/\\](logs|lnd\.out)$/.test(source) })
      state.nodes[name].pubkey = meta.pubkeys[name]
    }
    await startBtcd(state, meta.miningAddress)
    writeState(state)
    const rpc = btcdRpc(state)
    try {
      for (const [i, block] of meta.blocks.entries()) {
        const refused = await rpc.call<string | null>('submitblock', [block])
        if (refused) throw new Error(`btcd refused the template's block ${i + 1}: ${refused}`)
      }
    } finally {
      rpc.close()
    }
    await Promise.all(nodeNames.map(name => startNode(state, name)))
    await mine(state, 1) // LND counts itself unsynced while the newest block is hours old
    await Promise.all(nodeNames.map(name => synced(state, name)))
    await Promise.all((['A', 'R'] as const).map(name => reconnect(state, name)))
    await channelsReady(state)
    return state
  } catch (err) {
    if (process.env.RELAYPAY_TEST_REGTEST_KEEP !== '1') await down(dir).catch(() => {})
    throw err
  }
}
