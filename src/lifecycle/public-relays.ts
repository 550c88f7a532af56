// The relay addresses the daemon hands out (NWC connection strings, nprofiles, CLINK offer, debit and manage
// pointers): `[nostr] public_relays` when the operator names them (the wss:// name of the TLS proxy in front of the
// embedded relay), else the relays the daemon itself connects to. The embedded relay listens on loopback, so without
// the setting every string names ws://127.0.0.1:…, which a phone on another network cannot reach: the log says so
// once at start, naming the setting, and the console shows it.
import type { Logger } from 'pino'
import { isLoopbackUrl, type Config } from '../config/index.js'

export interface PublicRelays {
  /** The relays handed out. The daemon's own array when not configured, so a SIGHUP that moves them moves these. */
  urls: readonly string[]
  /** Whether the operator named them. */
  configured: boolean
  /** Whether every one of them is a loopback address (what the console and the start log warn of). */
  loopbackOnly(): boolean
}

export function publicRelaysOf(config: Config, relayUrls: readonly string[]): PublicRelays {
  const configured = config.nostr.public_relays.length > 0
  const urls = configured ? [...config.nostr.public_relays] : relayUrls
  return { urls, configured, loopbackOnly: () => urls.length > 0 && urls.every(isLoopbackUrl) }
}

export function warnIfLoopback(relays: PublicRelays, log: Logger): void {
  if (!relays.loopbackOnly()) return
  log.warn(
    { relays: relays.urls, setting: '[nostr] public_relays' },
    'connection strings handed out (NWC, nprofile, CLINK) name a loopback relay, which clients on other machines cannot ' +
      'reach: set [nostr] public_relays (RELAYPAY_NOSTR_PUBLIC_RELAYS) to the public wss:// address of the relay',
  )
}
