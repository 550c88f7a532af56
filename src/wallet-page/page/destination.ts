// What a person pasted or scanned into Send: a BOLT11 invoice, an LNURL or a Lightning address (each with or without
// `lightning:`), or something else, refused with what to do instead.

export type Destination =
  | { kind: 'invoice'; invoice: string }
  | { kind: 'lnurl' | 'address'; destination: string }
  | { kind: 'unknown'; problem: string }

/** BOLT11: `ln`, a network prefix (bc, tb, tbs, bcrt, sb), an optional amount, then bech32 data. */
const bolt11 = /^ln(bc|tbs|tb|bcrt|sb)[0-9]*[munp]?1[02-9ac-hj-np-z]{50,}$/
const lnurl = /^lnurl1[02-9ac-hj-np-z]+$/
/** LUD-16 `name@domain` (a port is allowed, for a server on a test machine). */
const lightningAddress = /^[a-z0-9._+-]+@[a-z0-9-]+(\.[a-z0-9-]+)*(:\d+)?$/

/**
 * The part of a scanned or pasted text this page can pay: without a `lightning:` prefix, and for a BIP21 URI
 * (`bitcoin:<address>?amount=…&lightning=<invoice>`, a "unified" QR code) its `lightning` parameter.
 * A `bitcoin:` URI without one is left whole, for classifyDestination to refuse in words.
 */
export function lightningPartOf(scannedOrPasted: string): string {
  const text = scannedOrPasted.trim()
  if (/^bitcoin:/i.test(text)) {
    const query = text.indexOf('?')
    if (query < 0) return text
    for (const [key, value] of new URLSearchParams(text.slice(query + 1))) {
      if (key.toLowerCase() === 'lightning' && value.trim() !== '') return value.trim().replace(/^lightning:/i, '')
    }
    return text
  }
  return text.replace(/^lightning:/i, '')
}

export function classifyDestination(pasted: string): Destination {
  const text = lightningPartOf(pasted).toLowerCase()
  if (text === '') return { kind: 'unknown', problem: 'Paste a Lightning invoice, an LNURL or a Lightning address to pay.' }
  if (bolt11.test(text)) return { kind: 'invoice', invoice: text }
  if (lnurl.test(text)) return { kind: 'lnurl', destination: text }
  if (lightningAddress.test(text) && text.split('@')[1]!.includes('.')) return { kind: 'address', destination: text }
  if (text.startsWith('bitcoin:')) {
    return { kind: 'unknown', problem: 'This is an on-chain Bitcoin address with no Lightning invoice in it, and this page pays over Lightning only. Ask for a Lightning invoice.' }
  }
  if (text.startsWith('ln')) {
    return { kind: 'unknown', problem: 'This looks like a Lightning invoice or LNURL but it is incomplete or damaged: copy the whole of it again.' }
  }
  return {
    kind: 'unknown',
    problem: 'That is not a Lightning invoice, an LNURL or a Lightning address. An invoice starts with lnbc…, an LNURL with lnurl1…, an address looks like name@example.com.',
  }
}
