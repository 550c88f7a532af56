// The secp256k1 behind every Nostr signature, signature check and conversation key (ECDH), in every thread that
// needs one: the daemon's, its signature thread, the embedded relay's thread. A relay round trip costs the daemon
// one check and one signature, so the curve decides how many round trips two cores carry. Three engines give the
// same results (tests check them against each other and against the BIP-340 and NIP-44 vectors):
//   - native: libsecp256k1 compiled from source at install (bcrypto's addon, an optional dependency): on this
//     machine ~60 µs to sign or check, about a quarter of the wasm engine's time;
//   - wasm: libsecp256k1 in WebAssembly (tiny-secp256k1), ~250 µs;
//   - js: pure JavaScript (@noble/curves), ~1.5–2.5 ms.
// An engine that cannot load (the addon did not build, say) gives way to the next one; the caller logs which
// engine runs and why.
import { schnorr, secp256k1 } from '@noble/curves/secp256k1.js'

export type EngineName = 'native' | 'wasm' | 'js'
export const engineNames: readonly EngineName[] = ['native', 'wasm', 'js']

export interface CurveEngine {
  name: EngineName
  /** BIP-340 signature (64 bytes) of a 32-byte message, with 32 bytes of auxiliary randomness. */
  sign(message: Uint8Array, secretKey: Uint8Array, aux: Uint8Array): Uint8Array
  /** Whether the signature (64 bytes) of the message (32 bytes) is the x-only key's (32 bytes). Never throws. */
  verify(message: Uint8Array, pubkey: Uint8Array, sig: Uint8Array): boolean
  /** The x-only public key (32 bytes) of a secret key. */
  publicKey(secretKey: Uint8Array): Uint8Array
  /** The x-coordinate (32 bytes) of ECDH between a secret key and an x-only public key; throws on a bad key. */
  sharedX(secretKey: Uint8Array, pubkey: Uint8Array): Uint8Array
}

/** What loading gave: the engine, and for each faster engine passed over, why. */
export interface LoadedEngine {
  engine: CurveEngine
  skipped: { engine: EngineName; reason: string }[]
}

/** bcrypto's BIP-340 module (libsecp256k1's schnorrsig and ECDH), which takes and returns Buffers. */
interface NativeSchnorr {
  native: number
  sign(msg: Buffer, key: Buffer, aux: Buffer): Buffer
  verify(msg: Buffer, sig: Buffer, key: Buffer): boolean
  publicKeyCreate(key: Buffer): Buffer
  derive(pub: Buffer, priv: Buffer): Buffer
}

// A Buffer over the same bytes (bcrypto asserts Buffer.isBuffer); no copy.
const buf = (bytes: Uint8Array) => (Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength))
const lifted = (pubkey: Uint8Array) => {
  const point = new Uint8Array(33)
  point[0] = 2 // even y: a Nostr key names the point whose x it is (BIP-340's lift_x)
  point.set(pubkey, 1)
  return point
}
const sized = (bytes: Uint8Array, length: number, what: string) => {
  if (bytes.length !== length) throw new Error(`${what} must be ${length} bytes`)
}

// A variable specifier: the addon is optional, and the type checker must not look for its (absent) declarations.
const nativeModule = 'bcrypto/lib/schnorr.js'

async function loadNative(): Promise<CurveEngine> {
  const native = ((await import(nativeModule)) as { default: NativeSchnorr }).default
  // bcrypto falls back to its own JavaScript when NODE_BACKEND=js: that is not the native engine.
  if (native.native !== 2) throw new Error('bcrypto loaded without its native addon')
  return {
    name: 'native',
    sign: (message, secretKey, aux) => native.sign(buf(message), buf(secretKey), buf(aux)),
    verify(message, pubkey, sig) {
      try {
        return message.length === 32 && native.verify(buf(message), buf(sig), buf(pubkey))
      } catch {
        return false // a key that is not a curve point, or the wrong length
      }
    },
    publicKey: secretKey => native.publicKeyCreate(buf(secretKey)),
    sharedX(secretKey, pubkey) {
      sized(pubkey, 32, 'public key')
      return native.derive(buf(pubkey), buf(secretKey))
    },
  }
}

async function loadWasm(): Promise<CurveEngine> {
  const tiny = await import('tiny-secp256k1')
  return {
    name: 'wasm',
    sign: (message, secretKey, aux) => tiny.signSchnorr(message, secretKey, aux),
    verify(message, pubkey, sig) {
      try {
        return message.length === 32 && tiny.verifySchnorr(message, pubkey, sig)
      } catch {
        return false
      }
    },
    publicKey: secretKey => tiny.xOnlyPointFromScalar(secretKey),
    sharedX(secretKey, pubkey) {
      sized(pubkey, 32, 'public key')
      const point = tiny.pointMultiply(lifted(pubkey), secretKey, true)
      if (!point) throw new Error('ECDH gave the point at infinity')
      return point.subarray(1)
    },
  }
}

export const jsEngine: CurveEngine = {
  name: 'js',
  sign: (message, secretKey, aux) => schnorr.sign(message, secretKey, aux),
  verify(message, pubkey, sig) {
    try {
      return message.length === 32 && schnorr.verify(sig, message, pubkey)
    } catch {
      return false
    }
  },
  publicKey: secretKey => schnorr.getPublicKey(secretKey),
  sharedX(secretKey, pubkey) {
    sized(pubkey, 32, 'public key')
    return secp256k1.getSharedSecret(secretKey, lifted(pubkey), true).subarray(1)
  },
}

const loaders: Record<EngineName, () => Promise<CurveEngine>> = { native: loadNative, wasm: loadWasm, js: async () => jsEngine }
const loaded = new Map<EngineName, Promise<LoadedEngine>>()

/** The wanted engine, or the next one down (native → wasm → js) that loads here; each is loaded once a thread. */
export function loadEngine(wanted: EngineName = 'native'): Promise<LoadedEngine> {
  let result = loaded.get(wanted)
  if (!result) {
    result = (async () => {
      const skipped: LoadedEngine['skipped'] = []
      for (const name of engineNames.slice(engineNames.indexOf(wanted))) {
        try {
          return { engine: await loaders[name](), skipped }
        } catch (err) {
          skipped.push({ engine: name, reason: (err as Error).message.split('\n')[0]! })
        }
      }
      return { engine: jsEngine, skipped } // unreachable: the pure-JS engine always loads
    })()
    loaded.set(wanted, result)
  }
  return result
}
