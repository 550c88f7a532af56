// The kind-21000 cipher that Lightning.Pub and ShockWallet call "nip44v1". It is
// neither NIP-04 nor NIP-44 v2: the key is SHA-256 of the raw ECDH x-coordinate, the cipher is a bare XChaCha20
// stream with no MAC and no padding. We keep it byte-for-byte for wire compatibility. Integrity comes only from
// the event signature (the event id hashes the content), so callers verify the event before decrypting.
//
// Every request and reply passes through here, so base64 is node's native one (with a strict check): @scure/base's
// was ~5% of the daemon's time per relay round trip. The cipher stays noble's: node's ChaCha20 behind an HChaCha20
// subkey was slower for messages under ~2 KB (a cipher context per message costs more than the pure-JS rounds).
import { xchacha20 } from '@noble/ciphers/chacha.js'
import { conversationKeyV1 as keyV1, pooledRandomBytes } from '../nostr-crypto/index.js'

/** The version byte that opens every binary nip44v1 payload. */
const versionV1 = 1
const nonceLength = 24
/** Canonical padded base64 (RFC 4648 §4); node's decoder alone would skip any character it does not know. */
const base64Text = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/

/** A payload that cannot be opened: unknown version, bad encoding, or plaintext that is not UTF-8. */
export class CipherError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'CipherError'
  }
}

// fatal: a wrong key or a corrupted payload yields bytes that are almost never valid UTF-8; since there is no MAC,
// this check (and the JSON parse that follows in the transport) is the only sign that decryption went wrong.
const strictUtf8 = new TextDecoder('utf-8', { fatal: true })
const utf8 = new TextEncoder()

/**
 * The shared key for nip44v1: SHA-256 of the x-coordinate of ECDH(our secret key, their x-only public key lifted
 * with the 02 prefix), on the Nostr crypto room's engine. Symmetric: A's secret with B's public gives the same key
 * as B's secret with A's public.
 */
export function conversationKeyV1(privkey: Uint8Array | string, pubkey: string): Uint8Array {
  try {
    return keyV1(privkey, pubkey)
  } catch (err) {
    throw new CipherError((err as Error).message)
  }
}

/** Encrypts UTF-8 text; the wire form is base64(0x01 ‖ nonce(24) ‖ ciphertext). A fresh random nonce unless given. */
export function encryptV1(plaintext: string, key: Uint8Array, nonce: Uint8Array = pooledRandomBytes(nonceLength)): string {
  checkKey(key)
  if (nonce.length !== nonceLength) throw new CipherError(`nonce must be ${nonceLength} bytes`)
  const ciphertext = xchacha20(key, nonce, utf8.encode(plaintext))
  const wire = new Uint8Array(1 + nonceLength + ciphertext.length)
  wire[0] = versionV1
  wire.set(nonce, 1)
  wire.set(ciphertext, 1 + nonceLength)
  return Buffer.from(wire.buffer, wire.byteOffset, wire.byteLength).toString('base64')
}

/**
 * Decrypts a nip44v1 payload, either the binary base64 form or the JSON form
 * `{"v":1,"nonce":"<b64>","ciphertext":"<b64>"}` that upstream's decoder also accepts.
 */
export function decryptV1(payload: string, key: Uint8Array): string {
  checkKey(key)
  const { nonce, ciphertext } = payload.trimStart().startsWith('{') ? parseJsonForm(payload) : parseBinaryForm(payload)
  try {
    return strictUtf8.decode(xchacha20(key, nonce, ciphertext))
  } catch {
    throw new CipherError('decrypted payload is not valid UTF-8 (wrong key or corrupted payload)')
  }
}

function checkKey(key: Uint8Array): void {
  if (key.length !== 32) throw new CipherError('conversation key must be 32 bytes')
}

function parseBinaryForm(payload: string): { nonce: Uint8Array; ciphertext: Uint8Array } {
  const wire = decodeBase64(payload, 'payload')
  if (wire.length === 0) throw new CipherError('empty payload')
  if (wire[0] !== versionV1) throw new CipherError(`unsupported nip44v1 version ${wire[0]}`)
  if (wire.length < 1 + nonceLength) throw new CipherError('payload too short for a nonce')
  return { nonce: wire.subarray(1, 1 + nonceLength), ciphertext: wire.subarray(1 + nonceLength) }
}

function parseJsonForm(payload: string): { nonce: Uint8Array; ciphertext: Uint8Array } {
  let parsed: unknown
  try {
    parsed = JSON.parse(payload)
  } catch {
    throw new CipherError('payload is neither base64 nor JSON')
  }
  if (typeof parsed !== 'object' || parsed === null) throw new CipherError('JSON payload must be an object')
  const { v, nonce, ciphertext } = parsed as Record<string, unknown>
  if (v !== versionV1) throw new CipherError(`unsupported nip44v1 version ${JSON.stringify(v)}`)
  if (typeof nonce !== 'string' || typeof ciphertext !== 'string') {
    throw new CipherError('JSON payload needs string nonce and ciphertext')
  }
  const nonceBytes = decodeBase64(nonce, 'nonce')
  if (nonceBytes.length !== nonceLength) throw new CipherError(`nonce must be ${nonceLength} bytes`)
  return { nonce: nonceBytes, ciphertext: decodeBase64(ciphertext, 'ciphertext') }
}

function decodeBase64(text: string, what: string): Uint8Array {
  const trimmed = text.trim()
  if (!base64Text.test(trimmed)) throw new CipherError(`${what} is not valid base64`)
  return Buffer.from(trimmed, 'base64')
}

/** Strict base64 (canonical, padded) or undefined. */
export function strictBase64(text: string): Uint8Array | undefined {
  return base64Text.test(text) ? Buffer.from(text, 'base64') : undefined
}

