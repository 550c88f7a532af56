// What relaypay may do on a real LND is what its macaroon allows. The macaroon docs/lnd.md tells operators to bake
// (taken from the doc as written) must carry every call relaypay makes; LND's own narrower macaroons must fail in
// words an operator can act on, and a payment refused for want of a permission sends nothing.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { rejectsWith } from './operation-error.js'
import { collect } from './settlements-seen.js'
import { repoRoot } from '../support/paths.js'
import { onRegtestNetworks, openNodeOnA, type Regtest } from '../support/regtest/index.js'

/** The bakemacaroon line of docs/lnd.md, as an operator would copy it. */
function documentedBake(): string[] {
  const doc = fs.readFileSync(path.join(repoRoot, 'docs/lnd.md'), 'utf8')
  const line = doc.split('\n').find(l => l.startsWith('lncli bakemacaroon '))
  if (!line) throw new Error('docs/lnd.md names no lncli bakemacaroon line')
  return line.replace(/^lncli /, '').split(/\s+/)
}

const nodeWith = (net: Regtest, macaroonPath: string) => openNodeOnA(net, { macaroonPath })

function access(net: Regtest): void {
  const test = suite(`macaroons on a real LND ${net.lndVersion}`)
  const macaroons = path.join(path.dirname(net.connection.macaroonPath))

  test("the documented macaroon carries every call relaypay makes", async () => {
    const saved = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'relaypay-macaroon-')), 'relaypay.macaroon')
    const bake = documentedBake().map(arg => (arg === 'relaypay.macaroon' ? saved : arg))
    await net.lncli('A', bake, { raw: true })
    assert.ok(fs.existsSync(saved), 'baked')
    const { node, close } = await nodeWith(net, saved)
    try {
      const seen = collect(node, 'now')
      assert.is((await node.getInfo()).pubkey, net.node('A').pubkey)
      const invoice = await node.createInvoice({ amountMsat: 4_000_000, description: 'baked' })
      assert.is((await node.decodeInvoice(invoice.paymentRequest)).paymentHash, invoice.paymentHash)
      assert.is((await net.pay('B', invoice.paymentRequest)).status, 'SUCCEEDED')
      await net.waitFor('the settlement', async () => (seen.length === 1 ? true : undefined))
      assert.is((await node.lookupInvoice(invoice.paymentHash))?.state, 'paid')
      const outside = await net.addInvoice('B', 1_000)
      assert.is((await node.pay({ paymentRequest: outside.paymentRequest, maxFeeMsat: 5_000, timeoutMs: 60_000 })).status, 'succeeded')
      assert.is((await node.trackPayment(outside.paymentHash))?.status, 'succeeded')
      const address = await node.newAddress('TAPROOT_PUBKEY')
      assert.ok((await node.estimateChainFee({ address, amountSats: 20_000 })).feeSats > 0)
      const sent = await node.sendToAddress({ address, amountSats: 20_000, satPerVbyte: 2 })
      assert.match(sent.txid, /^[0-9a-f]{64}$/)
      const balances = await node.getBalances()
      assert.ok(balances.channelsLocalMsat > 0)
      const [channel] = await node.listChannels()
      assert.is(channel.peerPubkey, net.node('R').pubkey)
      assert.equal(await node.listClosedChannels(), [])
      assert.ok((await node.listPeers()).some(p => p.pubkey === net.node('R').pubkey))
      const [host, port] = net.node('B').p2p.split(':')
      await node.addPeer({ pubkey: net.node('B').pubkey, host, port: Number(port) }).catch(async (err: Error) => {
        // The call was allowed: a macaroon without the permission is refused at once, not after the connect
        // timeout. On a host whose cores are taken, a niced LND's handshake and peer start can outlast the operator
        // call's 30 s; the connection then still comes up, and that is what is waited for.
        if (!/could not connect to the peer within/.test(err.message)) throw err
        await net.waitFor("B among A's peers", async () => ((await node.listPeers()).some(p => p.pubkey === net.node('B').pubkey) ? true : undefined))
      })
      await node.updateChannelPolicy({ scope: { kind: 'all' }, policy: { ...channel.policy, baseFeeMsat: channel.policy.baseFeeMsat } })
      assert.equal(await node.forwardingHistory({ fromMs: 0, toMs: Date.now() + 1 }), [])
      await net.mine(1)
    } finally {
      await close()
    }
  })

  test("invoice.macaroon cannot read the node's info: relaypay does not start on it, and says why", async () => {
    let error: Error | undefined
    try {
      const opened = await nodeWith(net, path.join(macaroons, 'invoice.macaroon'))
      await opened.close()
    } catch (err) {
      error = err as Error
    }
    assert.ok(error, 'refused')
    assert.match(error!.message, /refused the macaroon/)
    assert.match(error!.message, /invoice\.macaroon/)
  })

  test('readonly.macaroon: relaypay starts and reads; a payment is refused naming the macaroon, and nothing is sent', async () => {
    const { node, close } = await nodeWith(net, path.join(macaroons, 'readonly.macaroon'))
    try {
      assert.is((await node.getInfo()).pubkey, net.node('A').pubkey)
      const outside = await net.addInvoice('B', 1_000)
      await rejectsWith(node.pay({ paymentRequest: outside.paymentRequest, maxFeeMsat: 5_000, timeoutMs: 60_000 }), 'node_unavailable', /macaroon/)
      assert.is(await node.trackPayment(outside.paymentHash), undefined)
      await rejectsWith(node.createInvoice({ amountMsat: 1000 }), 'node_unavailable', /macaroon/)
    } finally {
      await close()
    }
  })

  test.run()
}

await onRegtestNetworks('node/lnd-access.regtest', access)
