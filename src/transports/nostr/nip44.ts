// NIP-44 v2 (ChaCha20 + HMAC-SHA256, padded), the standard scheme of kinds 21001–21003 and NWC. A thin wrapper
// over nostr-tools so that both schemes have the same shape and the same error type (see cipher.ts).
import { v2 as nip44v2 } from 'nostr-tools/nip44'
import { hexToBytes } from '@noble/hashes/utils.js'
import { CipherError } from '../../nostr-codecs/index.js'

const xOnlyHex = /^[0-9a-f]{64}$/i

/** The NIP-44 v2 conversation key (ECDH x-coordinate through HKDF-extract with salt "nip44-v2"); symmetric. */
export function conversationKeyV2(privkey: Uint8Array | string, pubkey: string): Uint8Array {
  if (!xOnlyHex.test(pubkey)) throw new CipherError('public key must be 64 hex characters (x-only)')
  return nip44v2.utils.getConversationKey(typeof privkey === 'string' ? hexToBytes(privkey) : privkey, pubkey)
}

/** Encrypts non-empty UTF-8 text; a fresh random 32-byte nonce unless given. */
export function encryptV2(plaintext: string, key: Uint8Array, nonce?: Uint8Array): string {
  try {
    return nip44v2.encrypt(plaintext, key, nonce)
  } catch (err) {
    throw new CipherError(`nip44 v2 encryption failed: ${(err as Error).message}`)
  }
}

/** Decrypts a NIP-44 v2 payload; a bad MAC, padding or version is a CipherError. */
export function decryptV2(payload: string, key: Uint8Array): string {
  try {
    return nip44v2.decrypt(payload, key)
  } catch (err) {
    throw new CipherError(`nip44 v2 payload rejected: ${(err as Error).message}`)
  }
}
