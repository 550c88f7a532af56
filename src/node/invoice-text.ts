// What a text handed in as a BOLT11 invoice is, when it is not one (or not one of this node's network), said so that
// a person knows what to do with it. Both backends ask this before decoding: LND and the decoder alike would call
// an LNURL "an invoice not for the current network" (its `lnurl1` prefix reads as the network "url").
import { OperationError } from '../bus/index.js'

/** The bech32 prefix of each network's invoices, longest first (bcrt before bc). */
const invoiceNetworks: [prefix: string, name: string][] = [
  ['bcrt', 'regtest'],
  ['tbs', 'signet'],
  ['bc', 'mainnet'],
  ['tb', 'testnet'],
  ['sb', 'simnet'],
]

/**
 * Throws invalid_input with a reason a person can act on when `text` is plainly not a BOLT11 invoice for the
 * network `network` (an LNURL, a Lightning address, a BOLT12 offer, a bitcoin address, another network's invoice,
 * nothing at all); returns when it may be one, for the decoder to check.
 */
export function refuseNonInvoice(text: string, network: string): void {
  const request = text.trim().toLowerCase().replace(/^lightning:/, '')
  const refuse = (why: string): never => {
    throw new OperationError('invalid_input', why)
  }
  if (request === '') refuse('invalid payment request: no invoice was given')
  if (/^lnurl1[0-9a-z]+$/.test(request)) {
    refuse('invalid payment request: this is an LNURL, not an invoice; ask its service for an invoice first (LNURL-pay)')
  }
  if (/^[a-z0-9._+-]+@[a-z0-9.-]+\.[a-z]{2,}$/.test(request)) {
    refuse('invalid payment request: this is a Lightning address, not an invoice; ask it for an invoice first (LNURL-pay)')
  }
  if (/^ln[oi]1/.test(request)) refuse('invalid payment request: this is a BOLT12 offer or invoice; relaypay pays BOLT11 invoices (ln…)')
  if (/^bitcoin:|^(bc|tb|bcrt)1[02-9ac-hj-np-z]{8,}$|^[123mn][1-9a-hj-np-za-km-z]{25,34}$/.test(request)) {
    refuse('invalid payment request: this is a bitcoin address, not a Lightning invoice; it is paid on chain')
  }
  if (!request.startsWith('ln')) refuse('invalid payment request: a Lightning invoice starts with "ln" (lnbc… on mainnet)')
  const found = invoiceNetworks.find(([prefix]) => new RegExp(`^ln${prefix}(\\d+[munp]?)?1`).test(request))
  if (!found) refuse('invalid payment request: not a BOLT11 invoice of any bitcoin network')
  // LND's words first (clients may match them), then which network the invoice is for.
  if (found![1] !== network) refuse(`invoice not for current active network '${network}': it is a ${found![1]} invoice`)
}
