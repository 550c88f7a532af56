// The behaviour every LightningNode backend owes the daemon, as one suite a backend's test runs with its own
// `makeNode`: the embedded node now, the LND backend (over the fake LND server) later. Observations go through
// the node's interface and through independent decoders (`bolt11`, `light-bolt11-decoder`, @scure/btc-signer).
import { createHash } from 'node:crypto'
import bolt11 from 'bolt11'
import { decode as lightDecode } from 'light-bolt11-decoder'
import { Address, NETWORK, TEST_NETWORK } from '@scure/btc-signer'
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import type { AddressType, BitcoinNetwork, LightningNode } from '../../src/node/index.js'
import { rejectsWith } from './operation-error.js'
import { arrived, collect, replayed } from './settlements-seen.js'
import { bolt11Networks, outsideInvoice, randomNodePubkey } from '../support/outside-invoice.js'
import type { HarnessOptions, MakeNode, NodeHarness } from '../support/node-harness.js'

export type { HarnessOptions, MakeNode, NodeHarness } from '../support/node-harness.js'

/** Where backends may differ and still keep the contract. */
export interface ContractOptions {
  /**
   * getSeed answers the 24 words of a node relaypay created (the embedded node). false: the node keeps its seed
   * (LND) and getSeed refuses with not_found.
   */
  revealsSeed?: boolean
  /**
   * The node lives in a simulated world (the embedded node, the fake LND): it settles its own invoices when it pays
   * them, connects to made-up peers, and has a funded wallet whose change is output 0. false for a real node:
   * the cases that need that world are reported skipped.
   */
  simulated?: boolean
}

const chainNetworks: Record<BitcoinNetwork, { bech32: string; pubKeyHash: number; scriptHash: number; wif: number }> = {
  mainnet: NETWORK,
  testnet: TEST_NETWORK,
  signet: TEST_NETWORK,
  regtest: { bech32: 'bcrt', pubKeyHash: 0x6f, scriptHash: 0xc4, wif: 0xef },
}

export function sha256Hex(hex: string): string {
  return createHash('sha256').update(Buffer.from(hex, 'hex')).digest('hex')
}

/** What light-bolt11-decoder reads from a request, by section name. */
export function lightSections(paymentRequest: string): Record<string, unknown> {
  const decoded = lightDecode(paymentRequest)
  const sections: Record<string, unknown> = { expiry: decoded.expiry }
  for (const section of decoded.sections) if ('value' in section) sections[section.name] = section.value
  return sections
}

export function nodeContract(name: string, makeNode: MakeNode, options: ContractOptions = {}): void {
  const revealsSeed = options.revealsSeed ?? true
  const test = suite(`${name}: LightningNode contract`)
  const inSimulation = (options.simulated ?? true) ? test : test.skip
  const withNode = (fn: (h: NodeHarness) => Promise<void>, opts?: HarnessOptions) => async () => {
    const harness = await makeNode(opts)
    try {
      await fn(harness)
    } finally {
      await harness.close()
    }
  }

  test(
    'node info names the node, its network, and says it is synced',
    withNode(async ({ node, network }) => {
      const info = await node.getInfo()
      assert.match(info.pubkey, /^0[23][0-9a-f]{64}$/)
      assert.ok(info.alias.length > 0)
      assert.is(info.network, network)
      assert.ok(info.syncedToChain && info.syncedToGraph)
      assert.ok(info.blockHeight > 0)
      assert.ok(info.version.length > 0)
    }),
  )

  test(
    'an invoice decodes with bolt11 and light-bolt11-decoder to our key, amount, description, expiry and hash',
    withNode(async ({ node, network, now }) => {
      const { pubkey } = await node.getInfo()
      const before = now()
      const invoice = await node.createInvoice({
        amountMsat: 2_100_000,
        description: 'Margherita pizza',
        expirySeconds: 900,
      })
      const after = now()
      assert.is(invoice.state, 'unpaid')

      const strict = bolt11.decode(invoice.paymentRequest, bolt11Networks[network])
      assert.is(strict.payeeNodeKey, pubkey)
      assert.is(strict.millisatoshis, '2100000')
      assert.is(strict.tagsObject.description, 'Margherita pizza')
      assert.is(strict.tagsObject.expire_time, 900)
      assert.is(strict.tagsObject.payment_hash, invoice.paymentHash)
      assert.is(strict.timestamp! * 1000, invoice.createdAt)
      // Stamped while it was made (an invoice's time is whole seconds), however long the call took on a busy machine.
      assert.ok(invoice.createdAt >= Math.floor(before / 1000) * 1000 && invoice.createdAt <= after, `${before} ≤ ${invoice.createdAt} ≤ ${after}`)
      assert.is(invoice.expiresAt, invoice.createdAt + 900_000)

      const light = lightSections(invoice.paymentRequest)
      assert.is(light.amount, '2100000')
      assert.is(light.description, 'Margherita pizza')
      assert.is(light.expiry, 900)
      assert.is(light.payment_hash, invoice.paymentHash)

      const decoded = await node.decodeInvoice(invoice.paymentRequest)
      assert.is(decoded.payeePubkey, pubkey)
      assert.is(decoded.amountMsat, 2_100_000)
      assert.is(decoded.description, 'Margherita pizza')
      assert.is(decoded.paymentHash, invoice.paymentHash)
      assert.is(decoded.expiresAt, invoice.expiresAt)
    }),
  )

  test(
    'an invoice committing to a description hash carries the hash and no description',
    withNode(async ({ node, network }) => {
      const descriptionHash = sha256Hex(Buffer.from('{"kind":9734}').toString('hex'))
      const invoice = await node.createInvoice({ amountMsat: 21_000, descriptionHash })
      const strict = bolt11.decode(invoice.paymentRequest, bolt11Networks[network])
      assert.is(strict.tagsObject.purpose_commit_hash, descriptionHash)
      assert.is(strict.tagsObject.description, undefined)
      const light = lightSections(invoice.paymentRequest)
      assert.is(light.description_hash, descriptionHash)
      assert.is(light.description, undefined)
      assert.is((await node.decodeInvoice(invoice.paymentRequest)).descriptionHash, descriptionHash)
      assert.is((await node.lookupInvoice(invoice.paymentHash))?.descriptionHash, descriptionHash)
    }),
  )

  inSimulation(
    'paying one of its own invoices settles it once: the stream emits once and a second payment is refused',
    withNode(async ({ node }) => {
      const seen = collect(node)
      const invoice = await node.createInvoice({ amountMsat: 50_000, description: 'self' })
      const paid = await node.pay({ paymentRequest: invoice.paymentRequest, maxFeeMsat: 0, timeoutMs: 5000 })
      assert.is(paid.status, 'succeeded')
      if (paid.status !== 'succeeded') return
      assert.is(paid.feeMsat, 0)
      assert.is(paid.amountMsat, 50_000)
      assert.is(sha256Hex(paid.preimage), invoice.paymentHash)

      await rejectsWith(
        node.pay({ paymentRequest: invoice.paymentRequest, maxFeeMsat: 0, timeoutMs: 5000 }),
        'conflict',
        'invoice is already paid',
      )
      await arrived(seen, 1)
      assert.is(seen.length, 1)
      assert.is(seen[0].paymentHash, invoice.paymentHash)
      assert.is(seen[0].amountMsat, 50_000)

      const stored = await node.lookupInvoice(invoice.paymentHash)
      assert.is(stored?.state, 'paid')
      assert.is(stored?.receivedMsat, 50_000)
      assert.is(stored?.preimage, paid.preimage)
      const tracked = await node.trackPayment(invoice.paymentHash)
      assert.is(tracked?.status, 'succeeded')
      assert.equal(await replayed(node, 0, seen.length), seen)
      assert.equal(await replayed(node, seen[0].settleIndex, 1), [])
    }),
  )

  inSimulation(
    'an open-amount invoice needs an amount from the payer and settles with it',
    withNode(async ({ node, network }) => {
      const invoice = await node.createInvoice({ description: 'tip jar' })
      assert.is(invoice.amountMsat, undefined)
      assert.is(bolt11.decode(invoice.paymentRequest, bolt11Networks[network]).millisatoshis, null)
      await rejectsWith(
        node.pay({ paymentRequest: invoice.paymentRequest, maxFeeMsat: 0, timeoutMs: 5000 }),
        'invalid_input',
        'amount must be specified when paying a zero amount invoice',
      )
      const paymentRequest = invoice.paymentRequest
      const paid = await node.pay({ paymentRequest, amountMsat: 7_000, maxFeeMsat: 0, timeoutMs: 5000 })
      assert.is(paid.status, 'succeeded')
      assert.is((await node.lookupInvoice(invoice.paymentHash))?.receivedMsat, 7_000)
    }),
  )

  test(
    'an expired invoice is refused and reported expired',
    withNode(async ({ node, advance }) => {
      const seen = collect(node)
      const invoice = await node.createInvoice({ amountMsat: 10_000, expirySeconds: 60 })
      await advance(61_000)
      await rejectsWith(
        node.pay({ paymentRequest: invoice.paymentRequest, maxFeeMsat: 0, timeoutMs: 5000 }),
        'invalid_input',
        /expired/,
      )
      assert.is((await node.lookupInvoice(invoice.paymentHash))?.state, 'expired')
      assert.is(seen.length, 0)
    }),
  )

  test(
    "the invoice history pages as LND's reversed listing: the newest window, oldest first within it, then the one before",
    withNode(async ({ node }) => {
      const made = []
      for (const sats of [1, 2, 3]) made.push(await node.createInvoice({ amountMsat: sats * 1000, description: `history ${sats}` }))
      const newest = await node.listInvoices({ indexOffset: 0, max: 2 })
      assert.equal(newest.items.map(i => i.paymentHash), [made[1]!.paymentHash, made[2]!.paymentHash])
      assert.equal(newest.items.map(i => ({ settled: i.settled, at: i.settledAtSeconds, paid: i.paidSats })), [
        { settled: false, at: 0, paid: 0 },
        { settled: false, at: 0, paid: 0 },
      ])
      assert.is(newest.items[1]!.paymentRequest, made[2]!.paymentRequest)
      const before = await node.listInvoices({ indexOffset: newest.firstIndexOffset, max: 1 })
      assert.equal(before.items.map(i => i.paymentHash), [made[0]!.paymentHash])
      assert.ok(before.firstIndexOffset < newest.firstIndexOffset)
      // A node with no payments lists none; the chain lists at most what was asked, newest first.
      const chain = await node.listChainTransactions({ startHeight: (await node.getInfo()).blockHeight, indexOffset: 0, max: 2 })
      assert.ok(chain.transactions.length <= 2)
      assert.is(chain.nextIndexOffset, chain.transactions.length)
    }),
  )

  test(
    'unknown hashes are absent, not errors',
    withNode(async ({ node }) => {
      assert.is(await node.lookupInvoice('00'.repeat(32)), undefined)
      assert.is(await node.trackPayment('00'.repeat(32)), undefined)
    }),
  )

  test(
    'garbage, tampered and other-network invoices are invalid input',
    withNode(async ({ node, network, now }) => {
      await rejectsWith(node.decodeInvoice('not an invoice'), 'invalid_input')
      // What people paste where an invoice belongs is named, not called an invoice of another network.
      const named: [string, RegExp][] = [
        ['', /no invoice was given/],
        ['LNURL1DP68GURN8GHJ7UM9WFMXJCM99E3K7MF0V9CXJ0M385EKVCENXC6R2C35XVUKXEFCV5MKVV34X5EKZD3EV56NYD3HXQURZEPEXEJXXEPNXSCRVWFNV9NXZCN9XQ6XYEFHVGCXXCMYXYMNSERXFQ5FNS', /this is an LNURL, not an invoice/],
        ['satoshi@example.com', /this is a Lightning address, not an invoice/],
        ['lno1pgx9getnwss8vetrw3hhyuckyypwa3eyt44h6txtxquqh7lz5djge4afgfjn7k4rgrkuag0jsd5xvxg', /BOLT12 offer/],
        ['bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080', /this is a bitcoin address, not a Lightning invoice/],
        ['hello', /a Lightning invoice starts with "ln"/],
      ]
      for (const [text, reason] of named) await rejectsWith(node.decodeInvoice(text), 'invalid_input', reason)
      const invoice = await node.createInvoice({ amountMsat: 1000, description: 'x' })
      const i = invoice.paymentRequest.length - 10
      const flipped = invoice.paymentRequest[i] === 'q' ? 'p' : 'q'
      const tampered = invoice.paymentRequest.slice(0, i) + flipped + invoice.paymentRequest.slice(i + 1)
      await rejectsWith(node.decodeInvoice(tampered), 'invalid_input')
      await rejectsWith(node.pay({ paymentRequest: tampered, maxFeeMsat: 0, timeoutMs: 5000 }), 'invalid_input')
      const otherNetwork = network === 'mainnet' ? 'testnet' : 'mainnet'
      const elsewhere = outsideInvoice({ network: otherNetwork, nowMs: now(), amountMsat: 1000 })
      await rejectsWith(node.decodeInvoice(elsewhere.paymentRequest), 'invalid_input', new RegExp(`network '${network}': it is a ${otherNetwork} invoice`))
    }),
  )

  test(
    'an outside invoice decodes to its own payee and never pays as one of ours',
    withNode(async ({ node, network, now }) => {
      const seen = collect(node)
      const outside = outsideInvoice({ network, nowMs: now(), amountMsat: 3000 })
      const decoded = await node.decodeInvoice(outside.paymentRequest)
      assert.is(decoded.payeePubkey, outside.payeePubkey)
      assert.is(decoded.paymentHash, outside.paymentHash)
      assert.is(decoded.amountMsat, 3000)
      const outcome = await node.pay({ paymentRequest: outside.paymentRequest, maxFeeMsat: 0, timeoutMs: 5000 })
      assert.is.not(outcome.status, 'succeeded')
      assert.is(seen.length, 0)
    }),
  )

  for (const [type, kind] of [
    ['WITNESS_PUBKEY_HASH', 'wpkh'],
    ['NESTED_PUBKEY_HASH', 'sh'],
    ['TAPROOT_PUBKEY', 'tr'],
  ] as const) {
    test(
      `${type} addresses are valid ${kind} addresses of the node's network, fresh each time`,
      withNode(async ({ node, network }) => {
        const first = await node.newAddress(type as AddressType)
        const second = await node.newAddress(type as AddressType)
        assert.is.not(first, second)
        for (const address of [first, second]) {
          assert.is(Address(chainNetworks[network]).decode(address).type, kind)
        }
      }),
    )
  }

  inSimulation(
    'sending on chain spends amount plus fee from the wallet; a bad address is invalid input',
    withNode(async ({ node, network }) => {
      const before = await node.getBalances()
      await rejectsWith(node.sendToAddress({ address: 'bc1qnotreally', amountSats: 10_000 }), 'invalid_input')
      const elsewhere = Address(chainNetworks[network]).encode({ type: 'wpkh', hash: new Uint8Array(20).fill(7) })
      const sent = await node.sendToAddress({ address: elsewhere, amountSats: 10_000, satPerVbyte: 3 })
      assert.match(sent.txid, /^[0-9a-f]{64}$/)
      assert.ok(sent.feeSats > 0)
      const after = await node.getBalances()
      assert.is(after.chainBalanceSats, before.chainBalanceSats - 10_000 - sent.feeSats)
      await node.bumpFee({ txid: sent.txid, outputIndex: 0, satPerVbyte: 10 })
      await rejectsWith(node.bumpFee({ txid: sent.txid, outputIndex: 0, satPerVbyte: 0 }), 'invalid_input')
    }),
  )

  inSimulation(
    'a chain fee estimate gives a positive fee and rate for a send; a bad address is invalid input',
    withNode(async ({ node, network }) => {
      const elsewhere = Address(chainNetworks[network]).encode({ type: 'wpkh', hash: new Uint8Array(20).fill(9) })
      const estimate = await node.estimateChainFee({ address: elsewhere, amountSats: 10_000 })
      assert.ok(estimate.feeSats > 0, 'a fee')
      assert.ok(estimate.satPerVbyte > 0, 'a rate')
      await rejectsWith(node.estimateChainFee({ address: 'bc1qnotreally', amountSats: 10_000 }), 'invalid_input')
    }),
  )

  inSimulation(
    'peers, channels and policies change visibly: add, open, update one and all, close',
    withNode(async ({ node }) => {
      const peer = randomNodePubkey()
      await rejectsWith(node.openChannel({ peerPubkey: peer, localFundingSats: 100_000 }), 'invalid_input')
      await node.addPeer({ pubkey: peer, host: '127.0.0.1', port: 9735 })
      assert.equal((await node.listPeers()).map(p => [p.pubkey, p.address]), [[peer, '127.0.0.1:9735']])

      const before = await node.getBalances()
      const opened = await node.openChannel({ peerPubkey: peer, localFundingSats: 200_000, pushSats: 1_000 })
      assert.match(opened.fundingTxid, /^[0-9a-f]{64}$/)
      assert.match(opened.pendingChannelId, /^[0-9a-f]{64}$/)
      const channelPoint = `${opened.fundingTxid}:${opened.outputIndex}`
      const [channel] = await node.listChannels()
      assert.is(channel.channelPoint, channelPoint)
      assert.is(channel.peerPubkey, peer)
      assert.is(channel.capacitySats, 200_000)
      assert.is(channel.localBalanceMsat, 199_000_000)
      assert.is(channel.remoteBalanceMsat, 1_000_000)
      assert.ok(channel.active)
      assert.is((await node.getInfo()).activeChannelsCount, 1)
      const funded = await node.getBalances()
      assert.ok(funded.chainBalanceSats <= before.chainBalanceSats - 200_000)
      assert.is(funded.channelsLocalMsat, before.channelsLocalMsat + 199_000_000)

      const policy = {
        baseFeeMsat: 2000,
        feeRatePpm: 150,
        minHtlcMsat: 1000,
        maxHtlcMsat: 100_000_000,
        timeLockDelta: 40,
      }
      await node.updateChannelPolicy({ scope: { kind: 'channel', channelPoint }, policy })
      assert.equal((await node.listChannels())[0].policy, policy)
      const everywhere = { ...policy, feeRatePpm: 500 }
      await node.updateChannelPolicy({ scope: { kind: 'all' }, policy: everywhere })
      assert.equal((await node.listChannels())[0].policy, everywhere)
      await rejectsWith(
        node.updateChannelPolicy({ scope: { kind: 'channel', channelPoint: `${'ab'.repeat(32)}:0` }, policy }),
        'not_found',
      )

      const { outputIndex } = opened
      const { closingTxid } = await node.closeChannel({ fundingTxid: opened.fundingTxid, outputIndex, force: false })
      assert.match(closingTxid, /^[0-9a-f]{64}$/)
      assert.equal(await node.listChannels(), [])
      const closed = await node.listClosedChannels()
      assert.equal(closed.map(c => [c.channelPoint, c.closingTxid]), [[channelPoint, closingTxid]])
      const again = node.closeChannel({ fundingTxid: opened.fundingTxid, outputIndex, force: false })
      await rejectsWith(again, 'not_found')
    }),
  )

  if (revealsSeed) {
    test(
      'the seed is 24 words',
      withNode(async ({ node }) => {
        const seed = await node.getSeed()
        assert.is(seed.length, 24)
        assert.ok(seed.every(word => /^[a-z]+$/.test(word)))
      }),
    )
  } else {
    test(
      'a node that keeps its own seed refuses to show it, saying why',
      withNode(async ({ node }) => {
        await rejectsWith(node.getSeed(), 'not_found', /seed/)
      }),
    )
  }

  test(
    'forwarding history of a quiet node is empty',
    withNode(async ({ node, now }) => {
      assert.equal(await node.forwardingHistory({ fromMs: 0, toMs: now() + 1 }), [])
    }),
  )

  test(
    'close completes every settlement stream',
    async () => {
      const harness = await makeNode()
      let completed = 0
      harness.node.settlementsAfter(0).subscribe({ complete: () => completed++ })
      harness.node.settlementsAfter('now').subscribe({ complete: () => completed++ })
      await harness.close()
      assert.is(completed, 2)
    },
  )

  test.run()
}
