// CLINK pointers (noffer, ndebit, nmanage: bech32 TLV records) against the reference SDK's codec: what we encode the
// SDK reads, what the SDK encodes (records in reverse order) we read, pointers far longer than BIP-173's 90 characters
// work up to upstream's 5000, and malformed pointers are refused instead of misread.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { bech32 } from '@scure/base'
import { decodeBech32, ndebitEncode, nmanageEncode, nofferEncode, OfferPriceType } from '@shocknet/clink-sdk'
import {
  decodeNdebit, decodeNmanage, decodeNoffer, encodeNdebit, encodeNmanage, encodeNoffer,
} from '../../src/nostr-codecs/index.js'

const pubkey = 'a3'.repeat(32)
const relay = 'ws://127.0.0.1:4869'
const test = suite('CLINK pointers')

test('a fixed-price noffer we encode is the string the SDK encodes, and one the SDK encodes reads the same here', () => {
  const ours = encodeNoffer({ pubkey, relay, offer: 'coffee', priceType: 'fixed', priceSats: 2100 })
  assert.ok(ours.startsWith('noffer1'))
  assert.equal(decodeBech32(ours), {
    type: 'noffer',
    data: { pubkey, relay, offer: 'coffee', priceType: OfferPriceType.Fixed, price: 2100 },
  })
  // Both write the records last type first: the same pointer is the same string, whoever encodes it.
  const theirs = nofferEncode({ pubkey, relay, offer: 'coffee', priceType: OfferPriceType.Fixed, price: 2100 })
  assert.is(ours, theirs, 'byte for byte what the SDK encodes')
  assert.equal(decodeNoffer(theirs), { pubkey, relay, offer: 'coffee', priceType: 'fixed', priceSats: 2100 })
})

test('a spontaneous noffer carries no price; a price above 2^32-1 sats cannot be encoded', () => {
  const spontaneous = encodeNoffer({ pubkey, relay, offer: 'tips', priceType: 'spontaneous' })
  assert.equal(decodeNoffer(spontaneous), { pubkey, relay, offer: 'tips', priceType: 'spontaneous' })
  assert.is((decodeBech32(spontaneous).data as { price?: number }).price, undefined)
  // The 4-byte big-endian price: 0xffffffff is the largest.
  assert.is(decodeNoffer(encodeNoffer({ pubkey, relay, offer: 'x', priceType: 'fixed', priceSats: 0xffffffff })).priceSats, 0xffffffff)
  assert.throws(() => encodeNoffer({ pubkey, relay, offer: 'x', priceType: 'fixed', priceSats: 0x100000000 }), /4 bytes/)
})

test('a noffer without a price type is spontaneous, as the spec says', () => {
  const words = bech32.toWords(Uint8Array.from([0, 32, ...Buffer.from(pubkey, 'hex'), 1, relay.length, ...Buffer.from(relay), 2, 1, 0x61]))
  assert.equal(decodeNoffer(bech32.encode('noffer', words, 5000)), { pubkey, relay, offer: 'a', priceType: 'spontaneous' })
})

test('ndebit and nmanage round-trip through both codecs, with and without a pointer', () => {
  for (const [encode, decode, sdkEncode, hrp] of [
    [encodeNdebit, decodeNdebit, ndebitEncode, 'ndebit'],
    [encodeNmanage, decodeNmanage, nmanageEncode, 'nmanage'],
  ] as const) {
    const withPointer = encode({ pubkey, relay, pointer: 'user-7' })
    assert.ok(withPointer.startsWith(`${hrp}1`))
    assert.equal(decodeBech32(withPointer), { type: hrp, data: { pubkey, relay, pointer: 'user-7' } })
    assert.equal(decode(sdkEncode({ pubkey, relay, pointer: 'user-7' })), { pubkey, relay, pointer: 'user-7' })
    assert.equal(decode(encode({ pubkey, relay })), { pubkey, relay })
  }
})

test('pointers longer than 90 characters decode, up to the 5000-character limit and no further', () => {
  // A long relay URL and a 68-hex offer id, as upstream's random offer ids are.
  const longRelay = `wss://${'r'.repeat(200)}.example/clink`
  const offer = 'f'.repeat(68)
  const long = encodeNoffer({ pubkey, relay: longRelay, offer, priceType: 'spontaneous' })
  assert.ok(long.length > 400, `${long.length} characters`)
  assert.is(decodeNoffer(long).relay, longRelay)
  assert.is(decodeNoffer(long).offer, offer)

  // Many records (the decoder keeps the first of each type) make a string over 5000 characters: refused.
  const record = [9, 255, ...new Array(255).fill(7)]
  const body = [0, 32, ...Buffer.from(pubkey, 'hex'), 1, 5, ...Buffer.from('ws://'), 2, 1, 0x61, 3, 1, 2]
  const huge = bech32.encode('noffer', bech32.toWords(Uint8Array.from([...body, ...Array(12).fill(record).flat()])), 10_000)
  assert.ok(huge.length > 5000)
  assert.throws(() => decodeNoffer(huge))
  const fits = bech32.encode('noffer', bech32.toWords(Uint8Array.from([...body, ...Array(11).fill(record).flat()])), 10_000)
  assert.ok(fits.length <= 5000, `${fits.length} characters`)
  assert.is(decodeNoffer(fits).offer, 'a', 'unknown record types are skipped')
})

test('malformed pointers are refused: wrong prefix, short pubkey, missing relay, a record running past the end', () => {
  const ndebit = encodeNdebit({ pubkey, relay })
  assert.throws(() => decodeNoffer(ndebit), /expected a noffer/)
  assert.throws(() => decodeNmanage(ndebit), /expected a nmanage/)
  const enc = (bytes: number[]) => bech32.encode('ndebit', bech32.toWords(Uint8Array.from(bytes)), 5000)
  assert.throws(() => decodeNdebit(enc([0, 3, 1, 2, 3, 1, 1, 0x61])), /32 bytes/)
  assert.throws(() => decodeNdebit(enc([0, 32, ...Buffer.from(pubkey, 'hex')])), /relay/)
  assert.throws(() => decodeNdebit(enc([0, 32, ...Buffer.from(pubkey, 'hex'), 1, 9, 0x61])), /past the end/)
  assert.throws(() => decodeNdebit(ndebit.slice(0, -1) + (ndebit.endsWith('q') ? 'p' : 'q')), /checksum|Invalid/i)
})

test.run()
