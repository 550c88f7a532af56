// The embedded node: the shared LightningNode contract, then what only the offline node does with its identity
// and its simulated chain: the key file, restarts, networks, addresses, wallet and channels.
// Payments and mock controls are in embedded-payments.test.ts.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { randomBytes } from 'node:crypto'
import bolt11 from 'bolt11'
import { Address } from '@scure/btc-signer'
import { mnemonicToEntropy, validateMnemonic } from '@scure/bip39'
import { wordlist } from '@scure/bip39/wordlists/english.js'
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { openStore } from '../../src/store/index.js'
import { createNode } from '../../src/node/index.js'
import { lightSections, nodeContract } from './contract.js'
import { replayed } from './settlements-seen.js'
import { openEmbedded, startMs } from './embedded-harness.js'
import { rejectsWith } from './operation-error.js'
import { bolt11Networks, randomNodePubkey } from '../support/outside-invoice.js'

nodeContract('embedded node', opts => openEmbedded(opts))

const embedded = suite('embedded node')

embedded('the node key is created once, 0600, and its seed words restore it', async () => {
  const h = await openEmbedded()
  try {
    const file = path.join(h.dataDir, 'node.key')
    assert.is(fs.statSync(file).mode & 0o777, 0o600)
    const keyHex = fs.readFileSync(file, 'utf8').trim()
    assert.match(keyHex, /^[0-9a-f]{64}$/)
    const seed = await h.node.getSeed()
    assert.ok(validateMnemonic(seed.join(' '), wordlist))
    assert.is(Buffer.from(mnemonicToEntropy(seed.join(' '), wordlist)).toString('hex'), keyHex)
    assert.equal(fs.readdirSync(h.dataDir).filter(name => name.includes('.tmp')), [])
  } finally {
    await h.close()
  }
})

embedded('a restart keeps the node key, the invoices and their states, and the settle order', async () => {
  const first = await openEmbedded()
  const { pubkey } = await first.node.getInfo()
  const seed = await first.node.getSeed()
  const paid = await first.node.createInvoice({ amountMsat: 5000, description: 'paid before restart' })
  const unpaid = await first.node.createInvoice({ amountMsat: 6000, description: 'unpaid', expirySeconds: 7200 })
  const expiring = await first.node.createInvoice({ amountMsat: 7000, expirySeconds: 60 })
  await first.node.pay({ paymentRequest: paid.paymentRequest, maxFeeMsat: 0, timeoutMs: 1000 })
  const address = await first.node.newAddress('WITNESS_PUBKEY_HASH')
  await first.stop()

  await first.time.advance(120_000)
  const second = await openEmbedded({ dataDir: first.dataDir, time: first.time })
  try {
    assert.is((await second.node.getInfo()).pubkey, pubkey)
    assert.equal(await second.node.getSeed(), seed)
    assert.is((await second.node.lookupInvoice(paid.paymentHash))?.state, 'paid')
    assert.is((await second.node.lookupInvoice(unpaid.paymentHash))?.state, 'unpaid')
    assert.is((await second.node.lookupInvoice(expiring.paymentHash))?.state, 'expired')
    assert.is((await second.node.trackPayment(paid.paymentHash))?.status, 'succeeded')
    await rejectsWith(
      second.node.pay({ paymentRequest: paid.paymentRequest, maxFeeMsat: 0, timeoutMs: 1000 }),
      'conflict',
      'invoice is already paid',
    )
    await second.node.pay({ paymentRequest: unpaid.paymentRequest, maxFeeMsat: 0, timeoutMs: 1000 })
    assert.equal(
      (await replayed(second.node, 0, 2)).map(s => [s.paymentHash, s.settleIndex]),
      [
        [paid.paymentHash, 1],
        [unpaid.paymentHash, 2],
      ],
    )
    assert.is.not(await second.node.newAddress('WITNESS_PUBKEY_HASH'), address)
  } finally {
    await second.close()
  }
})

embedded('a database of one node refuses another network, another node key, a broken key file', async () => {
  const h = await openEmbedded()
  await h.stop()
  try {
    await openEmbedded({ dataDir: h.dataDir, network: 'testnet' }).then(
      () => assert.unreachable('opened on another network'),
      (err: Error) => assert.match(err.message, /database is for network regtest/),
    )
    fs.writeFileSync(path.join(h.dataDir, 'node.key'), `${randomBytes(32).toString('hex')}\n`, { mode: 0o600 })
    await openEmbedded({ dataDir: h.dataDir }).then(
      () => assert.unreachable('opened with a foreign key'),
      (err: Error) => assert.match(err.message, /belongs to the embedded node/),
    )
    fs.writeFileSync(path.join(h.dataDir, 'node.key'), 'not a key\n')
    await openEmbedded({ dataDir: h.dataDir }).then(
      () => assert.unreachable('opened with a broken key file'),
      (err: Error) => assert.match(err.message, /does not hold a node key/),
    )
  } finally {
    fs.rmSync(h.dataDir, { recursive: true, force: true })
  }
})

for (const [network, prefix, addressPrefix] of [
  ['regtest', 'lnbcrt', 'bcrt1'],
  ['testnet', 'lntb', 'tb1'],
  ['signet', 'lntbs', 'tb1'],
  ['mainnet', 'lnbc', 'bc1'],
] as const) {
  embedded(`on ${network} invoices start ${prefix} and addresses ${addressPrefix}`, async () => {
    const h = await openEmbedded({ network })
    try {
      const invoice = await h.node.createInvoice({ amountMsat: 250_000_000, description: network })
      assert.ok(invoice.paymentRequest.startsWith(`${prefix}2500u1`), invoice.paymentRequest)
      const { pubkey } = await h.node.getInfo()
      assert.is(bolt11.decode(invoice.paymentRequest, bolt11Networks[network]).payeeNodeKey, pubkey)
      assert.is(lightSections(invoice.paymentRequest).amount, '250000000')
      assert.ok((await h.node.newAddress('WITNESS_PUBKEY_HASH')).startsWith(`${addressPrefix}q`))
      assert.ok((await h.node.newAddress('TAPROOT_PUBKEY')).startsWith(`${addressPrefix}p`))
    } finally {
      await h.close()
    }
  })
}

embedded('addresses come from the node key: the same key gives the same addresses', async () => {
  const h = await openEmbedded()
  const keyFile = fs.readFileSync(path.join(h.dataDir, 'node.key'))
  const first = [await h.node.newAddress('WITNESS_PUBKEY_HASH'), await h.node.newAddress('NESTED_PUBKEY_HASH')]
  await h.close()
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'relaypay-node-'))
  fs.writeFileSync(path.join(dataDir, 'node.key'), keyFile, { mode: 0o600 })
  const twin = await openEmbedded({ dataDir })
  try {
    const again = [await twin.node.newAddress('WITNESS_PUBKEY_HASH'), await twin.node.newAddress('NESTED_PUBKEY_HASH')]
    assert.equal(again, first)
    const regtest = { bech32: 'bcrt', pubKeyHash: 0x6f, scriptHash: 0xc4, wif: 0xef }
    assert.is(Address(regtest).decode(first[1]).type, 'sh')
  } finally {
    await twin.close()
  }
})

embedded('the wallet starts with 1 BTC; coins sent to ourselves are unconfirmed until the next block', async () => {
  const h = await openEmbedded()
  try {
    const start = await h.node.getBalances()
    assert.equal(start, {
      chainBalanceSats: 100_000_000,
      unconfirmedChainBalanceSats: 0,
      channelsLocalMsat: 0,
      channelsRemoteMsat: 0,
    })
    const own = await h.node.newAddress('TAPROOT_PUBKEY')
    const sent = await h.node.sendToAddress({ address: own, amountSats: 40_000, satPerVbyte: 1 })
    assert.equal(await h.node.getBalances(), {
      ...start,
      chainBalanceSats: 100_000_000 - 40_000 - sent.feeSats,
      unconfirmedChainBalanceSats: 40_000,
    })
    await h.advance(600_000)
    assert.equal(await h.node.getBalances(), { ...start, chainBalanceSats: 100_000_000 - sent.feeSats })
    await rejectsWith(h.node.bumpFee({ txid: sent.txid, outputIndex: 0, satPerVbyte: 5 }), 'conflict')
    await rejectsWith(h.node.bumpFee({ txid: 'ab'.repeat(32), outputIndex: 0, satPerVbyte: 5 }), 'not_found')
    await rejectsWith(h.node.sendToAddress({ address: own, amountSats: 200_000_000 }), 'insufficient_balance')
    await rejectsWith(
      h.node.sendToAddress({ address: 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx', amountSats: 1000 }),
      'invalid_input',
      /network regtest/,
    )
  } finally {
    await h.close()
  }
})

embedded('channel rules: self, too small, a push above the funding, more than the wallet holds', async () => {
  const h = await openEmbedded()
  try {
    const { pubkey } = await h.node.getInfo()
    const toSelf = h.node.addPeer({ pubkey, host: '127.0.0.1', port: 9735 })
    await rejectsWith(toSelf, 'invalid_input', 'cannot make connection to self')
    await rejectsWith(h.node.addPeer({ pubkey: 'zz', host: '127.0.0.1', port: 9735 }), 'invalid_input')
    const peer = randomNodePubkey()
    await h.node.addPeer({ pubkey: peer, host: 'peer.example', port: 9735 })
    await h.node.addPeer({ pubkey: peer, host: 'peer.example', port: 9736 })
    assert.equal((await h.node.listPeers()).map(p => p.address), ['peer.example:9736'])
    await rejectsWith(h.node.openChannel({ peerPubkey: peer, localFundingSats: 19_999 }), 'invalid_input', /too small/)
    const pushAll = h.node.openChannel({ peerPubkey: peer, localFundingSats: 50_000, pushSats: 50_000 })
    await rejectsWith(pushAll, 'invalid_input')
    for (let i = 0; i < 6; i++) await h.node.openChannel({ peerPubkey: peer, localFundingSats: 16_000_000 })
    await rejectsWith(h.node.openChannel({ peerPubkey: peer, localFundingSats: 16_000_000 }), 'insufficient_balance')
    assert.is((await h.node.listChannels()).length, 6)
  } finally {
    await h.close()
  }
})

embedded('closing a channel returns our side, less the fee, to the wallet', async () => {
  const h = await openEmbedded()
  try {
    const peer = randomNodePubkey()
    await h.node.addPeer({ pubkey: peer, host: '127.0.0.1', port: 9735 })
    const before = (await h.node.getBalances()).chainBalanceSats
    const opened = await h.node.openChannel({
      peerPubkey: peer,
      localFundingSats: 100_000,
      pushSats: 10_000,
      satPerVbyte: 1,
    })
    await h.node.closeChannel({ fundingTxid: opened.fundingTxid, outputIndex: 0, force: false, satPerVbyte: 1 })
    await h.advance(600_000)
    // 154 vbytes to open and 169 to close, at 1 sat/vbyte; the 10,000 pushed sats are the peer's.
    assert.is((await h.node.getBalances()).chainBalanceSats, before - 10_000 - 154 - 169)
  } finally {
    await h.close()
  }
})

embedded('a mock forward moves both channel balances and appears in the forwarding history', async () => {
  const h = await openEmbedded({ mock: true })
  try {
    const [a, b] = [randomNodePubkey(), randomNodePubkey()]
    await h.node.addPeer({ pubkey: a, host: '127.0.0.1', port: 1 })
    await h.node.addPeer({ pubkey: b, host: '127.0.0.1', port: 2 })
    await h.node.openChannel({ peerPubkey: a, localFundingSats: 100_000, pushSats: 50_000 })
    await h.node.openChannel({ peerPubkey: b, localFundingSats: 100_000 })
    const byPeer = async (peer: string) => (await h.node.listChannels()).find(c => c.peerPubkey === peer)!
    const [inbound, outbound] = [await byPeer(a), await byPeer(b)]
    const forward = await h.node.mock!.recordForward({
      incomingChannelId: inbound.channelId,
      outgoingChannelId: outbound.channelId,
      amountOutMsat: 1_000_000,
      feeMsat: 1_001,
    })
    assert.is(forward.amountInMsat, 1_001_001)
    const [inAfter, outAfter] = [await byPeer(a), await byPeer(b)]
    assert.is(inAfter.localBalanceMsat, inbound.localBalanceMsat + 1_001_001)
    assert.is(outAfter.remoteBalanceMsat, outbound.remoteBalanceMsat + 1_000_000)
    assert.equal(await h.node.forwardingHistory({ fromMs: h.now(), toMs: h.now() + 1 }), [forward])
    assert.equal(await h.node.forwardingHistory({ fromMs: h.now() + 1, toMs: h.now() + 2 }), [])
  } finally {
    await h.close()
  }
})

embedded('a stopped node refuses calls as unavailable', async () => {
  const h = await openEmbedded()
  await h.node.close()
  try {
    await rejectsWith(h.node.getInfo(), 'node_unavailable')
    await rejectsWith(h.node.createInvoice({ amountMsat: 1000 }), 'node_unavailable')
  } finally {
    await h.close()
  }
})


embedded.run()
