import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { generateSecretKey, getPublicKey } from 'nostr-tools/pure'
import {
  CipherError,
  type CipherScheme,
  conversationKey,
  decryptPayload,
  encryptWith,
  schemeOf,
} from '../../src/nostr-codecs/cipher.js'

const detect = suite('a payload tells which scheme encrypted it')
const client = generateSecretKey()
const service = generateSecretKey()
const keysOf = (ours: Uint8Array, theirs: Uint8Array) => (scheme: CipherScheme) =>
  conversationKey(scheme, ours, getPublicKey(theirs))

detect('binary nip44v1, the JSON form and NIP-44 v2 are told apart', () => {
  const v1 = encryptWith('nip44v1', '{"a":1}', keysOf(client, service)('nip44v1'))
  const v2 = encryptWith('nip44v2', '{"a":1}', keysOf(client, service)('nip44v2'))
  assert.is(schemeOf(v1), 'nip44v1')
  assert.is(schemeOf(v2), 'nip44v2')
  assert.is(schemeOf('{"v":1,"nonce":"x","ciphertext":"y"}'), 'nip44v1')
})

for (const c of [
  { because: 'version byte 3', payload: Buffer.from([3, 1, 2, 3, 4, 5]).toString('base64') },
  { because: 'version byte 0', payload: Buffer.from([0, 1, 2, 3, 4, 5]).toString('base64') },
  { because: "NIP-44's reserved # prefix", payload: '#future-version' },
  { because: 'a NIP-04 style payload that is not base64', payload: '%%%?iv=abc' },
]) {
  detect(`an unknown scheme is refused: ${c.because}`, () => {
    assert.throws(() => schemeOf(c.payload), (err: unknown) => err instanceof CipherError)
  })
}

const reply = suite('a reply uses the scheme of its request')

for (const scheme of ['nip44v1', 'nip44v2'] as const) {
  reply(`a ${scheme} request is answered in ${scheme}`, () => {
    const request = encryptWith(scheme, '{"rpcName":"GetUserInfo","requestId":"r1"}', keysOf(client, service)(scheme))
    const opened = decryptPayload(request, keysOf(service, client))
    assert.is(opened.scheme, scheme)
    assert.is(opened.plaintext, '{"rpcName":"GetUserInfo","requestId":"r1"}')
    const answer = encryptWith(opened.scheme, '{"status":"OK","requestId":"r1"}', keysOf(service, client)(opened.scheme))
    assert.is(schemeOf(answer), scheme)
    assert.is(decryptPayload(answer, keysOf(client, service)).plaintext, '{"status":"OK","requestId":"r1"}')
  })
}

detect.run()
reply.run()
