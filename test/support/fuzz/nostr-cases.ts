// Fuzzed kind-21000 traffic: requests for every operation served over the relay, with the same broken inputs as
// over HTTP, broken envelopes the protocol says to drop without a reply, and raw garbage events (content that is
// not a ciphertext, ciphertexts that are not JSON, bad signatures, other kinds, missing or foreign `p` tags).
import crypto from 'node:crypto'
import fc from 'fast-check'
// The wasm signer (PubClient installs it): pure-JS Schnorr signing would cost the campaign more than the daemon.
import { finalizeEvent as wasmFinalize, generateSecretKey, type Event, type EventTemplate } from 'nostr-tools/wasm'
import { finalizeEvent as pureFinalize } from 'nostr-tools/pure'
import { v2 as nip44 } from 'nostr-tools/nip44'
import type { CatalogueEntry } from '../../../schema/catalogue.js'
import { nip44v1Encrypt, type PubClient } from '../pub-client.js'
import { encodeJson, RawJson, type FuzzSamples } from './bad-values.js'
import { inputCases } from './input-cases.js'

/** The wasm module runs out of memory hashing events of about a megabyte: those few are signed in pure JS. */
const wasmSafeContentLength = 256 * 1024
function finalizeEvent(template: EventTemplate, key: Uint8Array): Event {
  return template.content.length > wasmSafeContentLength ? pureFinalize({ ...template }, key) : wasmFinalize({ ...template }, key)
}

/** Which relay identity sends a request: a plain key (user, guestPub), the enrolled admin key. */
export type NostrCaller = 'user' | 'admin'

export interface NostrCase {
  op: string
  how: string
  caller: NostrCaller
  /** The decrypted content, given the sender's pubkey and the requestId to put inside. */
  envelope(authIdentifier: string, requestId: string): string
  /** Whether the protocol answers it; false for streams (they only push) and for requests it drops. */
  answered: boolean
  /** The protocol drops it without a reply (a broken envelope). */
  dropped: boolean
  scheme: 'nip44v1' | 'nip44v2'
}

/** Whether the daemon will parse `value` as a JSON object (deep RawJson values are written as text). */
const isPlainObject = (value: unknown) =>
  value instanceof RawJson ? value.text.startsWith('{') : typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * Rules of upstream's kind-21000 request envelope broken one at a time. What names no author or requestId to answer by
 * is dropped without a reply; an envelope that names its requestId but no operation served over the relay (or none at
 * all), or a body or query that is not an object, gets an ERROR reply (upstream drops those too, leaving its clients to
 * wait out their timeout).
 */
type BrokenEnvelope = { how: string; answered: boolean; envelope(auth: string, requestId: string, rpcName: string): string }
const brokenEnvelopes: fc.Arbitrary<BrokenEnvelope> = fc.constantFrom<BrokenEnvelope>(
  { how: 'authIdentifier of another key', answered: false, envelope: (_a, r, n) => JSON.stringify({ rpcName: n, requestId: r, authIdentifier: 'f'.repeat(64), body: {} }) },
  { how: 'no authIdentifier', answered: false, envelope: (_a, r, n) => JSON.stringify({ rpcName: n, requestId: r, body: {} }) },
  { how: 'rpcName not a string', answered: true, envelope: (a, r) => JSON.stringify({ rpcName: ['NewInvoice'], requestId: r, authIdentifier: a, body: {} }) },
  { how: 'unknown rpcName', answered: true, envelope: (a, r) => JSON.stringify({ rpcName: 'DropTables', requestId: r, authIdentifier: a, body: {} }) },
  { how: 'HTTP-only rpcName', answered: true, envelope: (a, r) => JSON.stringify({ rpcName: 'AddAppUser', requestId: r, authIdentifier: a, body: {} }) },
  { how: 'body an array', answered: true, envelope: (a, r, n) => JSON.stringify({ rpcName: n, requestId: r, authIdentifier: a, body: [1] }) },
  { how: 'query a string', answered: true, envelope: (a, r, n) => JSON.stringify({ rpcName: n, requestId: r, authIdentifier: a, body: {}, query: 'x' }) },
  { how: 'not JSON', answered: false, envelope: () => '{"rpcName":' },
  { how: 'a JSON array', answered: false, envelope: (a, r, n) => JSON.stringify([n, r, a]) },
)

export function nostrCases(entry: CatalogueEntry, samples: FuzzSamples): fc.Arbitrary<NostrCase> {
  const right: NostrCaller = entry.auth === 'admin' || entry.auth === 'metrics' ? 'admin' : 'user'
  const caller = fc.oneof({ weight: 9, arbitrary: fc.constant(right) }, { weight: 1, arbitrary: fc.constantFrom<NostrCaller>('user', 'admin') })
  const scheme = fc.oneof({ weight: 4, arbitrary: fc.constant<'nip44v1' | 'nip44v2'>('nip44v1') }, { weight: 1, arbitrary: fc.constant<'nip44v1' | 'nip44v2'>('nip44v2') })
  const wellFormed = fc.tuple(inputCases(entry, samples), caller, scheme, fc.boolean()).map(([input, who, s, asQuery]): NostrCase => {
    const body = input.input
    // Over the relay the body must be an object (or absent): anything else is answered with an ERROR, even for a
    // stream (which otherwise answers nothing to the request itself and only pushes).
    const answered = body === undefined || body === null || isPlainObject(body) ? !entry.stream : true
    return {
      op: entry.name,
      how: `${input.how}; ${who}; ${s}${asQuery ? '; as query' : ''}`,
      caller: who,
      scheme: s,
      answered,
      dropped: false,
      envelope: (authIdentifier, requestId) =>
        encodeJson({ rpcName: entry.name, requestId, authIdentifier, ...(asQuery && isPlainObject(body) ? { body: {}, query: body } : { body, query: {} }) }),
    }
  })
  const broken = fc.tuple(brokenEnvelopes, scheme).map(([b, s]): NostrCase => ({
    op: entry.name,
    how: `envelope: ${b.how}; ${s}`,
    caller: right,
    scheme: s,
    answered: b.answered,
    dropped: !b.answered,
    envelope: (auth, requestId) => b.envelope(auth, requestId, entry.name),
  }))
  return fc.oneof({ weight: 12, arbitrary: wellFormed }, { weight: 1, arbitrary: broken })
}

/** A signed kind-21000 request event with a hand-made envelope, encrypted like PubClient does. */
export function requestEvent(client: PubClient, appPubkey: string, plaintext: string, scheme: 'nip44v1' | 'nip44v2'): Event {
  const content = scheme === 'nip44v1' ? nip44v1Encrypt(plaintext, client.key('nip44v1')) : nip44.encrypt(plaintext, client.key('nip44v2'))
  return finalizeEvent({ kind: 21000, created_at: Math.floor(Date.now() / 1000), tags: [['p', appPubkey]], content }, client.secretKey)
}

/** Raw garbage events addressed (or nearly) to the app: every one must be dropped, or answered with an error. */
export function garbageEvents(appPubkey: string): fc.Arbitrary<{ how: string; event: () => Event }> {
  const key = generateSecretKey()
  const now = () => Math.floor(Date.now() / 1000)
  const sign = (kind: number, content: string, tags: string[][] = [['p', appPubkey]], createdAt = now()) =>
    finalizeEvent({ kind, created_at: createdAt, tags, content }, key)
  const v1 = (text: string) => {
    // A ciphertext under a key nobody shares: decrypts to noise on the daemon's side.
    return nip44v1Encrypt(text, crypto.randomBytes(32))
  }
  return fc.oneof(
    fc.string({ maxLength: 200 }).map(text => ({ how: 'content not a ciphertext', event: () => sign(21000, text) })),
    fc.uint8Array({ maxLength: 300 }).map(bytes => ({ how: 'random base64', event: () => sign(21000, Buffer.from(bytes).toString('base64')) })),
    fc.uint8Array({ minLength: 1, maxLength: 300 }).map(bytes => ({
      how: 'version byte 2 garbage',
      event: () => sign(21000, Buffer.concat([Buffer.from([2]), Buffer.from(bytes)]).toString('base64')),
    })),
    fc.constantFrom('{"v":1,"nonce":"!!","ciphertext":"AA=="}', '{"v":2}', '{}', 'null', '[]').map(text => ({ how: 'JSON-form ciphertext', event: () => sign(21000, text) })),
    fc.string({ maxLength: 100 }).map(text => ({ how: 'ciphertext under the wrong key', event: () => sign(21000, v1(text)) })),
    fc.constantFrom(21000, 21001, 21002, 21003, 23194, 1, 30078).chain(kind =>
      fc.string({ maxLength: 100 }).map(text => ({ how: `kind ${kind} with garbage`, event: () => sign(kind, text) })),
    ),
    fc.constantFrom<string[][]>([], [['p']], [['p', 'zz']], [['p', 'f'.repeat(64)]], [['p', appPubkey], ['p', appPubkey]], [['e', appPubkey]]).map(tags => ({
      how: `tags ${JSON.stringify(tags).slice(0, 40)}`,
      event: () => sign(21000, v1('{}'), tags),
    })),
    fc.constantFrom(0, 1_000_000_000, 4_000_000_000).map(createdAt => ({ how: `created_at ${createdAt}`, event: () => sign(21000, v1('{}'), undefined, createdAt) })),
    fc.constantFrom('content', 'sig', 'id').map(part => ({
      how: `bad ${part}`,
      event: () => {
        const event = sign(21000, v1('{}'))
        if (part === 'content') return { ...event, content: event.content + 'A' }
        if (part === 'sig') return { ...event, sig: event.sig.replace(/^./, c => (c === '0' ? '1' : '0')) }
        return { ...event, id: 'f'.repeat(64) }
      },
    })),
  )
}

/** Relay messages that are not NIP-01: the relay answers a NOTICE or closes, and the daemon never sees them. */
export const garbageFrames: fc.Arbitrary<{ how: string; frame: string }> = fc
  .oneof(
    fc.constantFrom('not json', '{}', '[]', '["EVENT"]', '["EVENT",1]', '["EVENT",{}]', '["REQ"]', '["REQ","x",5]', '["CLOSE"]', '["AUTH",{}]', 'null', '["REQ","s",{"kinds":[21000],"limit":-1}]'),
    fc.string({ maxLength: 80 }),
    fc.jsonValue({ maxDepth: 3 }).map(value => JSON.stringify(['EVENT', value])),
  )
  .map(frame => ({ how: `frame ${frame.slice(0, 30)}`, frame }))
