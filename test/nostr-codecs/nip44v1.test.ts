import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import fc from 'fast-check'
import { streamXOR } from '@stablelib/xchacha20'
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js'
import { generateSecretKey, getPublicKey } from 'nostr-tools/pure'
import { v2 as nostrToolsNip44 } from 'nostr-tools/nip44'
import { CipherError, conversationKeyV1, decryptV1, encryptV1 } from '../../src/nostr-codecs/index.js'
import { conversationKeyV2, decryptV2, encryptV2 } from '../../src/nostr-codecs/nip44v2.js'
import { repoRoot } from '../support/paths.js'

interface Vector {
  sec1: string
  pub1: string
  sec2: string
  pub2: string
  conversation_key: string
  nonce: string
  plaintext: string
  payload: string
  payload_json: string
}
const { vectors } = JSON.parse(
  fs.readFileSync(path.join(repoRoot, 'test/nostr-codecs/nip44v1.vectors.json'), 'utf8'),
) as { vectors: Vector[] }

// An implementation that shares no code with ours: node's OpenSSL ECDH and SHA-256, and stablelib's XChaCha20.
function independentKey(secHex: string, pubHex: string): Uint8Array {
  const ecdh = crypto.createECDH('secp256k1')
  ecdh.setPrivateKey(Buffer.from(secHex, 'hex'))
  return crypto.createHash('sha256').update(ecdh.computeSecret(Buffer.from('02' + pubHex, 'hex'))).digest()
}
function independentPayload(key: Uint8Array, nonce: Uint8Array, plaintext: Uint8Array): string {
  const ciphertext = streamXOR(key, nonce, plaintext, new Uint8Array(plaintext.length))
  return Buffer.concat([Buffer.from([1]), nonce, ciphertext]).toString('base64')
}
const isCipherError = (err: unknown) => err instanceof CipherError

function payloadWithVersion(version: number, key: Uint8Array, plaintext: Uint8Array): string {
  const nonce = new Uint8Array(24).fill(7)
  const wire = Buffer.from(independentPayload(key, nonce, plaintext), 'base64')
  wire[0] = version
  return wire.toString('base64')
}

const golden = suite('nip44v1 golden vectors')

golden('the vector file holds vectors for several key pairs', () => {
  assert.ok(vectors.length >= 5)
  assert.ok(new Set(vectors.map(v => v.sec1 + v.sec2)).size >= 3)
})

for (const [i, v] of vectors.entries()) {
  golden(`vector ${i}: key, ciphertext and decryption match in both directions`, () => {
    const fromOne = conversationKeyV1(v.sec1, v.pub2)
    const fromTwo = conversationKeyV1(hexToBytes(v.sec2), v.pub1)
    assert.is(bytesToHex(fromOne), v.conversation_key)
    assert.is(bytesToHex(fromTwo), v.conversation_key, 'B→A derives the same key as A→B')
    assert.is(bytesToHex(independentKey(v.sec1, v.pub2)), v.conversation_key, 'node:crypto agrees on the key')

    const nonce = hexToBytes(v.nonce)
    assert.is(encryptV1(v.plaintext, fromOne, nonce), v.payload)
    assert.is(
      independentPayload(fromOne, nonce, new TextEncoder().encode(v.plaintext)),
      v.payload,
      '@stablelib/xchacha20 computes the same payload',
    )
    assert.is(decryptV1(v.payload, fromTwo), v.plaintext)
    assert.is(decryptV1(v.payload_json, fromTwo), v.plaintext, 'the JSON form decodes to the same text')
  })
}

golden('a public key must be x-only hex', () => {
  assert.throws(() => conversationKeyV1(vectors[0].sec1, '02' + vectors[0].pub2), isCipherError)
})

const agree = suite('nip44v1 agrees with @stablelib/xchacha20 on arbitrary input')

agree('random keys, nonces and texts', () => {
  fc.assert(
    fc.property(
      fc.uint8Array({ minLength: 32, maxLength: 32 }),
      fc.uint8Array({ minLength: 24, maxLength: 24 }),
      fc.string({ unit: 'grapheme', maxLength: 300 }),
      (key, nonce, text) => {
        const payload = encryptV1(text, key, nonce)
        assert.is(payload, independentPayload(key, nonce, new TextEncoder().encode(text)))
        assert.is(decryptV1(payload, key), text)
      },
    ),
    { numRuns: 200 },
  )
})

agree('two fresh key pairs talk both ways with random nonces', () => {
  const a = generateSecretKey()
  const b = generateSecretKey()
  const ab = conversationKeyV1(a, getPublicKey(b))
  const ba = conversationKeyV1(b, getPublicKey(a))
  assert.equal(ab, ba)
  const request = encryptV1('{"rpcName":"GetUserInfo","requestId":"q"}', ab)
  const reply = encryptV1('{"status":"OK","requestId":"q"}', ba)
  assert.is.not(request, encryptV1('{"rpcName":"GetUserInfo","requestId":"q"}', ab), 'each call draws a new nonce')
  assert.is(decryptV1(request, ba), '{"rpcName":"GetUserInfo","requestId":"q"}')
  assert.is(decryptV1(reply, ab), '{"status":"OK","requestId":"q"}')
})

const refuses = suite('nip44v1 refuses payloads it cannot trust')
const key = hexToBytes(vectors[0].conversation_key)
const text = new TextEncoder().encode('{"status":"OK"}')

for (const c of [
  { because: 'version byte 2 (a NIP-44 v2 payload)', payload: payloadWithVersion(2, key, text) },
  { because: 'version byte 0', payload: payloadWithVersion(0, key, text) },
  { because: 'version byte 3', payload: payloadWithVersion(3, key, text) },
  { because: 'JSON form with v 2', payload: JSON.stringify({ ...JSON.parse(vectors[0].payload_json), v: 2 }) },
  { because: 'JSON form with v "1" as a string', payload: JSON.stringify({ ...JSON.parse(vectors[0].payload_json), v: '1' }) },
  { because: 'JSON form without a nonce', payload: JSON.stringify({ v: 1, ciphertext: 'AAAA' }) },
  { because: 'JSON form with a short nonce', payload: JSON.stringify({ v: 1, nonce: 'AAAA', ciphertext: 'AAAA' }) },
  { because: 'a payload shorter than its nonce', payload: Buffer.from([1, 2, 3, 4]).toString('base64') },
  { because: 'an empty payload', payload: '' },
  { because: 'text that is not base64', payload: 'not base64 at all!' },
  { because: 'broken JSON', payload: '{"v":1,' },
  { because: 'plaintext that is not UTF-8', payload: payloadWithVersion(1, key, Uint8Array.from([0x7b, 0xff, 0xfe, 0x7d])) },
  { because: 'a truncated multi-byte UTF-8 sequence', payload: payloadWithVersion(1, key, Uint8Array.from([0x22, 0xe2, 0x82])) },
]) {
  refuses(c.because, () => {
    assert.throws(() => decryptV1(c.payload, key), isCipherError)
  })
}

refuses('a payload opened with the wrong key does not yield text', () => {
  const otherPeer = vectors.find(v => v.pub2 !== vectors[0].pub2)!.pub2
  const wrong = conversationKeyV1(vectors[0].sec1, otherPeer)
  let opened = 0
  const samePair = vectors.filter(v => v.conversation_key === vectors[0].conversation_key && v.plaintext.length > 16)
  assert.ok(samePair.length >= 2)
  for (const v of samePair) {
    try {
      if (decryptV1(v.payload, wrong) === v.plaintext) opened++
    } catch (err) {
      assert.instance(err, CipherError)
    }
  }
  assert.is(opened, 0)
})

refuses('a nonce of the wrong length is refused when encrypting', () => {
  assert.throws(() => encryptV1('x', key, new Uint8Array(12)), isCipherError)
})

const v2 = suite('NIP-44 v2 through nostr-tools')

v2('round trip between two key pairs, and nostr-tools reads what we write', () => {
  const a = generateSecretKey()
  const b = generateSecretKey()
  const ab = conversationKeyV2(a, getPublicKey(b))
  assert.equal(ab, conversationKeyV2(bytesToHex(b), getPublicKey(a)))
  const payload = encryptV2('{"method":"get_balance","params":{}}', ab)
  assert.is(Buffer.from(payload, 'base64')[0], 2)
  assert.is(decryptV2(payload, ab), '{"method":"get_balance","params":{}}')
  assert.is(nostrToolsNip44.decrypt(payload, ab), '{"method":"get_balance","params":{}}')
})

v2('a tampered v2 payload is refused (it has a MAC, unlike v1)', () => {
  const a = generateSecretKey()
  const ab = conversationKeyV2(a, getPublicKey(generateSecretKey()))
  const wire = Buffer.from(encryptV2('hello there', ab), 'base64')
  wire[40] ^= 1
  assert.throws(() => decryptV2(wire.toString('base64'), ab), isCipherError)
})

v2('a v1 payload is not a v2 payload', () => {
  assert.throws(() => decryptV2(vectors[0].payload, key), isCipherError)
})

// nostr-tools 2.25 does not ship nip44.vectors.json in its npm package (only the compiled nip44.test.d.ts), so
// the official NIP-44 spec vectors are not run here.

golden.run()
agree.run()
refuses.run()
v2.run()
