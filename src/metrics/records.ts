// The two record kinds the metrics files hold, in upstream's byte layout.
import { writeUint32 } from './tlv.js'

/** One finished call, as a usage record. Durations are microseconds. */
export interface UsageRecord {
  processedAtSeconds: number
  parseUs: number
  authUs: number
  validateUs: number
  handleUs: number
  batchSize: number
  batch: boolean
  nostr: boolean
  success: boolean
}

/** The usage TLV field types. */
export const usageField = {
  processedAt: 2,
  parse: 3,
  auth: 4,
  validate: 5,
  handle: 6,
  batchSize: 7,
  batch: 8,
  nostr: 9,
  success: 10,
} as const

/**
 * 45 bytes: six 4-byte integers and three 1-byte flags. Upstream writes the fields from type 10 down to type 2;
 * the same order here keeps our files byte-identical to theirs for the same values. Written into one array (the
 * layout is fixed): one record per call, and an array per field was a dozen allocations on every call.
 */
export function encodeUsageRecord(record: UsageRecord): Uint8Array {
  const out = new Uint8Array(usageRecordBytes)
  let at = 0
  const flag = (type: number, on: boolean) => {
    out[at] = type
    out[at + 1] = 1
    out[at + 2] = on ? 1 : 0
    at += 3
  }
  const uint32 = (type: number, value: number) => {
    out[at] = type
    out[at + 1] = 4
    writeUint32(out, at + 2, value)
    at += 6
  }
  flag(usageField.success, record.success)
  flag(usageField.nostr, record.nostr)
  flag(usageField.batch, record.batch)
  uint32(usageField.batchSize, record.batchSize)
  uint32(usageField.handle, record.handleUs)
  uint32(usageField.validate, record.validateUs)
  uint32(usageField.auth, record.authUs)
  uint32(usageField.parse, record.parseUs)
  uint32(usageField.processedAt, record.processedAtSeconds)
  return out
}

/** Three flags of 3 bytes and six integers of 6, each with its type and length bytes. */
const usageRecordBytes = 3 * 3 + 6 * 6

/** One point of a bundle series: unix seconds (4 bytes BE) ‖ value (4 bytes BE). */
export function encodeBundleSample(unixSeconds: number, value: number): Uint8Array {
  const out = new Uint8Array(8)
  writeUint32(out, 0, unixSeconds)
  writeUint32(out, 4, value)
  return out
}
