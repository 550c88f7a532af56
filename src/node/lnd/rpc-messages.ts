// The lnrpc and routerrpc messages of the payment path, written and read with protobufjs's Reader and Writer. Field
// numbers are LND's (lightning.proto, router.proto as the `lightning` package ships them; the fake LND in
// test/support speaks them through @grpc/proto-loader, so a wrong number fails the LND tests).
//
// Why not the `lightning` package's codecs: its @grpc/proto-loader reads every reply with `longs: String,
// defaults: true`, so each 64-bit field of a message, present or not, becomes a string through long.js's division
// loop. An Invoice on the settlement stream has sixteen such fields: ~0.2 ms of the daemon's thread per invoice made,
// more than the rest of the gRPC call. Here a reply is read once, only the fields we use, 64-bit numbers as numbers.
// None that we read as a number can pass 2^53 (msat amounts of one invoice or payment, unix seconds, indexes); one
// that does is a broken reply and is refused, not rounded.
import protobuf from 'protobufjs/minimal.js'

const { Reader, Writer } = protobuf

type Int64 = number | { low: number; high: number; unsigned: boolean }

/** Protobuf wire types. */
const varint = 0
const lengthDelimited = 2

const tag = (field: number, wireType: number) => (field << 3) | wireType

function safeNumber(value: Int64, field: string): number {
  const n = typeof value === 'number' ? value : (value.unsigned ? value.high >>> 0 : value.high) * 0x1_0000_0000 + (value.low >>> 0)
  if (!Number.isSafeInteger(n)) throw new RangeError(`LND sent ${field} beyond 2^53`)
  return n
}

function bigNumber(value: Int64): bigint {
  if (typeof value === 'number') return BigInt(value)
  const unsigned = (BigInt(value.high >>> 0) << 32n) | BigInt(value.low >>> 0)
  return value.unsigned ? unsigned : BigInt.asIntN(64, unsigned)
}

/** Reads a message's fields in turn; `field` reads the value of the ones it knows and returns false for the rest. */
function readFields(bytes: Uint8Array, field: (reader: protobuf.Reader, number: number, end: number) => boolean): void {
  const reader = Reader.create(bytes)
  readFieldsOf(reader, reader.len, field)
}

function readFieldsOf(reader: protobuf.Reader, end: number, field: (reader: protobuf.Reader, number: number, end: number) => boolean): void {
  while (reader.pos < end) {
    const key = reader.uint32()
    if (!field(reader, key >>> 3, end)) reader.skipType(key & 7)
  }
}

const finish = (writer: protobuf.Writer): Buffer => writer.finish() as Buffer

// lnrpc.Invoice as AddInvoice's request.
export interface AddInvoiceRequest {
  valueMsat: number
  memo?: string
  descriptionHash?: Buffer
  expirySeconds: number
  isBlinded: boolean
}

export function encodeAddInvoice(request: AddInvoiceRequest): Buffer {
  const writer = Writer.create()
  if (request.memo) writer.uint32(tag(1, lengthDelimited)).string(request.memo)
  if (request.descriptionHash) writer.uint32(tag(10, lengthDelimited)).bytes(request.descriptionHash)
  if (request.expirySeconds) writer.uint32(tag(11, varint)).int64(request.expirySeconds)
  if (request.valueMsat) writer.uint32(tag(23, varint)).int64(request.valueMsat)
  if (request.isBlinded) writer.uint32(tag(29, varint)).bool(true)
  return finish(writer)
}

/** lnrpc.AddInvoiceResponse. */
export interface AddInvoiceReply {
  rHash: Buffer
  paymentRequest: string
}

export function decodeAddInvoiceReply(bytes: Buffer): AddInvoiceReply {
  const reply: AddInvoiceReply = { rHash: Buffer.alloc(0), paymentRequest: '' }
  readFields(bytes, (reader, field) => {
    if (field === 1) reply.rHash = reader.bytes() as Buffer
    else if (field === 2) reply.paymentRequest = reader.string()
    else return false
    return true
  })
  return reply
}

/** lnrpc.InvoiceSubscription: settlements above `settleIndex` are replayed first (0: live only). */
export function encodeInvoiceSubscription(settleIndex: number): Buffer {
  const writer = Writer.create()
  if (settleIndex > 0) writer.uint32(tag(2, varint)).uint64(settleIndex)
  return finish(writer)
}

/** What the settlement stream reads of an lnrpc.Invoice; only a settled one is read past its state. */
export interface InvoiceUpdate {
  settled: boolean
  paymentHash: string
  paymentRequest: string
  amountPaidMsat: number
  /** Unix seconds. */
  settleDate: number
  settleIndex: number
  /**
   * The settle indexes of the AMP payments this update reports settled (amp_invoice_state): an AMP invoice stays
   * open, so these take settle indexes without the invoice ever being settled.
   */
  ampSettleIndexes: number[]
}

/** lnrpc.Invoice.InvoiceState SETTLED. */
const invoiceSettled = 1
/** lnrpc.InvoiceHTLCState SETTLED, the state of an AMP payment's HTLC set. */
const htlcSetSettled = 1

/** lnrpc.AMPInvoiceState: its settle index when it is settled. */
function settledAmpIndex(reader: protobuf.Reader): number | undefined {
  let state = 0
  let settleIndex: Int64 = 0
  readFieldsOf(reader, reader.uint32() + reader.pos, (r, field) => {
    if (field === 1) state = r.int32()
    else if (field === 2) settleIndex = r.uint64()
    else return false
    return true
  })
  const index = safeNumber(settleIndex, 'amp settle_index')
  return state === htlcSetSettled && index > 0 ? index : undefined
}

export function decodeInvoiceUpdate(bytes: Buffer): InvoiceUpdate {
  // The state may come after the fields we want (protobuf writes fields in number order: state is 21), so raw
  // values are kept and converted only for a settled invoice.
  let state = 0
  let rHash: Buffer | undefined
  let paymentRequest = ''
  let amountPaidMsat: Int64 = 0
  let settleDate: Int64 = 0
  let settleIndex: Int64 = 0
  const ampSettleIndexes: number[] = []
  readFields(bytes, (reader, field) => {
    switch (field) {
      case 28: {
        // One map entry: the set id (1) and its AMPInvoiceState (2).
        readFieldsOf(reader, reader.uint32() + reader.pos, (entry, entryField) => {
          if (entryField !== 2) return false
          const index = settledAmpIndex(entry)
          if (index !== undefined) ampSettleIndexes.push(index)
          return true
        })
        return true
      }
      case 4:
        rHash = reader.bytes() as Buffer
        return true
      case 8:
        settleDate = reader.int64()
        return true
      case 9:
        paymentRequest = reader.string()
        return true
      case 17:
        settleIndex = reader.uint64()
        return true
      case 20:
        amountPaidMsat = reader.int64()
        return true
      case 21:
        state = reader.int32()
        return true
      default:
        return false
    }
  })
  if (state !== invoiceSettled) {
    return { settled: false, paymentHash: '', paymentRequest: '', amountPaidMsat: 0, settleDate: 0, settleIndex: 0, ampSettleIndexes }
  }
  const hash = rHash as Buffer | undefined
  if (!hash || hash.length !== 32) throw new Error('LND sent a settled invoice without a 32-byte payment hash')
  return {
    settled: true,
    paymentHash: hash.toString('hex'),
    paymentRequest,
    amountPaidMsat: safeNumber(amountPaidMsat, 'amt_paid_msat'),
    settleDate: safeNumber(settleDate, 'settle_date'),
    settleIndex: safeNumber(settleIndex, 'settle_index'),
    ampSettleIndexes,
  }
}

/** lnrpc.PayReqString. */
export function encodePayReqString(paymentRequest: string): Buffer {
  return finish(Writer.create().uint32(tag(1, lengthDelimited)).string(paymentRequest))
}

/** lnrpc.PayReq, the fields a payment reads. */
export interface PayReq {
  destination: string
  paymentHash: string
  /** Unix seconds. */
  timestamp: number
  expirySeconds: number
  description: string
  descriptionHash: string
  cltvExpiry: number
  paymentAddr: Buffer
  numMsat: number
  featureBits: number[]
}

export function decodePayReq(bytes: Buffer): PayReq {
  const payReq: PayReq = {
    destination: '',
    paymentHash: '',
    timestamp: 0,
    expirySeconds: 0,
    description: '',
    descriptionHash: '',
    cltvExpiry: 0,
    paymentAddr: Buffer.alloc(0),
    numMsat: 0,
    featureBits: [],
  }
  readFields(bytes, (reader, field) => {
    switch (field) {
      case 1:
        payReq.destination = reader.string()
        return true
      case 2:
        payReq.paymentHash = reader.string()
        return true
      case 4:
        payReq.timestamp = safeNumber(reader.int64(), 'timestamp')
        return true
      case 5:
        payReq.expirySeconds = safeNumber(reader.int64(), 'expiry')
        return true
      case 6:
        payReq.description = reader.string()
        return true
      case 7:
        payReq.descriptionHash = reader.string()
        return true
      case 9:
        payReq.cltvExpiry = safeNumber(reader.int64(), 'cltv_expiry')
        return true
      case 11:
        payReq.paymentAddr = reader.bytes() as Buffer
        return true
      case 12:
        payReq.numMsat = safeNumber(reader.int64(), 'num_msat')
        return true
      case 13: {
        // map<uint32, Feature>: each entry a message of key (1) and value (2); the keys are the feature bits.
        const end = reader.uint32() + reader.pos
        readFieldsOf(reader, end, (entry, number) => {
          if (number !== 1) return false
          payReq.featureBits.push(entry.uint32())
          return true
        })
        return true
      }
      default:
        return false
    }
  })
  return payReq
}

/** routerrpc.SendPaymentRequest, the fields relaypay sets. */
export interface SendPaymentRequest {
  paymentRequest: string
  amountMsat?: number
  feeLimitMsat: number
  timeoutSeconds: number
  maxParts: number
  allowSelfPayment: boolean
  cancelable: boolean
}

export function encodeSendPayment(request: SendPaymentRequest): Buffer {
  const writer = Writer.create()
  writer.uint32(tag(5, lengthDelimited)).string(request.paymentRequest)
  if (request.timeoutSeconds) writer.uint32(tag(6, varint)).int32(request.timeoutSeconds)
  if (request.amountMsat) writer.uint32(tag(12, varint)).int64(request.amountMsat)
  if (request.feeLimitMsat) writer.uint32(tag(13, varint)).int64(request.feeLimitMsat)
  if (request.allowSelfPayment) writer.uint32(tag(15, varint)).bool(true)
  if (request.maxParts) writer.uint32(tag(17, varint)).uint32(request.maxParts)
  if (request.cancelable) writer.uint32(tag(24, varint)).bool(true)
  return finish(writer)
}

// routerrpc.TrackPaymentRequest: the payment's hash; every update, in flight ones too.
export function encodeTrackPayment(paymentHash: string): Buffer {
  return finish(Writer.create().uint32(tag(1, lengthDelimited)).bytes(Buffer.from(paymentHash, 'hex')))
}

/** lnrpc.Payment.PaymentStatus and lnrpc.PaymentFailureReason, as numbers on the wire. */
export const paymentStatus = { inFlight: 1, succeeded: 2, failed: 3, initiated: 4 } as const
export const failureReason = { none: 0, timeout: 1, noRoute: 2, error: 3, incorrectPaymentDetails: 4, insufficientBalance: 5, canceled: 6 } as const
/** lnrpc.HTLCAttempt.HTLCStatus SUCCEEDED. */
const htlcSucceeded = 1

/** lnrpc.Payment, the fields a payment's outcome reads. */
export interface PaymentUpdate {
  paymentHash: string
  paymentPreimage: string
  valueMsat: number
  feeMsat: number
  status: number
  failureReason: number
  /** When the last successful HTLC resolved, in unix ms (0: none did). */
  settledAtMs: number
}

export function decodePaymentUpdate(bytes: Buffer): PaymentUpdate {
  const payment: PaymentUpdate = { paymentHash: '', paymentPreimage: '', valueMsat: 0, feeMsat: 0, status: 0, failureReason: 0, settledAtMs: 0 }
  let settledNs = 0n
  readFields(bytes, (reader, field) => {
    switch (field) {
      case 1:
        payment.paymentHash = reader.string()
        return true
      case 6:
        payment.paymentPreimage = reader.string()
        return true
      case 8:
        payment.valueMsat = safeNumber(reader.int64(), 'value_msat')
        return true
      case 10:
        payment.status = reader.int32()
        return true
      case 12:
        payment.feeMsat = safeNumber(reader.int64(), 'fee_msat')
        return true
      case 14: {
        // HTLCAttempt: status (1), resolve_time_ns (4; nanoseconds pass 2^53, hence bigint).
        const end = reader.uint32() + reader.pos
        let status = -1
        let resolvedNs = 0n
        readFieldsOf(reader, end, (htlc, number) => {
          if (number === 1) status = htlc.int32()
          else if (number === 4) resolvedNs = bigNumber(htlc.int64())
          else return false
          return true
        })
        if (status === htlcSucceeded && resolvedNs > settledNs) settledNs = resolvedNs
        return true
      }
      case 16:
        payment.failureReason = reader.int32()
        return true
      default:
        return false
    }
  })
  payment.settledAtMs = Number(settledNs / 1_000_000n)
  return payment
}
