// A client message and the event as the relay sees it: shape checks before the (costly) signature check, the
// NIP-01 kind classes that decide how an event is kept, and the canonical JSON it is stored and sent as.
import type { NostrEvent } from 'nostr-tools/pure'

export type { NostrEvent }

/** How NIP-01 says an event of a kind is kept. */
export type KindClass = 'regular' | 'replaceable' | 'ephemeral' | 'addressable'

/** NIP-09 deletion request. */
export const deletionKind = 5

const hex64 = /^[0-9a-f]{64}$/
const hex128 = /^[0-9a-f]{128}$/

const rawJson = new WeakMap<NostrEvent, string>()

/**
 * The event's JSON as stored and sent, made once per event object: the store measures and writes it and the
 * broadcast sends it (three JSON.stringify calls per event before). Events are not changed once parsed.
 */
export function rawOf(event: NostrEvent): string {
  let raw = rawJson.get(event)
  if (raw === undefined) rawJson.set(event, (raw = JSON.stringify(event)))
  return raw
}

export function kindClass(kind: number): KindClass {
  if (kind === 0 || kind === 3 || (kind >= 10000 && kind < 20000)) return 'replaceable'
  if (kind >= 20000 && kind < 30000) return 'ephemeral'
  if (kind >= 30000 && kind < 40000) return 'addressable'
  return 'regular'
}

export function isHex64(value: unknown): value is string {
  return typeof value === 'string' && hex64.test(value)
}

/**
 * Checks the fields NIP-01 requires and returns the event with only those fields (unknown fields are dropped so
 * what is stored and served is exactly what was signed). Throws with an "invalid:" reason otherwise.
 */
export function parseEventShape(value: unknown, maxTags: number): NostrEvent {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('invalid: event must be an object')
  const ev = value as Record<string, unknown>
  if (!isHex64(ev.id)) throw new Error('invalid: id must be 64 lowercase hex characters')
  if (!isHex64(ev.pubkey)) throw new Error('invalid: pubkey must be 64 lowercase hex characters')
  if (typeof ev.sig !== 'string' || !hex128.test(ev.sig)) throw new Error('invalid: sig must be 128 lowercase hex characters')
  if (!Number.isSafeInteger(ev.created_at) || (ev.created_at as number) < 0) {
    throw new Error('invalid: created_at must be a non-negative integer')
  }
  if (!Number.isInteger(ev.kind) || (ev.kind as number) < 0 || (ev.kind as number) > 65535) {
    throw new Error('invalid: kind must be an integer between 0 and 65535')
  }
  if (typeof ev.content !== 'string') throw new Error('invalid: content must be a string')
  if (!Array.isArray(ev.tags)) throw new Error('invalid: tags must be an array')
  if (ev.tags.length > maxTags) throw new Error(`invalid: more than ${maxTags} tags`)
  for (const tag of ev.tags) {
    if (!Array.isArray(tag) || tag.some(part => typeof part !== 'string')) {
      throw new Error('invalid: every tag must be an array of strings')
    }
  }
  return {
    id: ev.id,
    pubkey: ev.pubkey,
    created_at: ev.created_at as number,
    kind: ev.kind as number,
    tags: ev.tags as string[][],
    content: ev.content,
    sig: ev.sig,
  }
}

/** The `d` tag value that names an addressable event ('' when absent, as NIP-01 says). */
export function dTagOf(event: NostrEvent): string {
  return event.tags.find(tag => tag[0] === 'd')?.[1] ?? ''
}

/** The NIP-40 `expiration` tag in unix seconds, if the event carries a valid one. */
export function expirationOf(event: NostrEvent): number | undefined {
  const value = event.tags.find(tag => tag[0] === 'expiration')?.[1]
  if (value === undefined || !/^\d{1,15}$/.test(value)) return undefined
  return Number(value)
}

/** Single-letter tags with a value: the ones NIP-01 says relays index and `#x` filters match. */
export function indexedTags(event: NostrEvent): { name: string; value: string }[] {
  const seen = new Set<string>()
  const tags: { name: string; value: string }[] = []
  for (const tag of event.tags) {
    if (tag.length < 2 || !/^[a-zA-Z]$/.test(tag[0])) continue
    const key = `${tag[0]}\u0000${tag[1]}`
    if (seen.has(key)) continue
    seen.add(key)
    tags.push({ name: tag[0], value: tag[1] })
  }
  return tags
}

/** A client message as a JSON array that starts with its type, or the reason it is not one. */
export function parseMessage(data: Buffer): unknown[] | string {
  let message: unknown
  try {
    message = JSON.parse(data.toString('utf8'))
  } catch {
    return 'invalid: message is not JSON'
  }
  if (!Array.isArray(message) || typeof message[0] !== 'string') {
    return 'invalid: a message is a JSON array that starts with its type'
  }
  return message
}
