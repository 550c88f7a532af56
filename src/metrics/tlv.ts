// Upstream's metric byte formats: TLV entries of a 1-byte type, a 1-byte length
// and the value; integers are 4 bytes big-endian. A metrics file is a run of list entries (type 64), each holding
// one record: a usage record (TLV types 2–10) or a bundle sample (unix ‖ value, 8 bytes).

/** The TLV type under which a metrics file stores each record. */
export const listEntryType = 64

export interface TlvEntry {
  type: number
  value: Uint8Array
}

/** Encodes entries in the order given; a value longer than 255 bytes cannot be framed and throws. */
export function encodeTlv(entries: readonly TlvEntry[]): Uint8Array {
  let size = 0
  for (const { type, value } of entries) {
    if (!Number.isInteger(type) || type < 0 || type > 255) throw new RangeError(`TLV type ${type} does not fit a byte`)
    if (value.length > 255) throw new RangeError(`TLV value of type ${type} is ${value.length} bytes, above 255`)
    size += 2 + value.length
  }
  const out = new Uint8Array(size)
  let at = 0
  for (const { type, value } of entries) {
    out[at] = type
    out[at + 1] = value.length
    out.set(value, at + 2)
    at += 2 + value.length
  }
  return out
}

export interface DecodedTlv {
  entries: TlvEntry[]
  /** Bytes at the end that do not form a whole entry (a write cut short by a crash). */
  trailingBytes: number
}

/** Decodes entries until the data ends; an incomplete last entry is reported, not thrown. */
export function decodeTlv(data: Uint8Array): DecodedTlv {
  const entries: TlvEntry[] = []
  let at = 0
  while (at < data.length) {
    if (at + 2 > data.length) break
    const length = data[at + 1]!
    if (at + 2 + length > data.length) break
    entries.push({ type: data[at]!, value: data.subarray(at + 2, at + 2 + length) })
    at += 2 + length
  }
  return { entries, trailingBytes: data.length - at }
}

/** Frames records as list entries (type 64): what is appended to a metrics file. */
export function encodeRecordList(records: readonly Uint8Array[]): Uint8Array {
  return encodeTlv(records.map(value => ({ type: listEntryType, value })))
}

/** The records of a metrics file, oldest first; entries of other types are skipped. */
export function decodeRecordList(data: Uint8Array): { records: Uint8Array[]; trailingBytes: number } {
  const { entries, trailingBytes } = decodeTlv(data)
  return { records: entries.filter(entry => entry.type === listEntryType).map(entry => entry.value), trailingBytes }
}

const int32Min = -(2 ** 31)
const uint32Max = 2 ** 32 - 1

/**
 * 4 bytes big-endian. Upstream writes the low 32 bits of the number (so a negative delta reads back, unsigned, as
 * its two's complement); values outside [-2^31, 2^32 - 1] are saturated instead of wrapped around.
 */
export function uint32Bytes(value: number): Uint8Array {
  const out = new Uint8Array(4)
  writeUint32(out, 0, value)
  return out
}

/** `uint32Bytes(value)` written into `out` at `at`, for a record laid out in one array. */
export function writeUint32(out: Uint8Array, at: number, value: number): void {
  const whole = Math.trunc(Number.isFinite(value) ? value : 0)
  const clamped = Math.min(uint32Max, Math.max(int32Min, whole))
  const bits = clamped >>> 0
  // Byte by byte: a DataView per value was ~1.5% of a payment's CPU (eight values per call and per payment).
  out[at] = bits >>> 24
  out[at + 1] = (bits >>> 16) & 0xff
  out[at + 2] = (bits >>> 8) & 0xff
  out[at + 3] = bits & 0xff
}

export function readUint32(bytes: Uint8Array): number {
  if (bytes.length !== 4) throw new RangeError(`expected 4 bytes, got ${bytes.length}`)
  return new DataView(bytes.buffer, bytes.byteOffset, 4).getUint32(0)
}
