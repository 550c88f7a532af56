// The offline default's relay: with no external relay configured, the daemon runs its own on loopback, on a
// thread of its own. The daemon's links show it a per-process secret (reserved slots, none of a stranger's caps).
import { randomBytes } from 'node:crypto'
import type { Logger } from 'pino'
import { listening, type Config } from '../config/index.js'
import { relayLimitsOf, startRelayThread, type RelayThread } from '../relay/index.js'
import { trustRelay } from '../callbacks/index.js'
import { logStyle } from '../logging/index.js'

export interface EmbeddedRelay {
  relay: RelayThread
  /** Drops the secret from the daemon's links (at stop). */
  forgetSecret(): void
}

export async function startEmbeddedRelay(config: Config, dataDir: string, log: Logger): Promise<EmbeddedRelay> {
  const ownSecret = randomBytes(32).toString('hex')
  const relay = await listening(
    startRelayThread({
      host: '127.0.0.1',
      port: config.nostr.embedded_relay_port,
      dataDir,
      limits: relayLimitsOf(config.nostr),
      ownSecret,
      // The relay thread logs on its own (it also runs alone, `relaypay relay`) and names its room itself.
      log,
      logLevel: config.log.level,
      logStyle: logStyle(config.log.format),
      crypto: config.nostr.crypto,
    }),
    'nostr.embedded_relay_port',
  )
  log.info({ url: relay.url }, 'embedded relay listening')
  return { relay, forgetSecret: trustRelay(relay.url, ownSecret) }
}

/** What the console's overview shows of the embedded relay: its latest stats against the limits it runs with. */
export function embeddedRelayView(relay: RelayThread | undefined, nostr: Config['nostr']) {
  if (!relay) return undefined
  return { limits: { maxStoreBytes: nostr.relay_max_store_bytes, maxConnections: nostr.relay_max_connections }, stats: relay.stats() }
}

/** The readiness probe's relay check: the embedded relay up, or at least one service relay connected. */
export function relayReadiness(relay: RelayThread | undefined, status: () => { connected: boolean }[]) {
  return () => {
    if (relay) return { ok: true, detail: `embedded relay up at ${relay.url}` }
    const links = status()
    const connected = links.filter(link => link.connected).length
    return { ok: connected > 0, detail: `${connected} of ${links.length} relays connected` }
  }
}
