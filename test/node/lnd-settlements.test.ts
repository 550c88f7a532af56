// The LND backend's settlement streams, through the fake LND and the unmodified `lightning` client: a stream that
// drops comes back from the last settle index it emitted; a subscriber from a stored index is replayed only what
// came after it, and reads no invoice list; one with no index reads the list once, and does not skip a settlement
// that LND made between its list and its live subscription.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { ManualTime } from '../support/manual-time.js'
import { arrived, collect, replayed } from './settlements-seen.js'
import { startFakeLnd, type FakeLnd } from '../support/fake-lnd/fake-lnd.js'
import { openLnd, withLnd } from '../support/fake-lnd/lnd-harness.js'
import { holeWaitMs } from '../../src/node/lnd/invoice-stream.js'

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

streams(
  "a replay in the order invoices were added (LND's native SQL tables) passes every settlement on once, in settle order",
  withLnd(async ({ node, fake }) => {
    const [a, b, c, d] = await Promise.all([1, 2, 3, 4].map(n => node.createInvoice({ amountMsat: n * 1000 })))
    fake.settleInvoice(a.paymentHash) // settle index 1
    // Settled against the order they were added: d gets 2, c 3, b 4; the replay from 1 sends b, c, d.
    for (const invoice of [d, c, b]) fake.settleInvoice(invoice.paymentHash)
    fake.faults.replaySettledInAddOrder = true
    const seen = collect(node, 1)
    await arrived(seen, 3)
    assert.equal(seen.map(s => [s.settleIndex, s.paymentHash]), [
      [2, d.paymentHash],
      [3, c.paymentHash],
      [4, b.paymentHash],
    ])
    // Before the fix the stream passed on b (4) first and dropped c and d as already seen.
    const e = await node.createInvoice({ amountMsat: 5000 })
    fake.settleInvoice(e.paymentHash)
    await arrived(seen, 4)
    assert.equal(seen.map(s => s.settleIndex), [2, 3, 4, 5])
  }),
)

streams(
  'a settle index that never comes holds the ones after it for a while, then the stream steps over it',
  withLnd(async ({ node, fake, time }) => {
    const [a, b, c] = await Promise.all([1, 2, 3].map(n => node.createInvoice({ amountMsat: n * 1000 })))
    for (const invoice of [a, b, c]) fake.settleInvoice(invoice.paymentHash)
    fake.faults.hiddenFromReplay.add(b.paymentHash)
    const seen = collect(node, 1)
    await until(() => fake.node.invoiceStreamDrops.size === 1, 'the subscriber has subscribed')
    await arrived(seen, 1)
    assert.equal(seen, [], '3 waits for 2')
    await time.advance(holeWaitMs)
    await arrived(seen, 1)
    assert.equal(seen.map(s => s.settleIndex), [3])
  }),
)

streams.run()
