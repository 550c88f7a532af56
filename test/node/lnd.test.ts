// The LND backend, verified against LND's 0.20 gRPC surface through a fake LND (test/support/fake-lnd) and the
// unmodified `lightning` client, not against a running lnd (lnd.regtest.test.ts runs it on a real LND of a regtest network).
// First the shared LightningNode contract, then what only a remote node needs: payments whose outcome is not
// known yet, and a start that refuses clearly or waits for LND (the settlement streams: lnd-settlements.test.ts).
import { createHash, randomBytes } from 'node:crypto'
import fs from 'node:fs'
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { createNode, resolveLndConnection, type LightningNode } from '../../src/node/index.js'
import { nodeContract } from './contract.js'
import { ManualTime } from '../support/manual-time.js'
import { rejectsWith } from './operation-error.js'
import { outsideInvoice, randomNodePubkey } from '../support/outside-invoice.js'
import { startFakeLnd } from '../support/fake-lnd/fake-lnd.js'
import { createLndBackend, openLnd, temporaryStore, withLnd } from '../support/fake-lnd/lnd-harness.js'

nodeContract('lnd backend (fake LND)', () => openLnd(), { revealsSeed: false })

/** Waits for something the backend does on its own in reaction to network I/O (not a timer: time is manual). */
async function until(condition: () => boolean, what: string): Promise<void> {
  for (let tries = 0; tries < 300; tries++) {
    if (condition()) return
    await new Promise(resolve => setTimeout(resolve, 10))
  }
  assert.unreachable(`gave up waiting until ${what}`)
}

const payments = suite('lnd backend: payments whose outcome is not known yet')

const knownPreimage = () => {
  const preimage = randomBytes(32).toString('hex')
  return { preimage, paymentHash: createHash('sha256').update(Buffer.from(preimage, 'hex')).digest('hex') }
}

payments(
  'an invoice decoded and then paid is read by LND once; a failed reading is not kept',
  withLnd(async ({ node, fake, now }) => {
    const paid = knownPreimage()
    const outside = outsideInvoice({ network: 'regtest', nowMs: now(), amountMsat: 5_000, paymentHash: paid.paymentHash })
    fake.node.remoteNodes.set(outside.payeePubkey, payment => fake.node.payments.succeed(payment.paymentHash, paid.preimage))
    const asked = () => fake.node.traffic.calls.get('DecodePayReq') ?? 0
    const before = asked()
    assert.is((await node.decodeInvoice(outside.paymentRequest)).paymentHash, paid.paymentHash)
    assert.is((await node.pay({ paymentRequest: outside.paymentRequest, maxFeeMsat: 100, timeoutMs: 5000 })).status, 'succeeded')
    assert.is(asked() - before, 1)

    const other = outsideInvoice({ network: 'regtest', nowMs: now(), amountMsat: 6_000 })
    fake.faults.unavailable = true
    await rejectsWith(node.decodeInvoice(other.paymentRequest), 'node_unavailable')
    fake.faults.unavailable = false
    assert.is((await node.decodeInvoice(other.paymentRequest)).amountMsat, 6_000)
  }),
)

payments(
  'a payment stuck in flight is in_flight, then succeeded once LND says so; another resolves failed',
  withLnd(async ({ node, fake, time, now }) => {
    fake.faults.holdPayments = true
    const win = knownPreimage()
    const winning = outsideInvoice({ network: 'regtest', nowMs: now(), amountMsat: 21_000, paymentHash: win.paymentHash })
    const losing = outsideInvoice({ network: 'regtest', nowMs: now(), amountMsat: 9_000 })

    const first = node.pay({ paymentRequest: winning.paymentRequest, maxFeeMsat: 100, timeoutMs: 5000 })
    await until(() => fake.node.payments.inFlight().length === 1 && time.pendingCount === 1, 'the payment is in flight')
    await time.advance(5000)
    assert.equal(await first, { status: 'in_flight', paymentHash: win.paymentHash })
    assert.equal(await node.trackPayment(win.paymentHash), { status: 'in_flight', paymentHash: win.paymentHash })

    fake.resolvePayment(win.paymentHash, { preimage: win.preimage })
    const settled = await node.trackPayment(win.paymentHash)
    assert.is(settled?.status, 'succeeded')
    if (settled?.status !== 'succeeded') return
    assert.is(settled.preimage, win.preimage)
    assert.is(settled.amountMsat, 21_000)
    assert.is(settled.feeMsat, 0)

    const second = node.pay({ paymentRequest: losing.paymentRequest, maxFeeMsat: 100, timeoutMs: 5000 })
    await until(() => fake.node.payments.inFlight().length === 1 && time.pendingCount === 1, 'the payment is in flight')
    await time.advance(5000)
    assert.is((await second).status, 'in_flight')
    fake.resolvePayment(losing.paymentHash, { failed: 'FAILURE_REASON_NO_ROUTE' })
    assert.equal(await node.trackPayment(losing.paymentHash), {
      status: 'failed',
      paymentHash: losing.paymentHash,
      failureReason: 'no route found',
    })
  }),
)

payments(
  'a payment stream that drops mid-way answers in_flight at once, never failed',
  withLnd(async ({ node, fake }) => {
    fake.faults.holdPayments = true
    const { preimage, paymentHash } = knownPreimage()
    const invoice = outsideInvoice({ network: 'regtest', nowMs: Date.now(), amountMsat: 4_000, paymentHash })
    const paying = node.pay({ paymentRequest: invoice.paymentRequest, maxFeeMsat: 100, timeoutMs: 60_000 })
    await until(() => fake.node.payments.inFlight().length === 1, 'the payment is in flight')
    fake.dropPaymentStreams()
    assert.equal(await paying, { status: 'in_flight', paymentHash })
    fake.resolvePayment(paymentHash, { preimage })
    assert.is((await node.trackPayment(paymentHash))?.status, 'succeeded')
  }),
)

payments(
  'while the first attempt is in flight, paying the same invoice again is refused',
  withLnd(async ({ node, fake, time, now }) => {
    fake.faults.holdPayments = true
    const invoice = outsideInvoice({ network: 'regtest', nowMs: now(), amountMsat: 1_000 })
    const first = node.pay({ paymentRequest: invoice.paymentRequest, maxFeeMsat: 10, timeoutMs: 5000 })
    await until(() => time.pendingCount === 1, 'the first payment waits')
    await rejectsWith(
      node.pay({ paymentRequest: invoice.paymentRequest, maxFeeMsat: 10, timeoutMs: 5000 }),
      'conflict',
      'payment is in transition',
    )
    await time.advance(5000)
    assert.is((await first).status, 'in_flight')
  }),
)

payments.run()

const faults = suite('lnd backend: LND failing under a running daemon')

faults(
  'an unreachable or locked LND answers node_unavailable; an LND without walletrpc cannot bump fees',
  withLnd(async ({ node, fake }) => {
    fake.faults.unavailable = true
    await rejectsWith(node.getInfo(), 'node_unavailable', /unreachable/)
    await rejectsWith(node.createInvoice({ amountMsat: 1000 }), 'node_unavailable')
    fake.faults.unavailable = false
    fake.faults.locked = true
    await rejectsWith(node.getBalances(), 'node_unavailable', /locked/)
    fake.faults.locked = false

    const sent = await node.sendToAddress({ address: await node.newAddress('WITNESS_PUBKEY_HASH'), amountSats: 5000 })
    fake.faults.unimplemented.add('BumpFee')
    await rejectsWith(node.bumpFee({ txid: sent.txid, outputIndex: 0, satPerVbyte: 5 }), 'not_implemented', /walletrpc/)
    fake.faults.unimplemented.clear()
    await rejectsWith(node.bumpFee({ txid: sent.txid, outputIndex: 1, satPerVbyte: 5 }), 'not_found')
    await node.bumpFee({ txid: sent.txid, outputIndex: 0, satPerVbyte: 5 })
  }),
)

faults(
  'an LND still starting up: decodes and invoices answer node_unavailable in its words, and a payment it refused is refused at once',
  withLnd(async ({ node, fake, now }) => {
    const outside = outsideInvoice({ network: 'regtest', nowMs: now(), amountMsat: 7_000 })
    // Read before LND restarts, so that its payment goes straight to SendPaymentV2.
    await node.decodeInvoice(outside.paymentRequest)
    const other = outsideInvoice({ network: 'regtest', nowMs: now(), amountMsat: 8_000 })
    fake.faults.starting = true
    await rejectsWith(node.decodeInvoice(other.paymentRequest), 'node_unavailable', /^LND is starting up: the RPC server is in the process/)
    await rejectsWith(node.createInvoice({ amountMsat: 1000 }), 'node_unavailable', /starting up/)
    // Refused before it ran, so nothing was sent: not an outcome to wait for.
    await rejectsWith(node.pay({ paymentRequest: outside.paymentRequest, maxFeeMsat: 100, timeoutMs: 5000 }), 'node_unavailable', /starting up/)
    fake.faults.starting = false
    assert.is((await node.decodeInvoice(other.paymentRequest)).amountMsat, 8_000)
  }),
)

faults(
  'LND stopped under the payment path: invoices and decodes answer node_unavailable, and work again once it is back',
  withLnd(async ({ node, fake }) => {
    // The payment path's own connection (grpc-channel.ts) is open before LND goes away.
    const before = await node.createInvoice({ amountMsat: 1000 })
    await fake.stop()
    await rejectsWith(node.createInvoice({ amountMsat: 1000 }), 'node_unavailable')
    await rejectsWith(node.decodeInvoice(before.paymentRequest), 'node_unavailable')
    await fake.start()
    const after = await node.createInvoice({ amountMsat: 2000 })
    assert.is((await node.decodeInvoice(after.paymentRequest)).amountMsat, 2000)
  }),
)

faults(
  'LND\'s certificate and macaroon are read again: wrong files are refused in words, the right ones serve without a restart',
  withLnd(async ({ node, fake }) => {
    const { certPath = '', macaroonPath } = fake.connection
    const cert = fs.readFileSync(certPath)
    const other = await startFakeLnd({ now: () => Date.now() })
    try {
      // LND restarted with a certificate that is not the one in the file: the caller is told so, and the right file
      // serves at the next call. (The call while LND is down lets go of the old connection.)
      await fake.stop()
      await rejectsWith(node.createInvoice({ amountMsat: 1000 }), 'node_unavailable', /unreachable/)
      fs.copyFileSync(other.connection.certPath ?? '', certPath)
      await fake.start()
      await rejectsWith(node.createInvoice({ amountMsat: 1000 }), 'node_unavailable', /TLS certificate is not the one at lnd_cert_path/)
      fs.writeFileSync(certPath, cert)
      assert.is((await node.createInvoice({ amountMsat: 1000 })).amountMsat, 1000)

      // Macaroons rotated while LND runs: the refused call is made again with the new file, so nobody sees it.
      fake.rotateMacaroon()
      assert.is((await node.createInvoice({ amountMsat: 2000 })).amountMsat, 2000)
      await node.getBalances()

      // Rotated again, but the file holds a macaroon LND does not know: refused in words, until the file is right.
      fake.rotateMacaroon()
      const rotated = fs.readFileSync(macaroonPath)
      fs.copyFileSync(fake.wrongMacaroonPath, macaroonPath)
      await rejectsWith(node.createInvoice({ amountMsat: 1000 }), 'node_unavailable', /refused relaypay's macaroon/)
      fs.writeFileSync(macaroonPath, rotated)
      assert.is((await node.createInvoice({ amountMsat: 3000 })).amountMsat, 3000)
      // The lightning package's clients (lookups, balances) are built again from the files the channel read last.
      assert.is((await node.lookupInvoice((await node.createInvoice({ amountMsat: 4000 })).paymentHash))?.amountMsat, 4000)
    } finally {
      await other.close()
    }
  }),
)

faults(
  'a forward LND records shows in the forwarding history with LND-style channel ids',
  withLnd(async ({ node, fake, now }) => {
    const [a, b] = [randomNodePubkey(), randomNodePubkey()]
    await node.addPeer({ pubkey: a, host: '127.0.0.1', port: 1 })
    await node.addPeer({ pubkey: b, host: '127.0.0.1', port: 2 })
    await node.openChannel({ peerPubkey: a, localFundingSats: 100_000, pushSats: 50_000 })
    await node.openChannel({ peerPubkey: b, localFundingSats: 100_000 })
    const byPeer = async (peer: string) => (await node.listChannels()).find(c => c.peerPubkey === peer)!
    const [inbound, outbound] = [await byPeer(a), await byPeer(b)]
    assert.match(inbound.channelId, /^\d+$/)
    fake.recordForward(inbound.channelId, outbound.channelId, 1_000_000, 1_001)
    const history = await node.forwardingHistory({ fromMs: now() - 1000, toMs: now() + 1000 })
    // LND's times reach us in whole seconds (the library reads ForwardingEvent.timestamp_ns to the second).
    assert.equal(history, [
      {
        at: Math.floor(now() / 1000) * 1000,
        incomingChannelId: inbound.channelId,
        outgoingChannelId: outbound.channelId,
        amountInMsat: 1_001_001,
        amountOutMsat: 1_000_000,
        feeMsat: 1_001,
      },
    ])
    assert.equal(await node.forwardingHistory({ fromMs: now() + 1, toMs: now() + 1000 }), [])
    assert.is((await byPeer(a)).localBalanceMsat, inbound.localBalanceMsat + 1_001_000)
  }),
)

faults.run()

const start = suite('lnd backend: start')

/** What createNode's refusal says, asserted to be one line. */
async function refusal(promise: Promise<unknown>): Promise<string> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  )
  assert.instance(err, Error, 'the backend started')
  const { message } = err as Error
  assert.not.match(message, /\n/, 'more than one line')
  return message
}

start('it refuses with one clear line: wrong macaroon, no server, locked, missing file, wrong network', async () => {
  const time = new ManualTime(Date.now())
  const fake = await startFakeLnd({ now: () => time.now() })
  const testnet = await startFakeLnd({ now: () => time.now(), network: 'testnet' })
  const store = temporaryStore()
  try {
    const open = (connection: Partial<typeof fake.connection>, from = fake) =>
      createLndBackend({ ...from.connection, ...connection }, time, store)

    const macaroon = await refusal(open({ macaroonPath: fake.wrongMacaroonPath }))
    assert.match(macaroon, `LND at localhost:${fake.port} refused the macaroon ${fake.wrongMacaroonPath}`)
    assert.match(macaroon, /signature mismatch/)

    const untrusted = await refusal(open({ certPath: testnet.connection.certPath }))
    assert.match(untrusted, `LND at localhost:${fake.port} failed the TLS check`)
    assert.match(untrusted, /self-signed certificate/)

    const missing = await refusal(open({ macaroonPath: `${fake.wrongMacaroonPath}.gone` }))
    assert.match(missing, /^cannot read LND's macaroon .*\.gone: ENOENT; check \[node\] lnd_macaroon_path, or, if LND has not written it yet, set \[node\] wait_for_node = true$/)

    fake.faults.locked = true
    assert.match(await refusal(open({})), `LND at localhost:${fake.port} is locked: unlock its wallet`)
    fake.faults.locked = false

    assert.match(await refusal(open({}, testnet)), /runs on testnet, but \[node\] network is regtest$/)

    await fake.stop()
    const down = await refusal(open({}))
    assert.match(down, `LND is unreachable at localhost:${fake.port}`)
    assert.match(down, /ECONNREFUSED [0-9.:]+; set \[node\] wait_for_node = true to wait for it$/)

    const unset = createNode(
      { backend: 'lnd', network: 'regtest', alias: 'x', simulatePayments: false, mock: false, dataDir: store.dataDir },
      { db: store.db, clock: time, random: n => new Uint8Array(randomBytes(n)) },
    )
    assert.match(await refusal(unset), /needs lnd_socket and lnd_macaroon_path/)
  } finally {
    store.close()
    await fake.close()
    await testnet.close()
  }
})

start('with wait_for_node it retries with backoff until LND is up and unlocked', async () => {
  const time = new ManualTime(Date.now())
  const fake = await startFakeLnd({ now: () => time.now() })
  const store = temporaryStore()
  let node: LightningNode | undefined
  try {
    await fake.stop()
    let outcome: 'waiting' | 'started' | Error = 'waiting'
    const starting = createLndBackend(fake.connection, time, store, true).then(
      started => {
        node = started
        outcome = 'started'
      },
      (err: Error) => {
        outcome = err
      },
    )
    await until(() => time.pendingCount === 1, 'the first attempt fails and a retry is scheduled')
    await fake.start()
    fake.faults.locked = true
    await time.advance(1000)
    await until(() => time.pendingCount === 1 || outcome !== 'waiting', 'the locked LND is retried')
    assert.is(outcome, 'waiting')
    fake.faults.locked = false
    await time.advance(1999)
    assert.is(outcome, 'waiting', 'retried before the backoff ran out')
    await time.advance(1)
    await starting
    assert.is(outcome, 'started')
    assert.is((await node!.getInfo()).pubkey, fake.node.pubkey)
  } finally {
    await node?.close()
    store.close()
    await fake.close()
  }
})

start('the upstream env names fill the [node] keys left unset', () => {
  const env = { LND_ADDRESS: 'lnd.local:10009', LND_CERT_PATH: '/lnd/tls.cert', LND_MACAROON_PATH: '/lnd/admin.macaroon' }
  assert.equal(resolveLndConnection({}, env), {
    socket: 'lnd.local:10009',
    certPath: '/lnd/tls.cert',
    macaroonPath: '/lnd/admin.macaroon',
  })
  assert.equal(resolveLndConnection({ socket: 'other:1', macaroonPath: '/m' }, env), {
    socket: 'other:1',
    certPath: '/lnd/tls.cert',
    macaroonPath: '/m',
  })
  assert.equal(resolveLndConnection({ macaroonPath: '/m' }, {}), { socket: 'localhost:10009', macaroonPath: '/m' })
  assert.throws(() => resolveLndConnection({}, {}), /needs a macaroon/)
})

start.run()
