// The payment hash read from a request's text alone (src/wallet/invoices/request-hash.ts, checksum not checked), the key by which the
// payer finds our own invoices: it must be the hash the `bolt11` package decodes from the same request, wherever
// the `p` field stands among the others, on every network; anything that is not a BOLT11 request names none.
import { test } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { randomBytes } from 'node:crypto'
import bolt11 from 'bolt11'
import { bech32 } from '@scure/base'
import { secp256k1 } from '@noble/curves/secp256k1.js'
import { paymentHashInRequest } from '../../src/wallet/invoices/request-hash.js'
import { encodeInvoice } from '../../src/node/embedded/bolt11-invoice.js'
import { networkParams } from '../../src/node/embedded/network-params.js'
import { bolt11Networks, randomNodePubkey } from '../support/outside-invoice.js'

const networks = ['mainnet', 'testnet', 'signet', 'regtest'] as const
/** The hash as the `bolt11` package decodes it (the network whose prefix is the longest match). */
function bolt11Hash(request: string): string {
  const network = networks.filter(n => request.startsWith(`ln${bolt11Networks[n].bech32}`)).sort((a, b) => bolt11Networks[b].bech32.length - bolt11Networks[a].bech32.length)[0]!
  return bolt11.decode(request, bolt11Networks[network]).tags.find(t => t.tagName === 'payment_hash')!.data as string
}

test('the hash of the embedded node’s invoices, on every network, with and without an amount', () => {
  for (const network of networks) {
    for (const amountMsat of [undefined, 1, 1000, 21_000_000_000]) {
      const paymentHash = randomBytes(32).toString('hex')
      const request = encodeInvoice({
        params: networkParams(network), secretKey: secp256k1.utils.randomSecretKey(), paymentHash,
        paymentSecret: randomBytes(32).toString('hex'), ...(amountMsat ? { amountMsat } : {}),
        description: 'x'.repeat(amountMsat === 1 ? 600 : 10), timestampSec: 1_700_000_000, expirySeconds: 3600,
      })
      assert.is(paymentHashInRequest(request), paymentHash, request)
      assert.is(bolt11Hash(request), paymentHash)
    }
  }
})

test('the hash wherever the p field stands: after a description, a description hash, expiry and routing hints', () => {
  for (let i = 0; i < 20; i++) {
    const paymentHash = randomBytes(32).toString('hex')
    const others = [
      { tagName: 'description', data: 'a'.repeat(i * 7) },
      { tagName: 'expire_time', data: 60 + i },
      { tagName: 'min_final_cltv_expiry', data: 40 },
      { tagName: 'purpose_commit_hash', data: randomBytes(32).toString('hex') },
      {
        tagName: 'routing_info',
        data: [{ pubkey: randomNodePubkey(), short_channel_id: '0102030405060708', fee_base_msat: 1, fee_proportional_millionths: 2, cltv_expiry_delta: 3 }],
      },
      // bolt11 writes a payment secret only with the feature bits that announce it.
      { tagName: 'payment_secret', data: randomBytes(32).toString('hex') },
      { tagName: 'feature_bits', data: { word_length: 4, payment_secret: { required: true, supported: true } } },
    ].slice(0, i % 7 === 5 ? 5 : 1 + (i % 7))
    const at = i % (others.length + 1)
    const tags = [...others.slice(0, at), { tagName: 'payment_hash', data: paymentHash }, ...others.slice(at)]
    const unsigned = bolt11.encode({ network: bolt11Networks.regtest, timestamp: 1_700_000_000 + i, satoshis: 10 + i, tags: tags as never }, false)
    const request = bolt11.sign(unsigned, Buffer.from(secp256k1.utils.randomSecretKey())).paymentRequest!
    assert.is(bolt11Hash(request), paymentHash)
    assert.is(paymentHashInRequest(request), paymentHash, `p field at ${at}: ${request}`)
  }
})

test('no hash in what is not a request: a cut text, another bech32 string, no p field, a character outside bech32', () => {
  const paymentHash = randomBytes(32).toString('hex')
  const unsigned = bolt11.encode({ network: bolt11Networks.regtest, timestamp: 1_700_000_000, satoshis: 5, tags: [{ tagName: 'payment_hash', data: paymentHash }, { tagName: 'description', data: 'd' }] }, false)
  const request = bolt11.sign(unsigned, Buffer.from(secp256k1.utils.randomSecretKey())).paymentRequest!
  assert.is(paymentHashInRequest(request), paymentHash)
  // The checksum is not checked: the hash is only a key, and the caller compares the whole text with ours.
  const last = request.at(-1) === 'q' ? 'p' : 'q'
  assert.is(paymentHashInRequest(request.slice(0, -1) + last), paymentHash, 'a bad checksum still names the hash')
  assert.is(paymentHashInRequest(request.replace('pp5', 'pp5'.toUpperCase())), undefined, 'not lower case')
  assert.is(paymentHashInRequest(request.slice(0, request.lastIndexOf('1') + 20) + 'b' + request.slice(request.lastIndexOf('1') + 21)), undefined, 'not bech32')
  assert.is(paymentHashInRequest(request.slice(0, 60)), undefined, 'cut')
  assert.is(paymentHashInRequest('bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080'), undefined, 'an address')
  assert.is(paymentHashInRequest(''), undefined)
  assert.is(paymentHashInRequest('lnbcrt1inv'), undefined)
  // bolt11 will not write a request without a hash: the words by hand, a timestamp, a 4-word `d` field, a signature.
  const words = [...Array(7).fill(1), 13, 0, 4, 1, 2, 3, 4, ...Array(104).fill(0)]
  assert.is(paymentHashInRequest(bech32.encode('lnbcrt50n', words, false)), undefined, 'no p field')
  // A `p` field of another length is not a payment hash (BOLT 11: a reader skips it).
  const shortP = [...Array(7).fill(1), 1, 1, 19, ...Array(51).fill(7), ...Array(104).fill(0)]
  assert.is(paymentHashInRequest(bech32.encode('lnbcrt50n', shortP, false)), undefined, 'p of 51 words')
})

test.run()
