// LUD-01: an lnurl is the bech32 encoding (hrp `lnurl`) of a URL's UTF-8 bytes, written lowercase here.
import { bech32 } from '@scure/base'

/** URLs are longer than bech32's 90-character default limit. */
const maxLength = 2000

export function encodeLnurl(url: string): string {
  return bech32.encode('lnurl', bech32.toWords(new TextEncoder().encode(url)), maxLength)
}

export function decodeLnurl(lnurl: string): string {
  const { prefix, words } = bech32.decode(lnurl.toLowerCase() as `${string}1${string}`, maxLength)
  if (prefix !== 'lnurl') throw new Error(`not an lnurl (prefix ${prefix})`)
  return new TextDecoder().decode(bech32.fromWords(words))
}
