// The metric byte formats against upstream's layout (Lightning.Pub's metrics files), decoded here by hand, not by
// the code under test: usage records (TLV types 2–10, 4-byte big-endian integers, 1-byte flags), bundle samples
// (unix ‖ value) and the list entries (type 64) a metrics file is made of.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import {
  decodeRecordList, decodeTlv, encodeBundleSample, encodeRecordList, encodeUsageRecord, uint32Bytes,
} from '../../src/metrics/index.js'

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex')

/** A straightforward TLV reader: type byte, length byte, value; every entry must be complete. */
function readTlv(bytes: Uint8Array): Map<number, Buffer> {
  const out = new Map<number, Buffer>()
  let at = 0
  while (at < bytes.length) {
    const type = bytes[at]!
    const length = bytes[at + 1]!
    assert.ok(at + 2 + length <= bytes.length, `entry of type ${type} runs past the end`)
    assert.not.ok(out.has(type), `type ${type} twice`)
    out.set(type, Buffer.from(bytes.subarray(at + 2, at + 2 + length)))
    at += 2 + length
  }
  return out
}

const usage = suite('usage record')

usage('holds the nine upstream fields with their types, integers as 4 bytes big-endian', () => {
  const record = encodeUsageRecord({
    processedAtSeconds: 1_746_100_800,
    parseUs: 0,
    authUs: 12,
    validateUs: 345,
    handleUs: 70_000,
    batchSize: 3,
    batch: true,
    nostr: false,
    success: true,
  })
  assert.is(record.length, 45)
  const fields = readTlv(record)
  assert.equal([...fields.keys()].sort((a, b) => a - b), [2, 3, 4, 5, 6, 7, 8, 9, 10])
  assert.is(fields.get(2)!.readUInt32BE(0), 1_746_100_800)
  assert.is(fields.get(3)!.readUInt32BE(0), 0)
  assert.is(fields.get(4)!.readUInt32BE(0), 12)
  assert.is(fields.get(5)!.readUInt32BE(0), 345)
  assert.is(fields.get(6)!.readUInt32BE(0), 70_000)
  assert.is(fields.get(7)!.readUInt32BE(0), 3)
  assert.equal([...fields.get(8)!], [1])
  assert.equal([...fields.get(9)!], [0])
  assert.equal([...fields.get(10)!], [1])
  for (const type of [2, 3, 4, 5, 6, 7]) assert.is(fields.get(type)!.length, 4, `type ${type}`)
})

usage('is written from type 10 down to type 2, byte for byte as upstream writes it', () => {
  const record = encodeUsageRecord({
    processedAtSeconds: 0x01020304,
    parseUs: 5,
    authUs: 6,
    validateUs: 7,
    handleUs: 8,
    batchSize: 0,
    batch: false,
    nostr: true,
    success: false,
  })
  assert.is(
    hex(record),
    '0a0100' + '090101' + '080100' + '070400000000' + '060400000008' + '050400000007' + '040400000006' + '030400000005' +
      '020401020304',
  )
})

const bundle = suite('bundle sample')

bundle('is 8 bytes: unix seconds then the value, each 4 bytes big-endian', () => {
  const sample = encodeBundleSample(1_746_100_800, 21_000)
  assert.is(sample.length, 8)
  const view = Buffer.from(sample)
  assert.is(view.readUInt32BE(0), 1_746_100_800)
  assert.is(view.readUInt32BE(4), 21_000)
})

bundle('a negative value is its two’s complement, as upstream writes it; out-of-range values saturate', () => {
  assert.is(hex(uint32Bytes(-1)), 'ffffffff')
  assert.is(hex(uint32Bytes(-2)), 'fffffffe')
  assert.is(hex(uint32Bytes(2 ** 32 - 1)), 'ffffffff')
  assert.is(hex(uint32Bytes(2 ** 40)), 'ffffffff')
  assert.is(hex(uint32Bytes(-(2 ** 40))), '80000000')
  assert.is(hex(uint32Bytes(3_000_000_000)), 'b2d05e00')
})

const list = suite('record list (file contents)')

list('each record is one type-64 entry, in order', () => {
  const first = encodeBundleSample(1, 2)
  const second = encodeBundleSample(3, 4)
  const framed = encodeRecordList([first, second])
  assert.is(hex(framed), '4008' + '0000000100000002' + '4008' + '0000000300000004')
})

list('reading stops before an entry cut short by a crash, and says how many bytes it left', () => {
  const framed = encodeRecordList([encodeBundleSample(1, 2), encodeBundleSample(3, 4)])
  const cut = framed.subarray(0, framed.length - 3)
  const { records, trailingBytes } = decodeRecordList(cut)
  assert.is(records.length, 1)
  assert.is(hex(records[0]!), '0000000100000002')
  assert.is(trailingBytes, 7)
  assert.is(decodeTlv(Uint8Array.of(64)).trailingBytes, 1)
})

list('a usage record survives framing: the file entry decodes to the same 45 bytes', () => {
  const record = encodeUsageRecord({
    processedAtSeconds: 10, parseUs: 0, authUs: 1, validateUs: 2, handleUs: 3,
    batchSize: 0, batch: false, nostr: false, success: true,
  })
  const framed = encodeRecordList([record])
  assert.is(framed[0], 64)
  assert.is(framed[1], 45)
  assert.is(hex(framed.subarray(2)), hex(record))
})

usage.run()
bundle.run()
list.run()
