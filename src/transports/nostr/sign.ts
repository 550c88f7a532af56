// Signing the daemon's events (replies, pushes, beacons). Like verification (verify.ts), the wasm build of
// libsecp256k1 signs several times faster than pure JS, which bounds how many replies a small machine can send.
import { finalizeEvent as wasmFinalize, setNostrWasm } from 'nostr-tools/wasm'
import { finalizeEvent as pureFinalize, type Event, type EventTemplate } from 'nostr-tools/pure'
import { initNostrWasm } from 'nostr-wasm'

export type SignEvent = (template: EventTemplate, secretKey: Uint8Array) => Event

/** A signer on wasm when it loads, else the pure-JS one. The template is copied: nostr-tools mutates it. */
export async function createEventSigner(): Promise<{ sign: SignEvent; engine: 'wasm' | 'js' }> {
  try {
    setNostrWasm(await initNostrWasm())
    // The wasm module hashes inside a fixed memory: an event of about a megabyte makes it throw "Out of memory".
    // Such events are rare; they are signed in pure JS instead of failing.
    const sign: SignEvent = (template, key) => {
      try {
        return wasmFinalize({ ...template }, key)
      } catch {
        return pureFinalize({ ...template }, key)
      }
    }
    return { sign, engine: 'wasm' }
  } catch {
    return { sign: (template, key) => pureFinalize({ ...template }, key), engine: 'js' }
  }
}
