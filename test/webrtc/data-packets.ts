// An independent reader of the metrics channel's answers: TLbV entries (1-byte type, 4-byte big-endian length,
// value) of a data packet, and the reassembly of one answer from its packets. Shares no code with src/webrtc.

export interface DataPacket {
  dataId: number
  packetNum: number
  totalPackets: number
  data: Buffer
}

export function decodeDataPacket(bytes: Uint8Array): DataPacket {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const values = new Map<number, Buffer>()
  let at = 0
  while (at < buffer.length) {
    if (at + 5 > buffer.length) throw new Error(`truncated TLbV header at ${at}`)
    const type = buffer[at]!
    const length = buffer.readUInt32BE(at + 1)
    if (at + 5 + length > buffer.length) throw new Error(`truncated TLbV value of type ${type}`)
    if (values.has(type)) throw new Error(`type ${type} twice in one packet`)
    values.set(type, buffer.subarray(at + 5, at + 5 + length))
    at += 5 + length
  }
  const int = (type: number) => {
    const value = values.get(type)
    if (!value || value.length !== 4) throw new Error(`packet has no 4-byte integer of type ${type}`)
    return value.readUInt32BE()
  }
  const data = values.get(5)
  if (!data) throw new Error('packet has no data (type 5)')
  return { dataId: int(2), packetNum: int(3), totalPackets: int(4), data }
}

/** Collects packets until one data id is complete; resolves with its bytes. */
export class AnswerAssembler {
  private readonly parts = new Map<number, Map<number, Buffer>>()
  private readonly waiters: ((answer: { dataId: number; data: Buffer }) => void)[] = []
  readonly errors: string[] = []

  receive(message: string | Buffer): void {
    if (typeof message === 'string') {
      this.errors.push(message)
      return
    }
    const packet = decodeDataPacket(message)
    const parts = this.parts.get(packet.dataId) ?? new Map<number, Buffer>()
    this.parts.set(packet.dataId, parts)
    parts.set(packet.packetNum, packet.data)
    if (parts.size < packet.totalPackets) return
    const data = Buffer.concat([...Array(packet.totalPackets).keys()].map(index => parts.get(index + 1)!))
    this.parts.delete(packet.dataId)
    this.waiters.shift()?.({ dataId: packet.dataId, data })
  }

  next(timeoutMs = 10_000): Promise<{ dataId: number; data: Buffer }> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no complete answer within ${timeoutMs} ms`)), timeoutMs)
      this.waiters.push(answer => {
        clearTimeout(timer)
        resolve(answer)
      })
    })
  }
}
