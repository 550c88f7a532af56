// The transport's parts check signatures with the Nostr crypto room's verifier (src/nostr-crypto): one verifier for
// the daemon, which remembers what it accepted and what we signed, and checks the rest on the signature thread.
export { createEventVerifier, type EventVerifier, type VerifyEvent } from '../../nostr-crypto/index.js'
