// The embedded Nostr relay (NIP-01, 09, 11, 40) the daemon runs when no external relay is configured.
export { startRelay, ownConnectionHeader, type RelayOptions, type RunningRelay, type RelayStats } from './server.js'
export { defaultRelayLimits, resolveLimits, type RelayLimits } from './limits.js'
export { relayLimitsOf, startRelayThread, type RelayThread } from './relay-thread.js'
