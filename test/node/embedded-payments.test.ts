// Payments from the embedded node: the not-connected refusal, simulate_payments (delay, fee, timeout, restart),
// amount rules, and the mock controls that settle its invoices from outside.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { sha256Hex } from './contract.js'
import { collect, delayMs, openEmbedded } from './embedded-harness.js'
import { rejectsWith } from './operation-error.js'
import { outsideInvoice } from '../support/outside-invoice.js'

const notConnected = 'the embedded node is not connected to the Lightning network'

const embedded = suite('embedded node payments')

embedded('an outside invoice fails with the not-connected reason, recorded, and may be retried', async () => {
  const h = await openEmbedded()
  try {
    const seen = collect(h.node)
    const outside = outsideInvoice({ network: 'regtest', nowMs: h.now(), amountMsat: 10_000 })
    const outcome = await h.node.pay({ paymentRequest: outside.paymentRequest, maxFeeMsat: 5000, timeoutMs: 1000 })
    assert.equal(outcome, { status: 'failed', paymentHash: outside.paymentHash, failureReason: notConnected })
    assert.equal(await h.node.trackPayment(outside.paymentHash), outcome)
    const retried = await h.node.pay({ paymentRequest: outside.paymentRequest, maxFeeMsat: 5000, timeoutMs: 1000 })
    assert.equal(retried, outcome)
    assert.is(seen.length, 0)
  } finally {
    await h.close()
  }
})

embedded('an outside invoice carrying our payment hash is still an outside invoice', async () => {
  const h = await openEmbedded()
  try {
    const ours = await h.node.createInvoice({ amountMsat: 10_000 })
    const paymentHash = ours.paymentHash
    const copy = outsideInvoice({ network: 'regtest', nowMs: h.now(), amountMsat: 10_000, paymentHash })
    const outcome = await h.node.pay({ paymentRequest: copy.paymentRequest, maxFeeMsat: 5000, timeoutMs: 1000 })
    assert.is(outcome.status, 'failed')
    assert.is((await h.node.lookupInvoice(ours.paymentHash))?.state, 'unpaid')
  } finally {
    await h.close()
  }
})

embedded('with simulate_payments an outside invoice succeeds after the delay with 1 sat + 0.1% fee', async () => {
  const h = await openEmbedded({ simulatePayments: true })
  try {
    const outside = outsideInvoice({ network: 'regtest', nowMs: h.now(), amountMsat: 2_000_000 })
    const paying = h.node.pay({ paymentRequest: outside.paymentRequest, maxFeeMsat: 10_000, timeoutMs: 5000 })
    await h.advance(delayMs - 1)
    assert.is((await h.node.trackPayment(outside.paymentHash))?.status, 'in_flight')
    await rejectsWith(
      h.node.pay({ paymentRequest: outside.paymentRequest, maxFeeMsat: 10_000, timeoutMs: 5000 }),
      'conflict',
      'payment is in transition',
    )
    await h.advance(1)
    const outcome = await paying
    assert.is(outcome.status, 'succeeded')
    if (outcome.status !== 'succeeded') return
    assert.is(outcome.feeMsat, 1000 + 2000)
    assert.is(outcome.amountMsat, 2_000_000)
    assert.match(outcome.preimage, /^[0-9a-f]{64}$/)
    assert.is(h.time.pendingCount, 0)
    await rejectsWith(
      h.node.pay({ paymentRequest: outside.paymentRequest, maxFeeMsat: 10_000, timeoutMs: 5000 }),
      'conflict',
      'invoice is already paid',
    )
  } finally {
    await h.close()
  }
})

embedded('a simulated payment slower than the timeout answers in_flight, then tracks to succeeded', async () => {
  const h = await openEmbedded({ simulatePayments: true })
  try {
    const outside = outsideInvoice({ network: 'regtest', nowMs: h.now(), amountMsat: 1_000_000 })
    const paying = h.node.pay({ paymentRequest: outside.paymentRequest, maxFeeMsat: 10_000, timeoutMs: 50 })
    await h.advance(50)
    assert.equal(await paying, { status: 'in_flight', paymentHash: outside.paymentHash })
    await h.advance(delayMs)
    assert.is((await h.node.trackPayment(outside.paymentHash))?.status, 'succeeded')
  } finally {
    await h.close()
  }
})

embedded('a simulated payment interrupted by a stop completes at the next start', async () => {
  const h = await openEmbedded({ simulatePayments: true })
  const outside = outsideInvoice({ network: 'regtest', nowMs: h.now(), amountMsat: 1_000_000 })
  const paying = h.node.pay({ paymentRequest: outside.paymentRequest, maxFeeMsat: 10_000, timeoutMs: 5000 })
  await h.stop()
  assert.is((await paying).status, 'in_flight')
  assert.is(h.time.pendingCount, 0)
  const again = await openEmbedded({ dataDir: h.dataDir, time: h.time, simulatePayments: true })
  try {
    assert.is((await again.node.trackPayment(outside.paymentHash))?.status, 'succeeded')
  } finally {
    await again.close()
  }
})

embedded('a simulated route dearer than the fee limit fails', async () => {
  const h = await openEmbedded({ simulatePayments: true })
  try {
    const outside = outsideInvoice({ network: 'regtest', nowMs: h.now(), amountMsat: 2_000_000 })
    const outcome = await h.node.pay({ paymentRequest: outside.paymentRequest, maxFeeMsat: 2999, timeoutMs: 5000 })
    assert.is(outcome.status, 'failed')
    assert.is(h.time.pendingCount, 0)
  } finally {
    await h.close()
  }
})

embedded('mock controls exist only with mock on; they settle our invoices as if paid from outside', async () => {
  const plain = await openEmbedded()
  try {
    assert.is(plain.node.mock, undefined)
  } finally {
    await plain.close()
  }
  const h = await openEmbedded({ mock: true })
  try {
    const mock = h.node.mock!
    const seen = collect(h.node)
    const valued = await h.node.createInvoice({ amountMsat: 12_000, description: 'mock' })
    await rejectsWith(mock.markInvoicePaidExternally(valued.paymentRequest, 11_000), 'invalid_input')
    const settled = await mock.markInvoicePaidExternally(valued.paymentRequest)
    assert.is(settled.amountMsat, 12_000)
    assert.equal(seen, [settled])
    await rejectsWith(mock.markInvoicePaidExternally(valued.paymentRequest), 'conflict', 'invoice is already paid')
    await rejectsWith(h.node.pay({ paymentRequest: valued.paymentRequest, maxFeeMsat: 0, timeoutMs: 1000 }), 'conflict')

    const open = await h.node.createInvoice({})
    await rejectsWith(mock.markInvoicePaidExternally(open.paymentRequest), 'invalid_input')
    assert.is((await mock.markInvoicePaidExternally(open.paymentRequest, 3_000)).amountMsat, 3_000)

    const outside = outsideInvoice({ network: 'regtest', nowMs: h.now(), amountMsat: 1000 })
    await rejectsWith(mock.markInvoicePaidExternally(outside.paymentRequest), 'not_found')
    assert.is(seen.length, 2)
  } finally {
    await h.close()
  }
})

embedded('invoice requests the node cannot honour are invalid input', async () => {
  const h = await openEmbedded()
  try {
    for (const request of [
      { amountMsat: -1 },
      { amountMsat: 1.5 },
      { amountMsat: 2 ** 53 },
      { expirySeconds: 0 },
      { description: 'x', descriptionHash: 'ab'.repeat(32) },
      { descriptionHash: 'abc' },
      { description: 'é'.repeat(320) },
    ]) {
      await rejectsWith(h.node.createInvoice(request), 'invalid_input')
    }
    const invoice = await h.node.createInvoice({ amountMsat: 1000 })
    await rejectsWith(
      h.node.pay({ paymentRequest: invoice.paymentRequest, amountMsat: 2000, maxFeeMsat: 0, timeoutMs: 1000 }),
      'invalid_input',
      'amount must not be specified when paying a non-zero amount invoice',
    )
    const negativeFee = h.node.pay({ paymentRequest: invoice.paymentRequest, maxFeeMsat: -1, timeoutMs: 1000 })
    await rejectsWith(negativeFee, 'invalid_input')
    assert.is((await h.node.lookupInvoice(invoice.paymentHash))?.state, 'unpaid')
  } finally {
    await h.close()
  }
})

embedded('self-payment preimage proves payment: sha256(preimage) is the invoice hash', async () => {
  const h = await openEmbedded()
  try {
    const invoice = await h.node.createInvoice({ amountMsat: 1000 })
    const outcome = await h.node.pay({ paymentRequest: invoice.paymentRequest, maxFeeMsat: 0, timeoutMs: 1000 })
    assert.ok(outcome.status === 'succeeded' && sha256Hex(outcome.preimage) === invoice.paymentHash)
  } finally {
    await h.close()
  }
})

embedded.run()
