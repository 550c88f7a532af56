// The checks an offer's fields pass whoever sets them: the user (AddUserOffer, UpdateUserOffer) or a key managing
// the user's offers over CLINK (kind 21003). A refusal names the field, which manage answers as GFY 5 `field`.
import { checkCallbackUrl } from '../callbacks/index.js'
import type { OfferFields } from './offer-store.js'

/** A noffer carries the price in 4 bytes of sats. */
export const maxOfferPriceSats = 0xffffffff
const maxLabelLength = 200
const maxPayerDataKeys = 20
const maxPayerDataKeyLength = 64
const maxTokenLength = 1024

export class OfferFieldError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message)
    this.name = 'OfferFieldError'
  }
}

export interface OfferFieldsInput {
  label: unknown
  price_sats: unknown
  callback_url: unknown
  payer_data: unknown
  token?: unknown
}

/** Checked fields, or OfferFieldError naming the first bad one. Callback URLs pass the SSRF guard. */
export function checkOfferFields(input: OfferFieldsInput, opts: { allowLoopback: boolean }): OfferFields {
  const { label, price_sats: price, callback_url: callbackUrl, payer_data: payerData } = input
  if (typeof label !== 'string' || label.trim() === '' || label.length > maxLabelLength) {
    throw new OfferFieldError('label', `label must be 1 to ${maxLabelLength} characters`)
  }
  const priceSats = price === undefined || price === null ? 0 : price
  if (typeof priceSats !== 'number' || !Number.isSafeInteger(priceSats) || priceSats < 0 || priceSats > maxOfferPriceSats) {
    throw new OfferFieldError('price_sats', `price_sats must be a whole number of sats from 0 to ${maxOfferPriceSats}`)
  }
  const given = callbackUrl === undefined || callbackUrl === null ? '' : callbackUrl
  if (typeof given !== 'string') throw new OfferFieldError('callback_url', 'callback_url must be a URL string')
  let url: string
  try {
    url = checkCallbackUrl(given, opts, 'callback_url')
  } catch (err) {
    throw new OfferFieldError('callback_url', (err as Error).message)
  }
  const keys = payerData === undefined || payerData === null ? [] : payerData
  if (
    !Array.isArray(keys) ||
    keys.length > maxPayerDataKeys ||
    !keys.every(key => typeof key === 'string' && key.length > 0 && key.length <= maxPayerDataKeyLength)
  ) {
    throw new OfferFieldError('payer_data', `payer_data must be a list of at most ${maxPayerDataKeys} names`)
  }
  if (input.token !== undefined && (typeof input.token !== 'string' || input.token.length > maxTokenLength)) {
    throw new OfferFieldError('token', `token must be at most ${maxTokenLength} characters`)
  }
  return {
    label: label.trim(),
    priceSats,
    callbackUrl: url,
    payerData: [...new Set(keys as string[])],
    ...(typeof input.token === 'string' ? { token: input.token } : {}),
  }
}
