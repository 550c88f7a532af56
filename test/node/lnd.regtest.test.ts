// The LND backend against a real LND: node A of a regtest network (test/support/regtest/), with R routing to B, the
// outside world. First the LightningNode contract every backend keeps (the cases that need a simulated world are
// skipped there), then what only a real network shows: B paying A's invoices, A paying B through R with the fee R
// charges, LND's own refusals and words, keysend and AMP beside ordinary invoices, hold invoices, channels, peers,
// balances and the chain. The test runner runs this file once for each LND version under test.
import { createHash, randomBytes } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import type { LightningNode } from '../../src/node/index.js'
import { nodeContract, type NodeHarness } from './contract.js'
import { rejectsWith } from './operation-error.js'
import { arrived, collect, replayed } from './settlements-seen.js'
import { channelSats, onRegtestNetworks, openNodeOnA, pushSats, type Regtest } from '../support/regtest/index.js'

const sha256 = (hex: string) => createHash('sha256').update(Buffer.from(hex, 'hex')).digest('hex')
/** What R charges to forward `amountMsat` with LND's default policy: 1000 msat base and 1 ppm. */
const routingFeeMsat = (amountMsat: number) => 1000 + Math.floor(amountMsat / 1_000_000)

function realWorld(net: Regtest): void {
  const test = suite(`lnd backend on a real LND ${net.lndVersion}: the network around A`)
  let h: NodeHarness
  let node: LightningNode
  test.before(async () => {
    h = await openNodeOnA(net)
    node = h.node
  })
  test.after(async () => {
    await h.close()
  })

  test('B pays an invoice of A: the stream emits it once with what was paid; lookup and a replay agree', async () => {
    const seen = collect(node, 'now')
    const invoice = await node.createInvoice({ amountMsat: 21_000_000, description: 'paid by B' })
    const paid = await net.pay('B', invoice.paymentRequest)
    assert.is(paid.status, 'SUCCEEDED')
    assert.is(sha256(paid.payment_preimage), invoice.paymentHash)
    await arrived(seen, 1)
    await net.waitFor('the settlement', async () => (seen.length >= 1 ? true : undefined))
    assert.is(seen.length, 1)
    assert.is(seen[0].paymentHash, invoice.paymentHash)
    assert.is(seen[0].amountMsat, 21_000_000)
    assert.is(seen[0].paymentRequest, invoice.paymentRequest)
    const stored = await node.lookupInvoice(invoice.paymentHash)
    assert.is(stored?.state, 'paid')
    assert.is(stored?.receivedMsat, 21_000_000)
    assert.is(stored?.preimage, paid.payment_preimage)
    // A subscriber from the index before it is given it again, and one from its index nothing.
    const again = await replayed(node, seen[0].settleIndex - 1, 1)
    assert.equal(again.map(s => s.paymentHash), [invoice.paymentHash])
    assert.equal(await replayed(node, seen[0].settleIndex, 1), [])
  })

  test('an open-amount invoice of A settles with the amount B chose', async () => {
    const seen = collect(node, 'now')
    const invoice = await node.createInvoice({ description: 'tip jar' })
    assert.is((await net.pay('B', invoice.paymentRequest, { amountSats: 7 })).status, 'SUCCEEDED')
    await net.waitFor('the settlement', async () => (seen.length >= 1 ? true : undefined))
    assert.is(seen[0].amountMsat, 7000)
    assert.is((await node.lookupInvoice(invoice.paymentHash))?.receivedMsat, 7000)
  })

  test('A pays B through R: succeeded with the fee LND reports, which is what R charges; a second payment is refused', async () => {
    const { paymentRequest, paymentHash } = await net.addInvoice('B', 30_000)
    const paid = await node.pay({ paymentRequest, maxFeeMsat: 10_000, timeoutMs: 60_000 })
    assert.is(paid.status, 'succeeded')
    if (paid.status !== 'succeeded') return
    assert.is(paid.amountMsat, 30_000_000)
    assert.is(paid.feeMsat, routingFeeMsat(30_000_000))
    assert.is(sha256(paid.preimage), paymentHash)
    const { payments } = await net.lncli<{ payments: { payment_hash: string; fee_msat: string; status: string }[] }>('A', ['listpayments'])
    const own = payments.find(p => p.payment_hash === paymentHash)
    assert.is(own?.status, 'SUCCEEDED')
    assert.is(Number(own?.fee_msat), paid.feeMsat, "the fee is LND's own record")
    const tracked = await node.trackPayment(paymentHash)
    assert.is(tracked?.status, 'succeeded')
    if (tracked?.status === 'succeeded') assert.is(tracked.feeMsat, paid.feeMsat)
    await rejectsWith(node.pay({ paymentRequest, maxFeeMsat: 10_000, timeoutMs: 60_000 }), 'conflict', 'invoice is already paid')
  })

  test('a fee limit of zero on a route where R charges fails as no route; a retry with room for the fee succeeds', async () => {
    const { paymentRequest, paymentHash } = await net.addInvoice('B', 5_000)
    const first = await node.pay({ paymentRequest, maxFeeMsat: 0, timeoutMs: 60_000 })
    assert.is(first.status, 'failed')
    if (first.status === 'failed') assert.match(first.failureReason, /route/i)
    const failed = await node.trackPayment(paymentHash)
    assert.is(failed?.status, 'failed')
    const retry = await node.pay({ paymentRequest, maxFeeMsat: 2_000, timeoutMs: 60_000 })
    // A failure says LND's reason: once on a busy machine the retry failed and the reason was not kept.
    assert.is(retry.status, 'succeeded', retry.status === 'failed' ? `the retry failed: ${retry.failureReason}` : undefined)
    if (retry.status === 'succeeded') assert.is(retry.feeMsat, routingFeeMsat(5_000_000))
    assert.is((await node.trackPayment(paymentHash))?.status, 'succeeded')
  })

  test("an invoice A made for someone else (lncli addinvoice on A) cannot be paid by A: no route back to itself, nothing settles", async () => {
    const seen = collect(node, 'now')
    const { paymentRequest, paymentHash } = await net.addInvoice('A', 1_000)
    let outcome: Awaited<ReturnType<LightningNode['pay']>> | undefined
    try {
      outcome = await node.pay({ paymentRequest, maxFeeMsat: 10_000, timeoutMs: 60_000 })
    } catch (err) {
      // Whatever LND says, it is a refusal a caller can read, not an unknown outcome.
      assert.match((err as Error).message, /self|route|own/i)
    }
    if (outcome) assert.is(outcome.status, 'failed')
    assert.is((await node.lookupInvoice(paymentHash))?.state, 'unpaid')
    assert.is(seen.length, 0)
  })

  test("a hash LND never paid is absent: LND's \"payment isn't initiated\" is read as not found", async () => {
    assert.is(await node.trackPayment(randomBytes(32).toString('hex')), undefined)
  })

  test('keysend and AMP payments to A beside ordinary invoices: the stream goes on and reports every ordinary one', async () => {
    const seen = collect(node, 'now')
    const before = await node.createInvoice({ amountMsat: 3_000_000, description: 'before' })
    assert.is((await net.pay('B', before.paymentRequest)).status, 'SUCCEEDED')
    assert.is((await net.keysend('B', net.node('A').pubkey, 4)).status, 'SUCCEEDED')
    const amp = await net.lncli<{ payment_request: string }>('A', ['addinvoice', '--amp', '--amt=5'])
    assert.is((await net.lncli<{ status: string }>('B', ['payinvoice', '--force', '--json', '--amp', amp.payment_request])).status, 'SUCCEEDED')
    const after = await node.createInvoice({ amountMsat: 6_000_000, description: 'after' })
    assert.is((await net.pay('B', after.paymentRequest)).status, 'SUCCEEDED')
    await net.waitFor('the invoice after the keysend and AMP payments', async () =>
      seen.some(s => s.paymentHash === after.paymentHash) ? true : undefined,
    )
    const ours = seen.filter(s => s.paymentHash === before.paymentHash || s.paymentHash === after.paymentHash)
    assert.equal(ours.map(s => s.amountMsat), [3_000_000, 6_000_000])
    // Each settlement once, in settle-index order.
    const indexes = seen.map(s => s.settleIndex)
    assert.equal(indexes, [...new Set(indexes)].sort((a, b) => a - b))
    // The keysend's invoice has no request to match anybody's: reported without one, if at all.
    for (const other of seen.filter(s => !ours.includes(s))) assert.is(other.paymentRequest ?? '', '')
  })

  test('paying an AMP invoice of B is refused cleanly, nothing in flight', async () => {
    const amp = await net.lncli<{ payment_request: string; r_hash: string }>('B', ['addinvoice', '--amp', '--amt=5'])
    let outcome: Awaited<ReturnType<LightningNode['pay']>> | undefined
    try {
      outcome = await node.pay({ paymentRequest: amp.payment_request, maxFeeMsat: 10_000, timeoutMs: 60_000 })
    } catch (err) {
      assert.ok((err as { code?: string }).code !== undefined, `an OperationError, not ${String(err)}`)
      return
    }
    assert.is(outcome.status, 'failed', `an AMP invoice paid without the AMP flag: ${JSON.stringify(outcome)}`)
  })

  test('a hold invoice of B stays in flight until B settles it, the balances LND\'s to the msat meanwhile; another ends failed when B cancels it', async () => {
    for (const end of ['settle', 'cancel'] as const) {
      const preimage = randomBytes(32).toString('hex')
      const hash = sha256(preimage)
      const hold = await net.lncli<{ payment_request: string }>('B', ['addholdinvoice', hash, '--amt=2000'])
      const paying = await node.pay({ paymentRequest: hold.payment_request, maxFeeMsat: 10_000, timeoutMs: 3_000 })
      assert.is(paying.status, 'in_flight')
      await net.waitFor('B to hold the HTLC', async () => {
        const invoice = await net.lncli<{ state: string }>('B', ['lookupinvoice', hash])
        return invoice.state === 'ACCEPTED' ? true : undefined
      })
      assert.is((await node.trackPayment(hash))?.status, 'in_flight')
      // With the HTLC pending, the balances are LND's to the msat: the HTLC counts as neither side's yet, so it is
      // not spendable again and not counted twice.
      const balances = await node.getBalances()
      // (LND files an outgoing HTLC under unsettled_remote_balance: amount and R's fee.)
      const atLnd = await net.lncli<{ local_balance: { msat: string }; remote_balance: { msat: string }; unsettled_remote_balance: { msat: string } }>('A', ['channelbalance'])
      assert.is(balances.channelsLocalMsat, Number(atLnd.local_balance.msat))
      assert.is(balances.channelsRemoteMsat, Number(atLnd.remote_balance.msat))
      assert.is(Number(atLnd.unsettled_remote_balance.msat), 2_000_000 + routingFeeMsat(2_000_000), `the HTLC is unsettled at LND: ${JSON.stringify(atLnd)}`)
      if (end === 'settle') await net.lncli('B', ['settleinvoice', preimage])
      else await net.lncli('B', ['cancelinvoice', hash])
      const final = await net.waitFor('the payment to end', async () => {
        const tracked = await node.trackPayment(hash)
        return tracked?.status === 'in_flight' ? undefined : tracked
      })
      assert.is(final?.status, end === 'settle' ? 'succeeded' : 'failed')
      if (final?.status === 'succeeded') assert.is(final.preimage, preimage)
    }
  })

  test('channels, peers and balances: A→R as opened, R a peer, the wallet funded', async () => {
    const [channel, ...others] = await node.listChannels()
    assert.is(others.length, 0)
    assert.is(channel.peerPubkey, net.node('R').pubkey)
    assert.is(channel.capacitySats, channelSats)
    assert.ok(channel.active)
    assert.ok(channel.remoteBalanceMsat >= 1000 * pushSats - 100_000_000, 'R holds what A pushed, give or take the payments above')
    assert.ok(channel.localBalanceMsat < 1000 * (channelSats - pushSats), 'the commitment fee is not ours to spend')
    const peers = await node.listPeers()
    assert.ok(peers.some(p => p.pubkey === net.node('R').pubkey))
    const balances = await node.getBalances()
    // LND lists a channel's balances in whole sats; ChannelBalance gives the msat (a routed fee leaves a part).
    assert.is(Math.floor(balances.channelsLocalMsat / 1000) * 1000, channel.localBalanceMsat)
    assert.is(Math.floor(balances.channelsRemoteMsat / 1000) * 1000, channel.remoteBalanceMsat)
    const wallet = await net.lncli<{ confirmed_balance: string }>('A', ['walletbalance'])
    assert.is(balances.chainBalanceSats, Number(wallet.confirmed_balance))
    const info = await node.getInfo()
    assert.is(info.activeChannelsCount, 1)
    assert.is(info.blockHeight, await net.height())
  })

  test('on chain: an estimate, a send to B that B receives, the fee LND records, a fee bump while unconfirmed', async () => {
    const { address } = await net.lncli<{ address: string }>('B', ['newaddress', 'p2wkh'])
    const estimate = await node.estimateChainFee({ address, amountSats: 50_000 })
    assert.ok(estimate.feeSats > 0 && estimate.satPerVbyte > 0)
    await rejectsWith(node.estimateChainFee({ address: 'bcrt1qnotreally', amountSats: 10_000 }), 'invalid_input')
    const received = async () => Number((await net.lncli<{ confirmed_balance: string }>('B', ['walletbalance'])).confirmed_balance)
    const before = await received()
    const sent = await node.sendToAddress({ address, amountSats: 50_000, satPerVbyte: 3 })
    assert.match(sent.txid, /^[0-9a-f]{64}$/)
    assert.ok(sent.feeSats > 0)
    await rejectsWith(node.sendToAddress({ address: 'bcrt1qnotreally', amountSats: 10_000 }), 'invalid_input')
    type ChainTx = { tx_hash: string; total_fees: string; num_confirmations: number; output_details: { output_index: string; is_our_address: boolean }[] }
    const ownTx = async () => (await net.lncli<{ transactions: ChainTx[] }>('A', ['listchaintxns'])).transactions.find(t => t.tx_hash === sent.txid)
    const unconfirmed = await net.waitFor('A to list its send', ownTx)
    assert.is(Number(unconfirmed.total_fees), sent.feeSats, "the fee is LND's own record")
    const change = unconfirmed.output_details.find(o => o.is_our_address)
    if (change) await node.bumpFee({ txid: sent.txid, outputIndex: Number(change.output_index), satPerVbyte: 10 })
    await net.mine(1)
    await net.waitFor('B to see the send confirmed', async () => ((await received()) === before + 50_000 ? true : undefined))
    await net.waitFor('A to see its send confirmed', async () => ((await ownTx())?.num_confirmations ?? 0) >= 1 || undefined)
  })

  test('a channel to B: add the peer, open, mine, active in the list, close, listed as closed', async () => {
    const b = net.node('B')
    const [host, port] = b.p2p.split(':')
    await node.addPeer({ pubkey: b.pubkey, host, port: Number(port) })
    assert.ok((await node.listPeers()).some(p => p.pubkey === b.pubkey))
    const opened = await node.openChannel({ peerPubkey: b.pubkey, localFundingSats: 200_000, pushSats: 1_000, satPerVbyte: 2 })
    const channelPoint = `${opened.fundingTxid}:${opened.outputIndex}`
    await net.mine(3)
    const channel = await net.waitFor('the channel to B to be active', async () =>
      (await node.listChannels()).find(c => c.channelPoint === channelPoint && c.active),
    )
    assert.is(channel.capacitySats, 200_000)
    assert.is(channel.remoteBalanceMsat, 1_000_000)
    // A policy is set on A's side of the channel's edge in A's graph, which LND writes a moment after the channel
    // turns active (until then LND answers the update "not found").
    await net.waitFor("A's side of the channel's edge in A's graph", async () => {
      const edge = await net.lncli<{ node1_pub: string; node1_policy: unknown; node2_policy: unknown }>('A', ['getchaninfo', channel.channelId])
      return (edge.node1_pub === net.node('A').pubkey ? edge.node1_policy : edge.node2_policy) ? true : undefined
    })
    const policy = { baseFeeMsat: 2000, feeRatePpm: 150, minHtlcMsat: 1000, maxHtlcMsat: 100_000_000, timeLockDelta: 40 }
    await node.updateChannelPolicy({ scope: { kind: 'channel', channelPoint }, policy })
    assert.equal((await node.listChannels()).find(c => c.channelPoint === channelPoint)?.policy, policy)
    const { closingTxid } = await node.closeChannel({ fundingTxid: opened.fundingTxid, outputIndex: opened.outputIndex, force: false, satPerVbyte: 2 })
    assert.match(closingTxid, /^[0-9a-f]{64}$/)
    // LND counts a cooperative close done after confirmations that grow with the channel's size (more than one
    // since 0.20); six cover a channel this small.
    await net.mine(6)
    const closed = await net.waitFor('the channel to be listed closed', async () =>
      (await node.listClosedChannels()).find(c => c.channelPoint === channelPoint),
    )
    assert.is(closed.closingTxid, closingTxid)
  })

  test('none of the calls LND 0.21 removed (SendPaymentSync, Router.TrackPayment) is made: A logs every call it served', async () => {
    const log = fs.readFileSync(path.join(net.node('A').dir, 'lnd.out'), 'utf8')
    const served = new Set([...log.matchAll(/\[(\/\w+\.\w+\/\w+)\] requested/g)].map(match => match[1]))
    for (const used of ['/routerrpc.Router/SendPaymentV2', '/routerrpc.Router/TrackPaymentV2', '/lnrpc.Lightning/SubscribeInvoices']) {
      assert.ok(served.has(used), `A's log names the calls it served (${used}): ${[...served].join(' ')}`)
    }
    for (const removed of ['/lnrpc.Lightning/SendPaymentSync', '/routerrpc.Router/TrackPayment']) assert.not.ok(served.has(removed), removed)
  })

  test.run()
}

await onRegtestNetworks('node/lnd.regtest', net => {
  nodeContract(`lnd backend on a real LND ${net.lndVersion}`, () => openNodeOnA(net), { revealsSeed: false, simulated: false })
  realWorld(net)
})
