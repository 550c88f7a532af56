// Swaps running: the configured providers (HTTP and WebSocket each), the two desks, the handlers, and a look at
// the node's block height every few seconds that removes quotes past their timeout.
import type { Logger } from 'pino'
import type { HandlerTable } from '../bus/index.js'
import type { Config } from '../config/index.js'
import type { LightningNode, Timers } from '../node/index.js'
import type { SqlStore } from '../store/index.js'
import { operationId, type AddressSwapPayer } from '../wallet/index.js'
import { invoiceSwapDesk } from './invoice-swaps.js'
import { providerApi, shownUrl } from './provider-api.js'
import { defaultWsUrl, providerUpdates } from './provider-updates.js'
import type { Provider, SwapWallet } from './providers.js'
import { chainParams } from './swap-scripts.js'
import { swapStore } from './swap-store.js'
import { txSwapDesk } from './tx-swaps.js'
import { swapHandlers } from './handlers/swaps.js'

/** What the swaps room is built from and gives (index.ts hands both on): here, this file imports nothing of index.ts. */
export interface SwapsDeps {
  sql: SqlStore
  config: Config['swaps']
  backend: Config['node']['backend']
  network: Config['node']['network']
  node: LightningNode
  wallet: SwapWallet
  random(bytes: number): Uint8Array
  now(): number
  timers: Timers
  log: Logger
}

export interface Swaps {
  handlers: HandlerTable
  /** What PayAddress uses for outside addresses. */
  addressPayer: AddressSwapPayer
  /** Follows every swap left in progress by the last stop and starts watching the chain. */
  start(): Promise<void>
  stop(): void
}

export function runningSwaps(deps: SwapsDeps): Swaps {
  const { config, log } = deps
  const store = swapStore(deps.sql)
  const providers: Provider[] = config.providers.map(p => ({
    url: p.http,
    zeroConf: p.zero_conf,
    api: providerApi({ url: p.http, timeoutMs: config.timeout_ms }),
    updates: providerUpdates({ url: p.ws ?? defaultWsUrl(p.http), log, timers: deps.timers }),
  }))
  let lastHeight = 0
  const blockHeight = async () => {
    lastHeight = Math.max(lastHeight, (await deps.node.getInfo()).blockHeight)
    return lastHeight
  }
  const shared = {
    store,
    providers,
    node: deps.node,
    network: chainParams[deps.network],
    blockHeight,
    random: deps.random,
    now: deps.now,
    timers: deps.timers,
    log,
  }
  const txSwaps = txSwapDesk({ ...shared, wallet: deps.wallet, payWaitMs: config.pay_wait_seconds * 1000 })
  const invoiceSwaps = invoiceSwapDesk(shared)

  let cancelPoll: (() => void) | undefined
  let stopped = false
  /** New blocks expire quotes (a quote past its timeout height can never be paid) and swaps not claimable in time. */
  const poll = async () => {
    try {
      const height = await blockHeight()
      const removed = (await store.deleteExpiredTxQuotes(height)) + (await store.deleteExpiredInvoiceQuotes(height))
      if (removed > 0) log.info({ height, removed }, 'expired swap quotes removed')
      await txSwaps.onBlock(height)
    } catch (err) {
      log.warn({ reason: (err as Error).message }, 'could not read the block height; trying again later')
    }
    if (!stopped) cancelPoll = deps.timers.after(config.block_poll_seconds * 1000, () => void poll())
  }

  const handlers = swapHandlers({ txSwaps, invoiceSwaps })


  return {
    handlers,
    addressPayer: {
      async payAddress(userId, request) {
        const paid = await txSwaps.payForUser(userId, request)
        return {
          txId: paid.txId,
          operationId: paid.paymentSerial === undefined ? '' : operationId('OUTGOING_INVOICE', paid.paymentSerial),
          serviceFeeSats: paid.serviceFeeSats,
          networkFeeSats: paid.networkFeeSats,
        }
      },
    },
    async start() {
      await poll()
      const resumed = (await txSwaps.resume()) + (await invoiceSwaps.resume())
      log.info({ providers: providers.map(p => shownUrl(p.url)), resumed }, 'swaps enabled')
    },
    stop() {
      stopped = true
      cancelPoll?.()
      txSwaps.stop()
      invoiceSwaps.stop()
      for (const provider of providers) provider.updates.close()
    },
  }
}
