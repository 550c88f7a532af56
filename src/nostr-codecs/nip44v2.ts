// NIP-44 v2 (ChaCha20 + HMAC-SHA256, padded), the standard scheme of kinds 21001–21003 and NWC. A thin wrapper
// over nostr-tools so that both schemes have the same shape and the same error type (see cipher.ts).
import { v2 as nip44v2 } from 'nostr-tools/nip44'
import { conversationKeyV2 as keyV2 } from '../nostr-crypto/index.js'
import { CipherError } from './nip44v1.js'

/**
 * The NIP-44 v2 conversation key (ECDH x-coordinate through HKDF-extract with salt "nip44-v2"); symmetric. The ECDH
 * runs on the Nostr crypto room's engine (native libsecp256k1 where it loads: ~70 µs against ~2.5 ms in pure JS).
 */
export function conversationKeyV2(privkey: Uint8Array | string, pubkey: string): Uint8Array {
  try {
    return keyV2(privkey, pubkey)
  } catch (err) {
    throw new CipherError((err as Error).message)
  }
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
