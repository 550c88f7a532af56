// The daemon's signer and verifier (native libsecp256k1 + node's SHA-256) against nostr-tools' pure-JS reference: each
// accepts the other's events, and every kind of forgery is refused, through the memo as well.
import { suite } from '../../support/suite.js'
import * as assert from 'uvu/assert'
import { finalizeEvent, generateSecretKey, getPublicKey, verifyEvent as referenceVerify, type Event } from 'nostr-tools/pure'
import { createEventSigner } from '../../../src/transports/nostr/sign.js'
import { createEventVerifier } from '../../../src/transports/nostr/verify.js'

const test = suite('nostr signatures')
const template = (content = 'hello') => ({ kind: 21000, created_at: 1_700_000_000, tags: [['p', 'a'.repeat(64)]], content })

test('our signatures pass the reference check, and the template is left alone', async () => {
  const { sign, engine } = await createEventSigner()
  assert.is(engine, 'native')
  const key = generateSecretKey()
  const t = template()
  const event = sign(t, key)
  assert.equal(t, template())
  assert.is(event.pubkey, getPublicKey(key))
  assert.ok(referenceVerify({ ...event }))
  // Fresh auxiliary randomness: the same template signs differently, both valid.
  const again = sign(t, key)
  assert.is.not(again.sig, event.sig)
  assert.ok(referenceVerify({ ...again }))
})

test('reference signatures pass our check; forgeries of every field fail', async () => {
  const verifier = await createEventVerifier()
  const key = generateSecretKey()
  const event = finalizeEvent(template(), key)
  const copy = (): Event => JSON.parse(JSON.stringify(event)) as Event
  assert.ok(verifier.verify(copy()))
  const other = finalizeEvent(template(), generateSecretKey())
  const forgeries: [string, Event][] = [
    ['content changed', { ...copy(), content: 'hellO' }],
    ['tags changed', { ...copy(), tags: [['p', 'b'.repeat(64)]] }],
    ['created_at changed', { ...copy(), created_at: event.created_at + 1 }],
    ['another key signed it', { ...copy(), pubkey: other.pubkey }],
    ['signature of another event', { ...copy(), sig: other.sig }],
    ['id of another event', { ...copy(), id: other.id }],
    ['signature not hex', { ...copy(), sig: 'zz' + event.sig.slice(2) }],
    ['signature too short', { ...copy(), sig: event.sig.slice(2) }],
    ['last digit of the signature changed', { ...copy(), sig: event.sig.slice(0, -1) + (event.sig.endsWith('0') ? '1' : '0') }],
    ['pubkey not a curve point', { ...copy(), pubkey: 'f'.repeat(64) }],
    ['tags of the wrong type', { ...copy(), tags: [[1 as unknown as string]] }],
  ]
  for (const [what, forged] of forgeries) assert.is(verifier.verify(forged), false, what)
  // The same forgeries through a verifier that has already accepted (remembered) the genuine event.
  for (const [what, forged] of forgeries) assert.is(verifier.verify(forged), false, `${what} (remembered)`)
  assert.ok(verifier.verify(copy()))
})

test('an event of a few megabytes signs and verifies (the id is hashed outside any wasm memory)', async () => {
  const { sign } = await createEventSigner()
  const verifier = await createEventVerifier()
  const event = sign(template('x'.repeat(3 * 1024 * 1024)), generateSecretKey())
  assert.ok(verifier.verify({ ...event }))
  assert.ok(referenceVerify({ ...event }))
  assert.is(verifier.verify({ ...event, content: event.content + 'y' }), false)
})

test.run()
