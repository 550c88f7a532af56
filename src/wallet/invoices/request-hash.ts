// The payment hash a BOLT11 request names, read from its text alone: the data part's 5-bit words (BOLT 11: a 7-word
// timestamp, then fields of type, 10-bit length and data, then a 104-word signature and the 6-character checksum),
// up to the first `p` field of 52 words. Neither the checksum nor the signature is checked, on purpose: this is only
// the key to one of our own invoices, whose stored text must then equal the given text character for character, so
// a text with a bad checksum can find nothing. A request that names our hash in any other text is not ours and is
// decoded in full. Checking the checksum here (bech32 with @scure/base) was 2.5 % of an internal payment's CPU.

const charset = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l'
const hexDigits = '0123456789abcdef'
const timestampWords = 7
const signatureWords = 104
const checksumChars = 6
const hashType = 1 // `p`
const hashWords = 52

/** The 5-bit value of each lower-case bech32 character; -1 for any other. */
const wordOf = new Int8Array(128).fill(-1)
for (let i = 0; i < charset.length; i++) wordOf[charset.charCodeAt(i)] = i
const word = (text: string, at: number): number => {
  const code = text.charCodeAt(at)
  return code < 128 ? wordOf[code]! : -1
}

/** The lower-case hex payment hash of a lower-case BOLT11 request, or undefined when it names none. */
export function paymentHashInRequest(text: string): string | undefined {
  const separator = text.lastIndexOf('1')
  if (separator < 1) return undefined
  const end = text.length - checksumChars - signatureWords
  for (let at = separator + 1 + timestampWords; at + 3 <= end; ) {
    const type = word(text, at)
    const high = word(text, at + 1)
    const low = word(text, at + 2)
    if (type < 0 || high < 0 || low < 0) return undefined
    const length = high * 32 + low
    if (type === hashType && length === hashWords) return at + 3 + length <= end ? hashAt(text, at + 3) : undefined
    at += 3 + length
  }
  return undefined
}

/** 52 words from `at` as 64 hex digits (the 256 bits of the hash; the last 4 bits are padding). */
function hashAt(text: string, at: number): string | undefined {
  let hex = ''
  let bits = 0
  let value = 0
  for (let i = at; i < at + hashWords; i++) {
    const w = word(text, i)
    if (w < 0) return undefined
    value = ((value << 5) | w) & 0xff
    bits += 5
    while (bits >= 4) {
      bits -= 4
      hex += hexDigits[(value >> bits) & 15]
    }
  }
  return hex.slice(0, 64)
}
