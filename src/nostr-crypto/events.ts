// Nostr events on the engine in use (active.ts): the id (node's native SHA-256 of the NIP-01 serialisation, outside
// any wasm memory, so an event of any size fits), signing as a key's owner, and the checks of a received event.
import { createHash } from 'node:crypto'
import { serializeEvent, type Event, type EventTemplate } from 'nostr-tools/pure'
import { activeEngine } from './active.js'
import { pooledRandomBytes } from './random-pool.js'

export type UnsignedEvent = Omit<Event, 'id' | 'sig'>
export type SignEvent = (template: EventTemplate, secretKey: Uint8Array) => Event

const hex64 = /^[0-9a-f]{128}$/i

/** NIP-01 id: SHA-256 of the canonical serialisation. Throws on an event of the wrong shape (nostr-tools checks). */
export function eventId(event: UnsignedEvent): string {
  return createHash('sha256').update(serializeEvent(event)).digest('hex')
}

// Keys are the same few Uint8Arrays for the life of the process (one per app, one per service identity).
const pubkeys = new WeakMap<Uint8Array, string>()

/** The x-only public key (hex) of a secret key, remembered per key object. */
export function publicKeyOf(secretKey: Uint8Array): string {
  let pubkey = pubkeys.get(secretKey)
  if (pubkey === undefined) {
    pubkey = Buffer.from(activeEngine().publicKey(secretKey)).toString('hex')
    pubkeys.set(secretKey, pubkey)
  }
  return pubkey
}

/** The event the template becomes when the key's owner signs it, without its id and signature. */
export function unsignedEvent(template: EventTemplate, secretKey: Uint8Array): UnsignedEvent {
  return { kind: template.kind, created_at: template.created_at, tags: template.tags, content: template.content, pubkey: publicKeyOf(secretKey) }
}

/** A BIP-340 signature (hex) of an event id (hex), with fresh auxiliary randomness as BIP-340 recommends. */
export function signId(id: string, secretKey: Uint8Array): string {
  return Buffer.from(activeEngine().sign(Buffer.from(id, 'hex'), secretKey, pooledRandomBytes(32))).toString('hex')
}

/** Signs a copy of the template as the key's owner (the template is left as given). */
export const signEvent: SignEvent = (template, secretKey) => {
  const event = unsignedEvent(template, secretKey)
  const id = eventId(event)
  return { ...event, id, sig: signId(id, secretKey) }
}

/** A well-formed event (a 64-byte hex signature, fields of the right types) whose id matches its fields. */
export function checkId(event: Event): boolean {
  try {
    if (typeof event.sig !== 'string' || !hex64.test(event.sig)) return false
    // The id check also validates the shape: pubkey is 64 hex, tags are arrays of strings, and so on.
    return eventId(event) === event.id
  } catch {
    return false // fields of the wrong type
  }
}

/** Whether the signature (hex) of the id (hex) is the pubkey's (hex, as checkId left them). Never throws. */
export function checkSignature(id: string, pubkey: string, sig: string): boolean {
  return activeEngine().verify(Buffer.from(id, 'hex'), Buffer.from(pubkey, 'hex'), Buffer.from(sig, 'hex'))
}

/** The id matches the fields and the signature is the pubkey's. Never throws. */
export function verifyEvent(event: Event): boolean {
  return checkId(event) && checkSignature(event.id, event.pubkey, event.sig)
}
