// The payment hash a BOLT11 request names, read from its text alone: bech32 (checksum checked, no signature), then
// the tagged fields up to the first `p` of 52 words (BOLT 11: a 7-word timestamp, then fields of type, 10-bit length
// and data, then a 104-word signature). Only a key to find one of our own invoices, whose stored text must then
// equal the given text: a request that names our hash in any other text is not ours and is decoded in full.
import { bech32, hex } from '@scure/base'

const timestampWords = 7
const signatureWords = 104
const hashType = 1 // `p`
const hashWords = 52

/** The lower-case hex payment hash of a (lower-case) BOLT11 request, or undefined when it names none. */
export function paymentHashInRequest(text: string): string | undefined {
  const decoded = bech32.decodeUnsafe(text, false)
  if (!decoded) return undefined
  const { words } = decoded
  const end = words.length - signatureWords
  for (let at = timestampWords; at + 3 <= end; ) {
    const type = words[at]!
    const length = words[at + 1]! * 32 + words[at + 2]!
    if (type === hashType && length === hashWords && at + 3 + length <= end) {
      const bytes = bech32.fromWordsUnsafe(words.slice(at + 3, at + 3 + length))
      return bytes ? hex.encode(bytes.subarray(0, 32)) : undefined
    }
    at += 3 + length
  }
  return undefined
}
