// The LND backend, verified against LND's 0.20 gRPC surface through a fake LND (test/support/fake-lnd) and the
// unmodified `lightning` client, not against a running lnd (lnd-regtest.test.ts does that when one is at hand).
// First the shared LightningNode contract, then what only a remote node needs: streams that drop and come back,
// payments whose outcome is not known yet, and a start that refuses clearly or waits for LND.
import { createHash, randomBytes } from 'node:crypto'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { createNode, resolveLndConnection, type LightningNode, type SettledInvoice } from '../../src/node/index.js'
import { arrived, nodeContract, replayed } from './contract.js'
import { ManualTime } from './manual-time.js'
import { rejectsWith } from './operation-error.js'
import { outsideInvoice, randomNodePubkey } from './outside-invoice.js'
import { startFakeLnd, type FakeLnd } from '../support/fake-lnd/fake-lnd.js'
import { createLndBackend, openLnd, temporaryStore, type LndHarness } from '../support/fake-lnd/lnd-harness.js'

nodeContract('lnd backend (fake LND)', () => openLnd(), { revealsSeed: false })

function collect(node: LightningNode, after: number | 'now' = 0): SettledInvoice[] {
  const seen: SettledInvoice[] = []
  node.settlementsAfter(after).subscribe(settled => seen.push(settled))
  return seen
}

/** Waits for something the backend does on its own in reaction to network I/O (not a timer: time is manual). */
async function until(condition: () => boolean, what: string): Promise<void> {
  for (let tries = 0; tries < 300; tries++) {
    if (condition()) return
    await new Promise(resolve => setTimeout(resolve, 10))
  }
  assert.unreachable(`gave up waiting until ${what}`)
}

/** Drops the backend's invoice stream once the fake has it (the subscription is sent without an answer). */
async function dropInvoiceStream(fake: FakeLnd): Promise<void> {
  await until(() => fake.node.invoiceStreamDrops.size === 1, 'the backend has subscribed')
  fake.dropInvoiceStreams()
}

const withLnd = (fn: (h: LndHarness) => Promise<void>) => async () => {
  const h = await openLnd()
  try {
    await fn(h)
  } finally {
    await h.close()
  }
}

const streams = suite('lnd backend: the settled-invoice stream')

streams(
  'settlements made while the stream was down arrive once each, in order, after a backoff',
  withLnd(async ({ node, fake, time }) => {
    const seen = collect(node)
    const [a, b, c, d] = await Promise.all(
      [1, 2, 3, 4].map(n => node.createInvoice({ amountMsat: n * 1000, description: `order ${n}` })),
    )
    await node.pay({ paymentRequest: a.paymentRequest, maxFeeMsat: 0, timeoutMs: 5000 })
    await arrived(seen, 1)

    fake.faults.refuseInvoiceStreams = true
    await dropInvoiceStream(fake)
    await until(() => time.pendingCount === 1, 'the backend schedules a resubscription')
    fake.settleInvoice(b.paymentHash)
    fake.settleInvoice(c.paymentHash)
    await time.advance(1000) // first retry, refused: the next waits 2 s
    await until(() => time.pendingCount === 1, 'the backend schedules a second resubscription')
    fake.faults.refuseInvoiceStreams = false
    await time.advance(1999)
    assert.is(time.pendingCount, 1, 'resubscribed before the backoff ran out')
    assert.is(seen.length, 1)
    await time.advance(1)
    await arrived(seen, 3)
    fake.settleInvoice(d.paymentHash)
    await arrived(seen, 4)

    assert.equal(
      seen.map(s => [s.paymentHash, s.settleIndex, s.amountMsat]),
      [
        [a.paymentHash, 1, 1000],
        [b.paymentHash, 2, 2000],
        [c.paymentHash, 3, 3000],
        [d.paymentHash, 4, 4000],
      ],
    )
    assert.equal(await replayed(node, 1, 3), seen.slice(1))
  }),
)

streams(
  'with nothing settled before the drop, the gap is read from the invoice list',
  withLnd(async ({ node, fake, time }) => {
    const seen = collect(node)
    const invoice = await node.createInvoice({ amountMsat: 5000, description: 'first ever' })
    await dropInvoiceStream(fake)
    await until(() => time.pendingCount === 1, 'the backend schedules a resubscription')
    fake.settleInvoice(invoice.paymentHash)
    await time.advance(1000)
    await arrived(seen, 1)
    assert.equal(seen.map(s => s.paymentHash), [invoice.paymentHash])
    const later = await node.createInvoice({ amountMsat: 6000, description: 'second' })
    fake.settleInvoice(later.paymentHash)
    await arrived(seen, 2)
    assert.equal(seen.map(s => s.settleIndex), [1, 2])
  }),
)

streams(
  'a subscriber from a settle index is replayed what came after it and reads no list; one without reads it once',
  async () => {
    const time = new ManualTime(Date.now())
    const fake = await startFakeLnd({ now: () => time.now() })
    fake.node.invoices.addHistory(5000, { settledEvery: 10 })
    try {
      const h = await openLnd({ fake, time })
      try {
        const { node } = h
        const traffic = fake.node.traffic
        const fresh = await node.createInvoice({ amountMsat: 2000 })
        fake.settleInvoice(fresh.paymentHash) // settle index 501, after the history's 500
        const listedBefore = traffic.invoicesListed
        assert.equal((await replayed(node, 499, 2)).map(s => [s.settleIndex, s.amountMsat]), [[500, 500_000], [501, 2000]])
        assert.is(traffic.invoicesListed, listedBefore, 'listed invoices to resume from a settle index')
        assert.is(traffic.invoicesReplayed, 2)

        // From 'now': nothing older, and nothing read; the next settlement arrives.
        const later = collect(node, 'now')
        await until(() => fake.node.invoiceStreamDrops.size === 1, 'the subscriber has subscribed')
        const next = await node.createInvoice({ amountMsat: 3000 })
        fake.settleInvoice(next.paymentHash)
        await arrived(later, 1)
        assert.equal(later.map(s => s.settleIndex), [502])
        assert.is(traffic.invoicesListed, listedBefore)

        // From 0: LND replays nothing from 0, so the whole list is read once, in pages.
        const calls = traffic.calls.get('ListInvoices') ?? 0
        const all = collect(node, 0)
        await arrived(all, 502)
        assert.is(all.length, 502)
        assert.equal(all.slice(-2).map(s => s.paymentHash), [fresh.paymentHash, next.paymentHash])
        assert.is(traffic.invoicesListed - listedBefore, 5002)
        assert.is((traffic.calls.get('ListInvoices') ?? 0) - calls, 6, 'pages of 1000, then an empty one')
      } finally {
        await h.close()
      }
    } finally {
      await fake.close()
    }
  },
)

streams(
  'a subscriber without an index whose live stream took hold after the list resubscribes rather than skip one',
  withLnd(async ({ node, fake }) => {
    const [a, b, c] = await Promise.all([1, 2, 3].map(n => node.createInvoice({ amountMsat: n * 1000 })))
    fake.settleInvoice(a.paymentHash)
    // b settles after LND answered the list and before the live subscription took hold: neither shows it.
    fake.faults.lateLiveInvoiceStream = register => {
      fake.settleInvoice(b.paymentHash)
      register()
      fake.settleInvoice(c.paymentHash)
    }
    const seen = collect(node)
    await arrived(seen, 3)
    assert.equal(seen.map(s => [s.settleIndex, s.paymentHash]), [
      [1, a.paymentHash],
      [2, b.paymentHash],
      [3, c.paymentHash],
    ])
  }),
)

streams.run()

const payments = suite('lnd backend: payments whose outcome is not known yet')

const knownPreimage = () => {
  const preimage = randomBytes(32).toString('hex')
  return { preimage, paymentHash: createHash('sha256').update(Buffer.from(preimage, 'hex')).digest('hex') }
}

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
    assert.match(missing, /^cannot read LND's macaroon .*\.gone: ENOENT/)

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
