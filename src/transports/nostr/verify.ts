// The one place Nostr event signatures are checked. The wasm build of libsecp256k1 checks a Schnorr signature
// about three times faster than the pure-JS one, which decides how many relay events a 2-core machine can take in.
import { setNostrWasm, verifyEvent as wasmVerify } from 'nostr-tools/wasm'
import { verifyEvent as pureVerify, type Event } from 'nostr-tools/pure'
import { initNostrWasm } from 'nostr-wasm'

export type VerifyEvent = (event: Event) => boolean

/** A verifier on wasm when it loads, else the pure-JS one (same results, slower). */
export async function createEventVerifier(): Promise<{ verify: VerifyEvent; engine: 'wasm' | 'js' }> {
  try {
    setNostrWasm(await initNostrWasm())
    return { verify: event => wasmVerify(event), engine: 'wasm' }
  } catch {
    return { verify: event => pureVerify(event), engine: 'js' }
  }
}
