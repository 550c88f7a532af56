// Signing the daemon's events (replies, pushes, beacons): the signer is the Nostr crypto room's, on the fastest
// secp256k1 engine that loads (src/nostr-crypto); what the transport's parts are handed to send one is SendEvent.
import type { EventTemplate } from 'nostr-tools/pure'

export { createEventSigner, type SignEvent } from '../../nostr-crypto/index.js'

/** Signs as the key's owner and publishes (to every service relay), in call order; see signing-outbox.ts. */
export type SendEvent = (template: EventTemplate, secretKey: Uint8Array) => void
