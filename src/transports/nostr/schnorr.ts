// The BIP-340 engine behind signing (sign.ts) and checking (verify.ts) Nostr events. Signatures decide how many
// relay round trips a 2-core machine carries (each costs the daemon one check and one signature), so they run on
// tiny-secp256k1, libsecp256k1 compiled to wasm: on this machine it signs and checks in about half the time of
// nostr-wasm and about a tenth of pure JS. The event id is hashed by node's native SHA-256 outside the wasm
// module, so an event of any size fits (nostr-wasm hashed inside a fixed memory and failed near a megabyte).
import { createHash, randomBytes } from 'node:crypto'
import { serializeEvent, type Event, type EventTemplate } from 'nostr-tools/pure'

export interface SchnorrEngine {
  name: 'wasm' | 'js'
  /** Signs a copy of the template as the key's owner (the template is left as given). */
  sign(template: EventTemplate, secretKey: Uint8Array): Event
  /** The event's id matches its fields and its signature is the pubkey's. Never throws. */
  verify(event: Event): boolean
  /** The pieces of `sign`, for signing elsewhere (signing-outbox.ts): the unsigned event, its id, a signature. */
  unsigned(template: EventTemplate, secretKey: Uint8Array): Omit<Event, 'id' | 'sig'>
  id(unsigned: Omit<Event, 'id' | 'sig'>): string
  signId(id: string, secretKey: Uint8Array): string
  /** The pieces of `verify`: a well-formed event whose id matches its fields, then the signature itself. */
  checkId(event: Event): boolean
  checkSignature(id: string, pubkey: string, sig: string): boolean
}

const hex64 = /^[0-9a-fA-F]{128}$/

/** NIP-01 id: SHA-256 of the canonical serialisation. Throws on an event of the wrong shape (nostr-tools checks). */
export function eventId(event: Omit<Event, 'id' | 'sig'>): string {
  return createHash('sha256').update(serializeEvent(event)).digest('hex')
}

/** tiny-secp256k1 when its wasm module loads here; undefined otherwise (the caller falls back to pure JS). */
export async function loadSchnorr(): Promise<SchnorrEngine | undefined> {
  let tiny: typeof import('tiny-secp256k1')
  try {
    tiny = await import('tiny-secp256k1')
  } catch {
    return undefined
  }
  // Keys are the same few Uint8Arrays for the life of the process (one per app, one per service identity).
  const pubkeys = new WeakMap<Uint8Array, string>()
  const pubkeyOf = (secretKey: Uint8Array): string => {
    let pubkey = pubkeys.get(secretKey)
    if (pubkey === undefined) {
      pubkey = Buffer.from(tiny.xOnlyPointFromScalar(secretKey)).toString('hex')
      pubkeys.set(secretKey, pubkey)
    }
    return pubkey
  }
  const unsigned = (template: EventTemplate, secretKey: Uint8Array) => ({
    kind: template.kind,
    created_at: template.created_at,
    tags: template.tags,
    content: template.content,
    pubkey: pubkeyOf(secretKey),
  })
  // Fresh auxiliary randomness per signature, as BIP-340 recommends against side channels.
  const signId = (id: string, secretKey: Uint8Array) =>
    Buffer.from(tiny.signSchnorr(Buffer.from(id, 'hex'), secretKey, randomBytes(32))).toString('hex')
  const checkId = (event: Event) => {
    try {
      if (typeof event.sig !== 'string' || !hex64.test(event.sig)) return false
      // The id check also validates the shape: pubkey is 64 hex, tags are arrays of strings, and so on.
      return eventId(event) === event.id
    } catch {
      return false // fields of the wrong type
    }
  }
  const checkSignature = (id: string, pubkey: string, sig: string) => {
    try {
      return tiny.verifySchnorr(Buffer.from(id, 'hex'), Buffer.from(pubkey, 'hex'), Buffer.from(sig, 'hex'))
    } catch {
      return false // a pubkey that is not a curve point
    }
  }
  return {
    name: 'wasm',
    unsigned,
    id: eventId,
    signId,
    sign(template, secretKey) {
      const event = unsigned(template, secretKey)
      const id = eventId(event)
      return { ...event, id, sig: signId(id, secretKey) }
    },
    checkId,
    checkSignature,
    verify: event => checkId(event) && checkSignature(event.id, event.pubkey, event.sig),
  }
}
