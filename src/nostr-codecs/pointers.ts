// CLINK pointers: bech32 strings (limit 5000 characters) carrying
// type-length-value records. Written in descending type order, as the CLINK SDK (and so upstream) writes them, so
// that a pointer is the same string whoever encodes it; decoding does not depend on the order.
import { bech32 } from '@scure/base'
import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js'

/** Upstream's bech32 length limit for pointers, far above BIP-173's 90. */
const maxPointerLength = 5000

export type OfferPriceType = 'fixed' | 'variable' | 'spontaneous'
const priceTypeByte: Record<OfferPriceType, number> = { fixed: 0, variable: 1, spontaneous: 2 }

export interface OfferPointer {
  pubkey: string
  relay: string
  offer: string
  priceType: OfferPriceType
  priceSats?: number
}

export interface AccessPointer {
  pubkey: string
  relay: string
  pointer?: string
}

type Tlv = Map<number, Uint8Array>

const utf8 = new TextEncoder()
const fromUtf8 = new TextDecoder('utf-8', { fatal: true })

export function encodeNoffer(p: OfferPointer): string {
  const records: [number, Uint8Array][] = [
    [0, hexToBytes(p.pubkey)],
    [1, utf8.encode(p.relay)],
    [2, utf8.encode(p.offer)],
    [3, Uint8Array.of(priceTypeByte[p.priceType])],
  ]
  if (p.priceSats !== undefined) {
    if (!Number.isInteger(p.priceSats) || p.priceSats < 0 || p.priceSats > 0xffffffff) {
      throw new RangeError('an offer price must fit in 4 bytes of sats')
    }
    const price = new Uint8Array(4)
    new DataView(price.buffer).setUint32(0, p.priceSats)
    records.push([4, price])
  }
  return encode('noffer', records)
}

export function decodeNoffer(text: string): OfferPointer {
  const tlv = decode('noffer', text)
  const price = tlv.get(4)
  // The spec makes the price type optional: without it (and without a price) the payer picks the amount.
  const typeByte = tlv.get(3)?.[0] ?? (price ? priceTypeByte.fixed : priceTypeByte.spontaneous)
  const priceType = (Object.keys(priceTypeByte) as OfferPriceType[]).find(k => priceTypeByte[k] === typeByte)
  if (!priceType) throw new Error(`noffer: unknown price type ${typeByte}`)
  return {
    pubkey: pubkeyOf(tlv),
    relay: fromUtf8.decode(need(tlv, 1, 'relay')),
    offer: fromUtf8.decode(need(tlv, 2, 'offer id')),
    priceType,
    ...(price && price.length === 4 ? { priceSats: new DataView(price.buffer, price.byteOffset).getUint32(0) } : {}),
  }
}

export const encodeNdebit = (p: AccessPointer) => encode('ndebit', accessRecords(p))
export const encodeNmanage = (p: AccessPointer) => encode('nmanage', accessRecords(p))
export const decodeNdebit = (text: string) => decodeAccess('ndebit', text)
export const decodeNmanage = (text: string) => decodeAccess('nmanage', text)

function accessRecords(p: AccessPointer): [number, Uint8Array][] {
  const records: [number, Uint8Array][] = [
    [0, hexToBytes(p.pubkey)],
    [1, utf8.encode(p.relay)],
  ]
  if (p.pointer !== undefined) records.push([2, utf8.encode(p.pointer)])
  return records
}

function decodeAccess(hrp: string, text: string): AccessPointer {
  const tlv = decode(hrp, text)
  const pointer = tlv.get(2)
  return {
    pubkey: pubkeyOf(tlv),
    relay: fromUtf8.decode(need(tlv, 1, 'relay')),
    ...(pointer ? { pointer: fromUtf8.decode(pointer) } : {}),
  }
}

function encode(hrp: string, records: [number, Uint8Array][]): string {
  const size = records.reduce((sum, [, value]) => sum + 2 + value.length, 0)
  const bytes = new Uint8Array(size)
  let at = 0
  for (const [type, value] of [...records].sort((a, b) => b[0] - a[0])) {
    if (value.length > 255) throw new RangeError(`${hrp}: record ${type} is longer than 255 bytes`)
    bytes[at++] = type
    bytes[at++] = value.length
    bytes.set(value, at)
    at += value.length
  }
  return bech32.encode(hrp, bech32.toWords(bytes), maxPointerLength)
}

function decode(hrp: string, text: string): Tlv {
  const decoded = bech32.decode(text as `${string}1${string}`, maxPointerLength)
  if (decoded.prefix !== hrp) throw new Error(`expected a ${hrp} pointer, got ${decoded.prefix}`)
  const bytes = bech32.fromWords(decoded.words)
  const tlv: Tlv = new Map()
  for (let at = 0; at < bytes.length; ) {
    if (at + 2 > bytes.length) throw new Error(`${hrp}: truncated record`)
    const type = bytes[at]!
    const length = bytes[at + 1]!
    if (at + 2 + length > bytes.length) throw new Error(`${hrp}: record ${type} runs past the end`)
    if (!tlv.has(type)) tlv.set(type, bytes.slice(at + 2, at + 2 + length))
    at += 2 + length
  }
  return tlv
}

function need(tlv: Tlv, type: number, what: string): Uint8Array {
  const value = tlv.get(type)
  if (!value) throw new Error(`pointer lacks its ${what}`)
  return value
}

function pubkeyOf(tlv: Tlv): string {
  const key = need(tlv, 0, 'pubkey')
  if (key.length !== 32) throw new Error('pointer pubkey must be 32 bytes')
  return bytesToHex(key)
}

/** An account's three pointers: its default offer (its identifier, an amount the payer chooses), debit and manage. */
export function encodeAccountPointers(appPubkey: string, relay: string, identifier: string): { noffer: string; ndebit: string; nmanage: string } {
  const pointer = { pubkey: appPubkey, relay, pointer: identifier }
  return {
    noffer: encodeNoffer({ pubkey: appPubkey, relay, offer: identifier, priceType: 'spontaneous' }),
    ndebit: encodeNdebit(pointer),
    nmanage: encodeNmanage(pointer),
  }
}
