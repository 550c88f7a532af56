// The engine this thread signs, checks and derives conversation keys with. It is the fastest that loads here from
// the moment this module is imported, so nothing can use the curve before it is chosen; `useEngine` sets another
// (the `[nostr] crypto` setting, or the engine the daemon's thread chose, in a helper thread).
import { createHash, createHmac } from 'node:crypto'
import { loadEngine, type CurveEngine, type EngineName, type LoadedEngine } from './engine.js'

const first = await loadEngine('native')
let active: CurveEngine = first.engine
let loadedAs: LoadedEngine = first

/** The engine in use on this thread. */
export function activeEngine(): CurveEngine {
  return active
}

/** Uses the wanted engine, or the next one down that loads; says which and what was passed over. */
export async function useEngine(wanted: EngineName): Promise<LoadedEngine> {
  loadedAs = await loadEngine(wanted)
  active = loadedAs.engine
  return loadedAs
}

/** How the engine in use was loaded: its name, and the faster engines passed over with the reason. */
export function engineStatus(): LoadedEngine {
  return loadedAs
}

const xOnlyHex = /^[0-9a-f]{64}$/i

function sharedX(secretKey: Uint8Array | string, pubkey: string): Uint8Array {
  if (!xOnlyHex.test(pubkey)) throw new TypeError('public key must be 64 hex characters (x-only)')
  const secret = typeof secretKey === 'string' ? Buffer.from(secretKey, 'hex') : secretKey
  return active.sharedX(secret, Buffer.from(pubkey, 'hex'))
}

/**
 * The kind-21000 "nip44v1" key of Lightning.Pub: SHA-256 of the ECDH x-coordinate.
 * Throws a TypeError on a malformed key.
 */
export function conversationKeyV1(secretKey: Uint8Array | string, pubkey: string): Uint8Array {
  return createHash('sha256').update(sharedX(secretKey, pubkey)).digest()
}

const nip44Salt = Buffer.from('nip44-v2')

/** The NIP-44 v2 conversation key: HKDF-extract (HMAC-SHA256) of the ECDH x-coordinate with salt "nip44-v2". */
export function conversationKeyV2(secretKey: Uint8Array | string, pubkey: string): Uint8Array {
  return createHmac('sha256', nip44Salt).update(sharedX(secretKey, pubkey)).digest()
}

/** NIP-04's key: the ECDH x-coordinate itself, used as the AES-256-CBC key. */
export function conversationKeyNip04(secretKey: Uint8Array | string, pubkey: string): Uint8Array {
  return Uint8Array.from(sharedX(secretKey, pubkey))
}
