// The ciphers of every kind relaypay speaks, together: nip44v1 (nip44v1.ts), NIP-44 v2 (nip44v2.ts) and NIP-04.
// Which scheme a payload uses, so that a reply is encrypted the way its request was. Upstream kind-21000 traffic
// uses nip44v1 (docs/pub-protocol.md, "Kind 21000"), CLINK kinds and NWC use NIP-44 v2; a client that speaks one
// must be answered in the same one, whatever kind it arrived on. NIP-04 is NWC's older scheme, named by its
// `encryption` tag, never detected.
import * as nip04 from 'nostr-tools/nip04'
import { conversationKeyV2, decryptV2, encryptV2 } from './nip44v2.js'
import { CipherError, conversationKeyV1, decryptV1, encryptV1, strictBase64 } from './nip44v1.js'

export { CipherError }

export type CipherScheme = 'nip44v1' | 'nip44v2'

/**
 * The scheme of a payload, from its first byte: 1 (or the JSON form `{"v":1,…}`) is nip44v1, 2 is NIP-44 v2.
 * Anything else (including NIP-44's reserved `#` prefix) is a CipherError.
 */
export function schemeOf(payload: string): CipherScheme {
  const text = payload.trimStart()
  if (text.startsWith('{')) return 'nip44v1' // only nip44v1 has a JSON form; decryptV1 checks its "v"
  if (text.startsWith('#')) throw new CipherError('unsupported encryption version (NIP-44 reserved prefix)')
  // four base64 characters are exactly three bytes, so the version byte can be read without decoding the rest
  const head = strictBase64(text.slice(0, 4))
  if (!head) throw new CipherError('payload is not base64')
  if (head[0] === 1) return 'nip44v1'
  if (head[0] === 2) return 'nip44v2'
  throw new CipherError(`unsupported encryption version ${head[0]}`)
}

/** The conversation key of a scheme between our secret key and a peer's x-only public key (hex). */
export function conversationKey(scheme: CipherScheme, privkey: Uint8Array | string, pubkey: string): Uint8Array {
  return scheme === 'nip44v1' ? conversationKeyV1(privkey, pubkey) : conversationKeyV2(privkey, pubkey)
}

/** Encrypts with the given scheme (the scheme of the request being answered). */
export function encryptWith(scheme: CipherScheme, plaintext: string, key: Uint8Array, nonce?: Uint8Array): string {
  return scheme === 'nip44v1' ? encryptV1(plaintext, key, nonce) : encryptV2(plaintext, key, nonce)
}

/** Decrypts with the given scheme. */
export function decryptWith(scheme: CipherScheme, payload: string, key: Uint8Array): string {
  return scheme === 'nip44v1' ? decryptV1(payload, key) : decryptV2(payload, key)
}

/**
 * Detects the scheme, asks for that scheme's key (callers cache keys per peer and scheme: the ECDH costs
 * milliseconds in pure JS) and decrypts. Returns the scheme so the reply can use it.
 */
export function decryptPayload(
  payload: string,
  keyFor: (scheme: CipherScheme) => Uint8Array,
): { scheme: CipherScheme; plaintext: string } {
  const scheme = schemeOf(payload)
  return { scheme, plaintext: decryptWith(scheme, payload, keyFor(scheme)) }
}

/** NIP-04 (AES-CBC with the ECDH secret), for NWC clients that ask for it; a bad payload is a CipherError. */
export function encryptNip04(secretKey: Uint8Array, peer: string, plaintext: string): string {
  return nip04.encrypt(secretKey, peer, plaintext)
}

export function decryptNip04(secretKey: Uint8Array, peer: string, payload: string): string {
  try {
    return nip04.decrypt(secretKey, peer, payload)
  } catch (err) {
    throw new CipherError(`nip04 payload rejected: ${(err as Error).message}`)
  }
}
