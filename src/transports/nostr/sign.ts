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
    return { sign: (template, key) => wasmFinalize({ ...template }, key), engine: 'wasm' }
  } catch {
    return { sign: (template, key) => pureFinalize({ ...template }, key), engine: 'js' }
  }
}
