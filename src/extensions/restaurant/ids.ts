// Entity ids (22-character url-safe random strings) and the per-restaurant Nostr key.
import { secp256k1 } from '@noble/curves/secp256k1.js'

export type Random = (bytes: number) => Uint8Array

/** 16 random bytes in base64url: exactly 22 characters of [A-Za-z0-9_-]. */
export function newId(random: Random): string {
  return Buffer.from(random(16)).toString('base64url')
}

/**
 * The short order number a customer, the kitchen board and the printed ticket all show (`#ABC123`): the first six
 * letters and digits of the order id, upper-cased. Said aloud across a counter; the id stays the key.
 */
export function orderNumber(id: string): string {
  return `#${id.replace(/[-_]/g, '').slice(0, 6).toUpperCase()}`
}

/** A secp256k1 secret key from the host's randomness; a value outside the curve order is drawn again. */
export function newNostrSecretKey(random: Random): Uint8Array {
  for (;;) {
    const candidate = random(32)
    if (secp256k1.utils.isValidSecretKey(candidate)) return candidate
  }
}
