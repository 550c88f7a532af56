// The ciphers of every kind relaypay speaks, together: nip44v1 (nip44v1.ts), NIP-44 v2 (nip44v2.ts) and NIP-04.
// Which scheme a payload uses, so that a reply is encrypted the way its request was. Upstream kind-21000 traffic
// uses nip44v1 (docs/pub-protocol.md, "Kind 21000"), CLINK kinds and NWC use NIP-44 v2; a client that speaks one
// must be answered in the same one, whatever kind it arrived on. NIP-04 is NWC's older scheme, named by its
// `encryption` tag, never detected.
import { createCipheriv, createDecipheriv } from 'node:crypto'
import { conversationKeyNip04, pooledRandomBytes } from '../nostr-crypto/index.js'
import { conversationKeyV2, decryptV2, encryptV2 } from './nip44v2.js'
import { CipherError, conversationKeyV1, decryptV1, encryptV1, strictBase64 } from './nip44v1.js'

export { CipherError }

export type CipherScheme = 'nip44v1' | 'nip44v2'
/** What a conversation key is for: a detected scheme, or NIP-04, which only its `encryption` tag names. */
export type KeyScheme = CipherScheme | 'nip04'

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
export function conversationKey(scheme: KeyScheme, privkey: Uint8Array | string, pubkey: string): Uint8Array {
  if (scheme === 'nip44v1') return conversationKeyV1(privkey, pubkey)
  if (scheme === 'nip44v2') return conversationKeyV2(privkey, pubkey)
  try {
    return conversationKeyNip04(privkey, pubkey)
  } catch (err) {
    throw new CipherError((err as Error).message)
  }
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

const nip04IvLength = 16

/**
 * NIP-04: AES-256-CBC (PKCS#7 padding) under the conversation key, written `base64(ciphertext)?iv=base64(iv)`, for NWC
 * clients that ask for it. The key comes from the caller (conversationKey 'nip04', remembered per peer like the
 * others): NWC sends every payment notification in both schemes, and an ECDH per notice cost the daemon's thread
 * milliseconds and a megabyte of garbage where the native engine was not used.
 */
export function encryptNip04(key: Uint8Array, plaintext: string, iv: Uint8Array = pooledRandomBytes(nip04IvLength)): string {
  const cipher = createCipheriv('aes-256-cbc', key, iv)
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()])
  return `${ciphertext.toString('base64')}?iv=${Buffer.from(iv).toString('base64')}`
}

/** The text of a NIP-04 payload; a CipherError for a malformed one or one this key did not encrypt. */
export function decryptNip04(key: Uint8Array, payload: string): string {
  const parts = payload.split('?iv=')
  const ciphertext = parts.length === 2 ? strictBase64(parts[0]!) : undefined
  const iv = parts.length === 2 ? strictBase64(parts[1]!) : undefined
  if (!ciphertext || ciphertext.length === 0 || ciphertext.length % 16 !== 0 || !iv || iv.length !== nip04IvLength) {
    throw new CipherError('nip04 payload rejected: not base64(ciphertext)?iv=base64(16 bytes)')
  }
  try {
    const decipher = createDecipheriv('aes-256-cbc', key, iv)
    return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8')
  } catch {
    throw new CipherError('nip04 payload rejected: it does not decrypt under this key')
  }
}
