// The two record kinds the metrics files hold, in upstream's byte layout.
import { encodeTlv, uint32Bytes } from './tlv.js'

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

const flag = (on: boolean) => Uint8Array.of(on ? 1 : 0)

/**
 * 45 bytes: six 4-byte integers and three 1-byte flags. Upstream writes the fields from type 10 down to type 2;
 * the same order here keeps our files byte-identical to theirs for the same values.
 */
export function encodeUsageRecord(record: UsageRecord): Uint8Array {
  return encodeTlv([
    { type: usageField.success, value: flag(record.success) },
    { type: usageField.nostr, value: flag(record.nostr) },
    { type: usageField.batch, value: flag(record.batch) },
    { type: usageField.batchSize, value: uint32Bytes(record.batchSize) },
    { type: usageField.handle, value: uint32Bytes(record.handleUs) },
    { type: usageField.validate, value: uint32Bytes(record.validateUs) },
    { type: usageField.auth, value: uint32Bytes(record.authUs) },
    { type: usageField.parse, value: uint32Bytes(record.parseUs) },
    { type: usageField.processedAt, value: uint32Bytes(record.processedAtSeconds) },
  ])
}

/** One point of a bundle series: unix seconds (4 bytes BE) ‖ value (4 bytes BE). */
export function encodeBundleSample(unixSeconds: number, value: number): Uint8Array {
  const out = new Uint8Array(8)
  out.set(uint32Bytes(unixSeconds), 0)
  out.set(uint32Bytes(value), 4)
  return out
}
