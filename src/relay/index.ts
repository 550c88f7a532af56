// The embedded Nostr relay (NIP-01, 09, 11, 40) the daemon runs when no external relay is configured.
export { startRelay, type RelayOptions, type RunningRelay } from './server.js'
export { defaultRelayLimits, type RelayLimits } from './limits.js'
