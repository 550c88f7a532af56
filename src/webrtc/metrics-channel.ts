// What travels on the data channel (upstream src/services/webRTC): the caller sends a SingleMetricReq as JSON
// text `{app_id, metrics_name, page, metric_type?, request_id?}`; the daemon answers with that metrics file, raw,
// cut into pieces of 15 000 bytes, each piece framed as a data packet: TLbV entries (1-byte type, 4-byte
// big-endian length, value) of type 5 data, 4 total packets, 3 packet number (from 1), 2 data id — the order
// upstream writes them. Every packet of one answer carries the same data id: the request's `request_id` when it
// has one (so a caller can match answers to requests), else a random one. The first upstream channel served usage
// files only and its requests had no `metric_type`, so a request without one asks for a usage file.
// Upstream logs a bad request and answers nothing; we answer a JSON text message `{status:"ERROR", reason}` so
// the caller is not left waiting (binary = data, text = error).
import { OperationError, isOperationError } from '../bus/index.js'

/** Upstream's piece size: under the 16 KiB that every WebRTC stack delivers as one message. */
export const packetDataBytes = 15_000
/** A request is a short JSON object; anything longer is refused unread. */
export const maxRequestBytes = 4096

export const packetType = { dataId: 2, packetNum: 3, totalPackets: 4, data: 5 } as const

export type MetricType = 'USAGE_METRIC' | 'BUNDLE_METRIC'

export interface MetricsFileRequest {
  app_id: string
  metrics_name: string
  page: number
  metric_type: MetricType
  request_id?: number
}

/** The request in one channel message (text, or binary holding UTF-8 JSON as some clients send). */
export function parseChannelRequest(message: string | Uint8Array): MetricsFileRequest {
  const size = typeof message === 'string' ? Buffer.byteLength(message) : message.byteLength
  if (size > maxRequestBytes) throw new OperationError('invalid_input', `request is longer than ${maxRequestBytes} bytes`)
  const text = typeof message === 'string' ? message : Buffer.from(message).toString('utf8')
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    throw new OperationError('invalid_input', 'request is not JSON (expected {"app_id","metrics_name","page"})')
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new OperationError('invalid_input', 'request must be a JSON object {"app_id","metrics_name","page"}')
  }
  const { app_id, metrics_name, page, metric_type, request_id } = value as Record<string, unknown>
  // Upstream's generic validation: strict typeof per required field, enum membership, optional fields when truthy.
  if (typeof app_id !== 'string' || typeof metrics_name !== 'string' || typeof page !== 'number') {
    throw new OperationError('invalid_input', 'invalid request body')
  }
  const type = metric_type ?? 'USAGE_METRIC'
  if (type !== 'USAGE_METRIC' && type !== 'BUNDLE_METRIC') throw new OperationError('invalid_input', 'invalid request body')
  if (request_id && !(Number.isSafeInteger(request_id) && (request_id as number) > 0 && (request_id as number) <= 0xffffffff)) {
    throw new OperationError('invalid_input', 'request_id must be an integer from 1 to 4294967295 (it becomes the 4-byte data id)')
  }
  return { app_id, metrics_name, page, metric_type: type, ...(request_id ? { request_id: request_id as number } : {}) }
}

/** The packets carrying one file; an empty file is one packet with no data, so every request gets an answer. */
export function dataPackets(file: Uint8Array, dataId: number): Uint8Array[] {
  const total = Math.max(1, Math.ceil(file.byteLength / packetDataBytes))
  const packets: Uint8Array[] = []
  for (let index = 0; index < total; index++) {
    const data = file.subarray(index * packetDataBytes, (index + 1) * packetDataBytes)
    packets.push(
      encodeTlbv([
        { type: packetType.data, value: data },
        { type: packetType.totalPackets, value: uint32(total) },
        { type: packetType.packetNum, value: uint32(index + 1) },
        { type: packetType.dataId, value: uint32(dataId) },
      ]),
    )
  }
  return packets
}

/** The text message answering a request that cannot be served. */
export function channelError(err: unknown): string {
  const reason = isOperationError(err) ? err.message : 'internal error'
  return JSON.stringify({ status: 'ERROR', reason })
}

function encodeTlbv(entries: readonly { type: number; value: Uint8Array }[]): Uint8Array {
  const out = Buffer.alloc(entries.reduce((size, entry) => size + 5 + entry.value.byteLength, 0))
  let at = 0
  for (const { type, value } of entries) {
    out[at] = type
    out.writeUInt32BE(value.byteLength, at + 1)
    out.set(value, at + 5)
    at += 5 + value.byteLength
  }
  return out
}

function uint32(value: number): Uint8Array {
  const out = Buffer.alloc(4)
  out.writeUInt32BE(value >>> 0)
  return out
}
