// The three secp256k1 engines (native libsecp256k1, libsecp256k1 in wasm, pure JS) against the BIP-340 and NIP-44 v2
// reference vectors (test/fixtures/) and against the pure-JS reference implementations (@noble/curves, nostr-tools)
// on random keys and messages: every engine signs, checks and derives conversation keys exactly as the reference.
import { suite } from '../support/suite.js'
import { pino } from 'pino'
import * as assert from 'uvu/assert'
import fs from 'node:fs'
import path from 'node:path'
import crypto from 'node:crypto'
import { schnorr, secp256k1 } from '@noble/curves/secp256k1.js'
import { finalizeEvent, generateSecretKey, getPublicKey, verifyEvent as referenceVerify } from 'nostr-tools/pure'
import { v2 as referenceNip44 } from 'nostr-tools/nip44'
import {
  activeEngine,
  conversationKeyV1,
  conversationKeyV2,
  createEventSigner,
  createEventVerifier,
  engineNames,
  loadEngine,
  useEngine,
  type CurveEngine,
} from '../../src/nostr-crypto/index.js'
import { decryptV2, encryptV2 } from '../../src/nostr-codecs/nip44v2.js'
import { repoRoot } from '../support/paths.js'
import { nip44v1Key } from '../support/pub-client.js'

const test = suite('nostr crypto engines')
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex')
const bytes = (text: string) => Buffer.from(text, 'hex')

const bip340 = fs
  .readFileSync(path.join(repoRoot, 'test/fixtures/bip340-vectors.csv'), 'utf8')
  .split('\n')
  .filter(line => line && !line.startsWith('#') && !line.startsWith('index'))
  .map(line => {
    const [index, secretKey, publicKey, aux, message, signature, result, comment] = line.split(',')
    return { index, secretKey, publicKey, aux, message, signature, valid: result === 'TRUE', comment }
  })
const nip44 = JSON.parse(fs.readFileSync(path.join(repoRoot, 'test/fixtures/nip44-v2.vectors.json'), 'utf8')).v2

const engines: CurveEngine[] = []
test.before(async () => {
  for (const name of engineNames) engines.push((await loadEngine(name)).engine)
})
test.after(async () => {
  await useEngine('native')
})

test('every engine loads here, and the fastest is the one in use', () => {
  assert.equal(engines.map(engine => engine.name), ['native', 'wasm', 'js'])
  assert.is(activeEngine().name, 'native')
})

test('BIP-340 vectors: public keys, signatures with the given aux randomness, and every verdict', () => {
  assert.is(bip340.length, 15)
  for (const engine of engines) {
    for (const v of bip340) {
      const what = `${engine.name} vector ${v.index} ${v.comment ?? ''}`
      if (v.secretKey) {
        assert.is(hex(engine.publicKey(bytes(v.secretKey!))).toUpperCase(), v.publicKey, what)
        assert.is(hex(engine.sign(bytes(v.message!), bytes(v.secretKey!), bytes(v.aux!))).toUpperCase(), v.signature, what)
      }
      assert.is(engine.verify(bytes(v.message!), bytes(v.publicKey!), bytes(v.signature!)), v.valid, what)
    }
  }
})

test('NIP-44 v2 vectors: conversation keys (ECDH) on every engine, ciphertexts, and every invalid case', async () => {
  for (const engine of engines) {
    await useEngine(engine.name)
    assert.is(activeEngine().name, engine.name)
    for (const v of nip44.valid.get_conversation_key) assert.is(hex(conversationKeyV2(v.sec1, v.pub2)), v.conversation_key, `${engine.name} ${v.note}`)
    for (const v of nip44.valid.encrypt_decrypt) {
      assert.is(hex(conversationKeyV2(v.sec1, getPublicKey(bytes(v.sec2)))), v.conversation_key, `${engine.name} ${v.plaintext}`)
      assert.is(hex(conversationKeyV2(v.sec2, getPublicKey(bytes(v.sec1)))), v.conversation_key, `${engine.name} symmetric`)
    }
    for (const v of nip44.invalid.get_conversation_key) assert.throws(() => conversationKeyV2(v.sec1, v.pub2), undefined, `${engine.name} ${v.note}`)
  }
  await useEngine('native')
  for (const v of nip44.valid.encrypt_decrypt) {
    const key = bytes(v.conversation_key)
    assert.is(encryptV2(v.plaintext, key, bytes(v.nonce)), v.ciphertext, v.plaintext)
    assert.is(decryptV2(v.ciphertext, key), v.plaintext)
  }
  for (const v of nip44.invalid.decrypt) assert.throws(() => decryptV2(v.ciphertext, bytes(v.conversation_key)), /nip44 v2 payload rejected/, v.note)
})

test('random keys and messages: each engine agrees with the pure-JS references both ways', async () => {
  for (let i = 0; i < 40; i++) {
    const secretKey = generateSecretKey()
    const pubkey = schnorr.getPublicKey(secretKey)
    const message = crypto.randomBytes(32)
    const aux = crypto.randomBytes(32)
    const reference = schnorr.sign(message, secretKey, aux)
    const peerSecret = generateSecretKey()
    const peer = schnorr.getPublicKey(peerSecret)
    const sharedX = secp256k1.getSharedSecret(secretKey, Uint8Array.from([2, ...peer]), true).subarray(1)
    for (const engine of engines) {
      assert.is(hex(engine.publicKey(secretKey)), hex(pubkey), engine.name)
      // BIP-340 signing is deterministic given the aux randomness: the same bytes as the reference.
      const sig = engine.sign(message, secretKey, aux)
      assert.is(hex(sig), hex(reference), engine.name)
      assert.ok(schnorr.verify(sig, message, pubkey), engine.name)
      assert.ok(engine.verify(message, pubkey, reference), engine.name)
      const forged = Uint8Array.from(reference)
      forged[i % 64]! ^= 1 << i % 8
      assert.is(engine.verify(message, pubkey, forged), false, `${engine.name} forged`)
      assert.is(hex(engine.sharedX(secretKey, peer)), hex(sharedX), engine.name)
      assert.is(hex(engine.sharedX(peerSecret, pubkey)), hex(sharedX), `${engine.name} symmetric`)
    }
    // The conversation keys built on the engine in use, against independent derivations.
    assert.is(hex(conversationKeyV1(secretKey, hex(peer))), hex(nip44v1Key(secretKey, hex(peer))))
    assert.is(hex(conversationKeyV2(secretKey, hex(peer))), hex(referenceNip44.utils.getConversationKey(secretKey, hex(peer))))
  }
})

test('events: signed on each engine they pass the reference check; reference events pass ours (signature thread too)', async () => {
  for (const engine of engines) {
    await useEngine(engine.name)
    const { sign, engine: name } = await createEventSigner()
    assert.is(name, engine.name)
    const key = generateSecretKey()
    const event = sign({ kind: 21000, created_at: 1_700_000_000, tags: [['p', 'a'.repeat(64)]], content: 'hi' }, key)
    assert.ok(referenceVerify({ ...event }), engine.name)
    const verifier = await createEventVerifier()
    assert.is(verifier.engine, engine.name)
    const theirs = finalizeEvent({ kind: 1, created_at: 1_700_000_000, tags: [], content: 'x' }, generateSecretKey())
    assert.ok(verifier.verify({ ...theirs }), engine.name)
    assert.is(verifier.verify({ ...theirs, content: 'y' }), false, engine.name)
  }
  await useEngine('native')
})

test('the signature thread runs only for engines slower than the hop to it (wasm, js), and signs there correctly', async () => {
  for (const engine of engines) {
    await useEngine(engine.name)
    const verifier = await createEventVerifier({ log: pino({ level: 'silent' }) })
    try {
      assert.is(verifier.thread !== undefined, engine.name !== 'native', engine.name)
      if (!verifier.thread) continue
      const key = generateSecretKey()
      const id = 'c'.repeat(64)
      const sig = await new Promise<string>(resolve => verifier.thread!.sign(id, key, resolve))
      assert.ok(schnorr.verify(bytes(sig), bytes(id), bytes(getPublicKey(key))), engine.name)
    } finally {
      await verifier.stop()
    }
  }
  await useEngine('native')
})

test.run()
