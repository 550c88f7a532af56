// When a BOLT11 invoice expires, read in the browser from the invoice itself: its timestamp (the first 35 bits
// of the bech32 data) plus its `x` field (default 3600 s, BOLT 11). Only these two fields are read; the page
// trusts the server for everything else.
const charset = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l'

/** Milliseconds since the epoch at which the invoice expires, or undefined for text that is not an invoice. */
export function invoiceExpiresAt(invoice: string): number | undefined {
  const text = invoice.toLowerCase()
  const separator = text.lastIndexOf('1')
  if (!text.startsWith('ln') || separator < 0) return undefined
  const words: number[] = []
  for (const c of text.slice(separator + 1)) {
    const word = charset.indexOf(c)
    if (word < 0) return undefined
    words.push(word)
  }
  // Data = timestamp (7 words) ‖ tagged fields ‖ signature (104 words) ‖ checksum (6 words).
  const fieldsEnd = words.length - 104 - 6
  if (fieldsEnd < 7) return undefined
  const number = (from: number, count: number) => words.slice(from, from + count).reduce((n, w) => n * 32 + w, 0)
  const timestamp = number(0, 7)
  let expiry = 3600
  for (let at = 7; at + 3 <= fieldsEnd; ) {
    const type = words[at]!
    const length = number(at + 1, 2)
    if (type === charset.indexOf('x')) expiry = number(at + 3, length)
    at += 3 + length
  }
  return (timestamp + expiry) * 1000
}
