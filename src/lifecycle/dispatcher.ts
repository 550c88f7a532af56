// The authenticator and the dispatcher, built once the registry is sealed: every call from a transport goes
// through them. The dispatcher's stop answers what the transports took, for as long as [shutdown] grace_seconds
// allows from the stop's start; what is still running then ends as a crash would, and the log says so.
import type { Logger } from 'pino'
import type { Config } from '../config/index.js'
import { createDispatcher, type AccessLog, type Clock, type Registry } from '../bus/index.js'
import { createAuthenticator } from '../auth/index.js'
import type { LightningNode } from '../node/index.js'
import type { Nwc } from '../nwc/index.js'
import type { Linking } from '../linking/index.js'
import type { Wallet } from '../wallet/index.js'
import type { CallOutcome, Subject } from '../bus/index.js'
import type { TokenSigner } from '../auth/index.js'
import type { LateParts } from './late.js'

export interface DispatcherParts {
  config: Config
  log: Logger
  clock: Clock
  accessLog: AccessLog | undefined
  adminToken: string
  tokens: TokenSigner
  wallet: Wallet
  linking: Linking
  nwc: Nwc
  node: LightningNode
  registry: Registry
  outcomes: Subject<CallOutcome>
  late: Pick<LateParts, 'dispatcherBuilt'>
  graceLeftMs(): number
}

export function startDispatcher(parts: DispatcherParts) {
  const { config, log, clock, accessLog, adminToken, tokens, wallet, linking, nwc, node, registry, outcomes, late, graceLeftMs } = parts
  const authenticate = createAuthenticator({
    adminToken,
    metricsToken: config.auth.metrics_token,
    tokens,
    directory: { ...wallet.directory, userForPubkey: wallet.nostr.userForPubkey },
    adminPubkey: linking.adminPubkey,
    adminOnlyExtensions: config.extensions.admin_only,
    nwc: nwc.directory,
    walletLinkFailures: { perMinute: config.auth.wallet_link_failures_per_minute, burst: config.auth.wallet_link_failures_burst },
    now: () => clock.now(),
  })
  const dispatcher = createDispatcher({ registry, authenticate, log, clock, accessLog, testMode: Boolean(node.mock) })
  late.dispatcherBuilt(dispatcher)
  dispatcher.outcomes$.subscribe(outcomes)
  const stop = async () => {
    const running = await dispatcher.drain(graceLeftMs())
    if (running.length > 0) log.warn({ running, graceSeconds: config.shutdown.grace_seconds }, 'stopping with calls still in flight ([shutdown] grace_seconds passed): they end as a crash would')
  }
  return { stop, dispatcher }
}
