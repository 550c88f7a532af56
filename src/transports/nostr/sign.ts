// Signing the daemon's events (replies, pushes, beacons) on the wasm engine (schnorr.ts), which bounds how many
// replies a small machine can send; pure JS (nostr-tools) where the wasm module cannot load.
import { finalizeEvent as pureFinalize, type Event, type EventTemplate } from 'nostr-tools/pure'
import { loadSchnorr } from './schnorr.js'

export type SignEvent = (template: EventTemplate, secretKey: Uint8Array) => Event
/** Signs as the key's owner and publishes (to every service relay), in call order; see signing-outbox.ts. */
export type SendEvent = (template: EventTemplate, secretKey: Uint8Array) => void

/** A signer on wasm when it loads, else the pure-JS one. The template is never modified. */
export async function createEventSigner(): Promise<{ sign: SignEvent; engine: 'wasm' | 'js' }> {
  const engine = await loadSchnorr()
  if (engine) return { sign: engine.sign, engine: 'wasm' }
  // nostr-tools adds id, pubkey and sig to the object it is given.
  return { sign: (template, key) => pureFinalize({ ...template }, key), engine: 'js' }
}
