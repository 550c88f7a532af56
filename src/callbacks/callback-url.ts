// A paid-invoice callback URL as a caller hands it to us (UpdateCallbackUrl, AddAppInvoice, AddAppUserInvoice, a
// CLINK offer), checked by the guard when it is given, so a refused one is an error to that caller rather than a
// silent drop once the invoice is paid. The call itself checks again, on the address it connects to.
import { OperationError } from '../bus/index.js'
import { checkOutboundUrl, type GuardOptions } from './outbound-guard.js'

/** Upstream stores at most this much of a callback URL template. */
const maxCallbackUrlLength = 2048

/**
 * The trimmed URL ('' for none), or `invalid_input` naming what is wrong. The URL may be an RFC 6570 template
 * (`…/paid{?amount}`): it is checked with its variables filled in.
 */
export function checkCallbackUrl(text: string, guard: GuardOptions, field: string): string {
  const url = text.trim()
  if (url === '') return ''
  if (url.length > maxCallbackUrlLength) throw new OperationError('invalid_input', `${field}: at most ${maxCallbackUrlLength} characters`)
  checkOutboundUrl(url.replace(/\{[^}]*\}/g, 'x'), guard)
  return url
}
