// Periodic samples of what no event announces: the node's balances and reachability, the users' total balance,
// and the daemon's memory. Samples go to bundle series under `_root`, written only when a value changed.
import type { Logger } from 'pino'
import type { Clock } from '../bus/index.js'
import type { LightningNode } from '../node/index.js'
import type { Wallet } from '../wallet/index.js'
import { rootApp, type BundleRecorder } from './bundle.js'
import { withDeadline } from './deadline.js'
import { msatAsSats } from '../units/index.js'

/** Series the node report reads back as its balance graphs. */
export const nodeBalanceSeries = { chain: 'walletBalance', channels: 'channelBalance', external: 'providerBalance' } as const

export interface NodeState {
  /** Undefined until the first check. */
  reachable: boolean | undefined
  /** Unix ms of the first failed check of the current outage. */
  downSince?: number
  /** The node's identity, once it answered. */
  pubkey?: string
}

export interface NodeWatch {
  /** Records one round of samples; never throws (an unreachable node is a sample too). */
  sample(): Promise<void>
  /** Asks the node now and updates the state. */
  checkNode(): Promise<boolean>
  state(): NodeState
  /** The users' total balance in msat (read from the wallet tables). */
  usersBalanceMsat(): Promise<number>
  /** Closes the connection the sums are read on. */
  close(): void
}

export interface NodeWatchDeps {
  node: LightningNode
  wallet: Pick<Wallet, 'openBalanceReader'>
  bundle: BundleRecorder
  clock: Clock
  log: Logger
  timeoutMs: number
}

export function createNodeWatch({ node, wallet, bundle, clock, log, timeoutMs }: NodeWatchDeps): NodeWatch {
  const state: NodeState = { reachable: undefined }
  // The wallet reads the sum on a connection of its own (src/wallet/balance-reader.ts): sampling must not fill the
  // payment path's page cache.
  const balances = wallet.openBalanceReader()

  function markReachable(reachable: boolean) {
    if (reachable) delete state.downSince
    else state.downSince ??= clock.now()
    state.reachable = reachable
  }

  async function checkNode(): Promise<boolean> {
    try {
      const info = await withDeadline(() => node.getInfo(), timeoutMs, 'the node')
      state.pubkey = info.pubkey
      markReachable(true)
    } catch (err) {
      if (state.reachable !== false) log.warn({ err }, 'the node does not answer')
      markReachable(false)
    }
    return state.reachable === true
  }

  const usersBalanceMsat = () => balances.usersBalanceMsat()

  return {
    checkNode,
    state: () => ({ ...state }),
    usersBalanceMsat,
    close: () => balances.close(),
    async sample() {
      // Read first, so that the local figures below are written together, in one turn.
      const usersBalance = await usersBalanceMsat().catch((err: unknown) => {
        log.warn({ err }, 'could not read the users balance')
        return undefined
      })
      const memory = process.memoryUsage()
      const kb = (bytes: number) => Math.ceil(bytes / 1000)
      bundle.add(rootApp, 'memory_rss_kb', kb(memory.rss), { onlyChanges: true })
      bundle.add(rootApp, 'memory_buffer_kb', kb(memory.arrayBuffers), { onlyChanges: true })
      bundle.add(rootApp, 'memory_heap_total_kb', kb(memory.heapTotal), { onlyChanges: true })
      bundle.add(rootApp, 'memory_heap_used_kb', kb(memory.heapUsed), { onlyChanges: true })
      bundle.add(rootApp, 'memory_external_kb', kb(memory.external), { onlyChanges: true })
      if (usersBalance !== undefined) bundle.add(rootApp, 'usersBalance', msatAsSats(usersBalance), { onlyChanges: true })
      if (!(await checkNode())) return
      try {
        const balances = await withDeadline(() => node.getBalances(), timeoutMs, 'the node')
        const chain = balances.chainBalanceSats + balances.unconfirmedChainBalanceSats
        const channels = msatAsSats(balances.channelsLocalMsat)
        bundle.add(rootApp, nodeBalanceSeries.chain, chain, { onlyChanges: true })
        bundle.add(rootApp, nodeBalanceSeries.channels, channels, { onlyChanges: true })
        bundle.add(rootApp, 'totalLndBalance', chain + channels, { onlyChanges: true })
      } catch (err) {
        log.warn({ err }, 'could not read the node balances')
      }
    },
  }
}
