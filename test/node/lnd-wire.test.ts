// The hand-written codecs of the LND payment path (src/node/lnd/rpc-messages.ts) against LND's own .proto files as
// @grpc/proto-loader reads them (the `lightning` package's copies and options, as the fake LND uses): what we write
// is what LND reads, and what LND writes is what we read, field by field, including the parts the fake never sends
// (HTLC times past 2^53 ns, feature maps, 64-bit values past 2^53, which are refused rather than rounded).
import path from 'node:path'
import { createRequire } from 'node:module'
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import * as protoLoader from '@grpc/proto-loader'
import {
  decodeAddInvoiceReply,
  decodeInvoiceUpdate,
  decodePaymentUpdate,
  decodePayReq,
  encodeAddInvoice,
  encodeInvoiceSubscription,
  encodePayReqString,
  encodeSendPayment,
} from '../../src/node/lnd/rpc-messages.js'

const protosDir = path.join(path.dirname(createRequire(import.meta.url).resolve('lightning/package.json')), 'grpc', 'protos')
const options = { keepCase: true, longs: String, enums: String, defaults: true, oneofs: true, includeDirs: [protosDir] }
const lnrpc = protoLoader.loadSync(path.join(protosDir, 'lightning.proto'), options)
const routerrpc = protoLoader.loadSync(path.join(protosDir, 'router.proto'), options)
const method = (pkg: protoLoader.PackageDefinition, service: string, name: string) =>
  (pkg[service] as protoLoader.ServiceDefinition)[name] as protoLoader.MethodDefinition<any, any>

const addInvoice = method(lnrpc, 'lnrpc.Lightning', 'AddInvoice')
const subscribeInvoices = method(lnrpc, 'lnrpc.Lightning', 'SubscribeInvoices')
const decodePayReqCall = method(lnrpc, 'lnrpc.Lightning', 'DecodePayReq')
const sendPayment = method(routerrpc, 'routerrpc.Router', 'SendPaymentV2')

const hash = Buffer.alloc(32, 7)
const test = suite('lnd wire: our codecs against LND protos')

test('AddInvoice: LND reads the amount, memo or description hash, expiry and blinding we send; we read its answer', () => {
  const asLnd = addInvoice.requestDeserialize(encodeAddInvoice({ valueMsat: 123_456, memo: 'coffee ☕', expirySeconds: 600, isBlinded: true }))
  assert.is(asLnd.value_msat, '123456')
  assert.is(asLnd.memo, 'coffee ☕')
  assert.is(asLnd.expiry, '600')
  assert.is(asLnd.is_blinded, true)
  assert.is(asLnd.description_hash.length, 0)
  const withHash = addInvoice.requestDeserialize(encodeAddInvoice({ valueMsat: 0, descriptionHash: hash, expirySeconds: 3600, isBlinded: false }))
  assert.is(withHash.value_msat, '0')
  assert.is(withHash.memo, '')
  assert.equal(withHash.description_hash, hash)

  const reply = decodeAddInvoiceReply(
    addInvoice.responseSerialize({ r_hash: hash, payment_request: 'lnbcrt1example', add_index: '18446744073709551615', payment_addr: Buffer.alloc(32, 1) }),
  )
  assert.equal(reply.rHash, hash)
  assert.is(reply.paymentRequest, 'lnbcrt1example')
})

test('SubscribeInvoices: the settle index we resume from; a settled invoice read, an open one skipped', () => {
  assert.is(subscribeInvoices.requestDeserialize(encodeInvoiceSubscription(41)).settle_index, '41')
  assert.is(subscribeInvoices.requestDeserialize(encodeInvoiceSubscription(0)).settle_index, '0')
  const invoice = {
    memo: 'x',
    r_hash: hash,
    r_preimage: Buffer.alloc(32, 9),
    value_msat: '5000',
    creation_date: '1700000000',
    payment_request: 'lnbcrt1settled',
    expiry: '3600',
    add_index: '7',
    features: { 9: { name: 'tlv-onion', is_required: false, is_known: true } },
    htlcs: [{ chan_id: '1', amt_msat: '5000', accept_time: '1700000100', resolve_time: '1700000101', state: 'SETTLED', custom_records: {} }],
  }
  const open = decodeInvoiceUpdate(subscribeInvoices.responseSerialize({ ...invoice, state: 'OPEN' }))
  assert.is(open.settled, false)
  const settled = decodeInvoiceUpdate(
    subscribeInvoices.responseSerialize({ ...invoice, state: 'SETTLED', settle_index: '42', settle_date: '1700000101', amt_paid_msat: '5001' }),
  )
  assert.equal(settled, {
    settled: true,
    paymentHash: hash.toString('hex'),
    paymentRequest: 'lnbcrt1settled',
    amountPaidMsat: 5001,
    settleDate: 1700000101,
    settleIndex: 42,
    ampSettleIndexes: [],
  })
  // An AMP invoice stays open; each payment to it is a set in amp_invoice_state with a settle index of its own.
  const amp = decodeInvoiceUpdate(
    subscribeInvoices.responseSerialize({
      ...invoice,
      state: 'OPEN',
      is_amp: true,
      amp_invoice_state: {
        ['aa'.repeat(32)]: { state: 'SETTLED', settle_index: '43', settle_time: '1700000200', amt_paid_msat: '7000' },
        ['bb'.repeat(32)]: { state: 'ACCEPTED', settle_index: '0', settle_time: '0', amt_paid_msat: '0' },
        ['cc'.repeat(32)]: { state: 'SETTLED', settle_index: '45', settle_time: '1700000300', amt_paid_msat: '8000' },
      },
    }),
  )
  assert.is(amp.settled, false)
  assert.equal(amp.ampSettleIndexes.sort((a, b) => a - b), [43, 45])
  // Past 2^53 msat is no amount of one invoice: the message is refused (the stream resubscribes), never rounded.
  assert.throws(
    () => decodeInvoiceUpdate(subscribeInvoices.responseSerialize({ ...invoice, state: 'SETTLED', settle_index: '43', settle_date: '1', amt_paid_msat: '9007199254740993' })),
    /beyond 2\^53/,
  )
  assert.throws(() => decodeInvoiceUpdate(subscribeInvoices.responseSerialize({ ...invoice, r_hash: Buffer.alloc(0), state: 'SETTLED' })), /32-byte/)
})

test('DecodePayReq: the request we send; the payee, hash, amount, times, description hash, address and feature bits we read', () => {
  assert.is(decodePayReqCall.requestDeserialize(encodePayReqString('lnbcrt1abc')).pay_req, 'lnbcrt1abc')
  const payReq = decodePayReq(
    decodePayReqCall.responseSerialize({
      destination: '02' + 'ab'.repeat(32),
      payment_hash: hash.toString('hex'),
      num_satoshis: '12',
      timestamp: '1700000000',
      expiry: '86400',
      description: '',
      description_hash: 'cd'.repeat(32),
      cltv_expiry: '80',
      route_hints: [{ hop_hints: [{ node_id: '03' + '00'.repeat(32), chan_id: '5', fee_base_msat: 1, fee_proportional_millionths: 2, cltv_expiry_delta: 40 }] }],
      payment_addr: Buffer.alloc(32, 2),
      num_msat: '12345',
      features: { 9: { name: 'tlv-onion', is_known: true }, 14: { name: 'payment-addr', is_required: true, is_known: true }, 30: { name: 'x' } },
    }),
  )
  assert.equal(payReq, {
    destination: '02' + 'ab'.repeat(32),
    paymentHash: hash.toString('hex'),
    timestamp: 1700000000,
    expirySeconds: 86400,
    description: '',
    descriptionHash: 'cd'.repeat(32),
    cltvExpiry: 80,
    paymentAddr: Buffer.alloc(32, 2),
    numMsat: 12345,
    featureBits: [9, 14, 30],
  })
})

test('SendPaymentV2: LND reads our request; a payment read with its last HTLC time (ns past 2^53) and failure reason', () => {
  const asLnd = sendPayment.requestDeserialize(
    encodeSendPayment({ paymentRequest: 'lnbcrt1pay', amountMsat: 2100, feeLimitMsat: 50, timeoutSeconds: 25, maxParts: 1, allowSelfPayment: true, cancelable: true }),
  )
  assert.is(asLnd.payment_request, 'lnbcrt1pay')
  assert.is(asLnd.amt_msat, '2100')
  assert.is(asLnd.fee_limit_msat, '50')
  assert.is(asLnd.timeout_seconds, 25)
  assert.is(asLnd.max_parts, 1)
  assert.is(asLnd.allow_self_payment, true)
  assert.is(asLnd.cancelable, true)
  assert.is(asLnd.no_inflight_updates, false)

  const succeeded = decodePaymentUpdate(
    sendPayment.responseSerialize({
      payment_hash: hash.toString('hex'),
      payment_preimage: '11'.repeat(32),
      value_msat: '2100',
      fee_msat: '3',
      status: 'SUCCEEDED',
      htlcs: [
        { status: 'FAILED', resolve_time_ns: '1700000009000000000' },
        { status: 'SUCCEEDED', resolve_time_ns: '1700000002123456789', route: { hops: [{ chan_id: '1', amt_to_forward_msat: '2100' }] } },
        { status: 'SUCCEEDED', resolve_time_ns: '1700000001000000000' },
      ],
    }),
  )
  assert.equal(succeeded, {
    paymentHash: hash.toString('hex'),
    paymentPreimage: '11'.repeat(32),
    valueMsat: 2100,
    feeMsat: 3,
    status: 2,
    failureReason: 0,
    settledAtMs: 1700000002123,
  })
  const failed = decodePaymentUpdate(sendPayment.responseSerialize({ payment_hash: hash.toString('hex'), status: 'FAILED', failure_reason: 'FAILURE_REASON_INSUFFICIENT_BALANCE' }))
  assert.is(failed.status, 3)
  assert.is(failed.failureReason, 5)
})

test.run()
