// What a person pasted into Send: a BOLT11 invoice (with or without `lightning:`), an LNURL, a Lightning address, or
// something else, each refused with what to do instead.

export type Destination =
  | { kind: 'invoice'; invoice: string }
  | { kind: 'lnurl' | 'address' | 'unknown'; problem: string }

/** BOLT11: `ln`, a network prefix (bc, tb, tbs, bcrt, sb), an optional amount, then bech32 data. */
const bolt11 = /^ln(bc|tbs|tb|bcrt|sb)[0-9]*[munp]?1[02-9ac-hj-np-z]{50,}$/
const lnurl = /^lnurl1[02-9ac-hj-np-z]+$/
const lightningAddress = /^[a-z0-9._+-]+@[a-z0-9-]+(\.[a-z0-9-]+)+$/

const notYet =
  'is not something this page can pay yet: ask the recipient for a Lightning invoice (it starts with lnbc…) and paste that.'

export function classifyDestination(pasted: string): Destination {
  const text = pasted.trim().replace(/^lightning:/i, '').toLowerCase()
  if (text === '') return { kind: 'unknown', problem: 'Paste a Lightning invoice to pay (it starts with lnbc…).' }
  if (bolt11.test(text)) return { kind: 'invoice', invoice: text }
  if (lnurl.test(text)) return { kind: 'lnurl', problem: `An LNURL ${notYet}` }
  if (lightningAddress.test(text)) return { kind: 'address', problem: `A Lightning address (${text}) ${notYet}` }
  if (text.startsWith('ln')) {
    return { kind: 'unknown', problem: 'This looks like a Lightning invoice but it is incomplete or damaged: copy the whole invoice again.' }
  }
  return {
    kind: 'unknown',
    problem: 'That is not a Lightning invoice, an LNURL or a Lightning address. An invoice starts with lnbc…; paste the whole of it.',
  }
}
