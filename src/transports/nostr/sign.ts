// Signing the daemon's events (replies, pushes, beacons): the signer is the Nostr crypto room's, on the fastest
// secp256k1 engine that loads (src/nostr-crypto); what the transport's parts are handed to send one is SendEvent.
export { createEventSigner, type SignEvent } from '../../nostr-crypto/index.js'
export type { SendEvent } from '../../nostr-codecs/index.js'
