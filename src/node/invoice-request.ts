// The rules every backend applies to an invoice request, so the embedded node and LND refuse the same requests
// with the same words.
import { OperationError } from '../bus/index.js'
import type { CreateInvoiceRequest } from './lightning-node.js'

/** Upstream's default and cap. */
export const defaultExpirySeconds = 3600
/** A BOLT11 `d` field longer than this no longer fits the 10-bit data length of a tagged field. */
export const maxDescriptionBytes = 639

export interface InvoiceFields {
  amountMsat?: number
  description?: string
  descriptionHash?: string
  expirySeconds: number
}

export function validInvoiceRequest(request: CreateInvoiceRequest): InvoiceFields {
  const { amountMsat, description, descriptionHash } = request
  const expirySeconds = request.expirySeconds ?? defaultExpirySeconds
  if (amountMsat !== undefined && (!Number.isSafeInteger(amountMsat) || amountMsat < 0)) {
    throw new OperationError('invalid_input', 'amountMsat must be a non-negative integer')
  }
  if (!Number.isSafeInteger(expirySeconds) || expirySeconds <= 0) {
    throw new OperationError('invalid_input', 'expirySeconds must be a positive integer')
  }
  if (description !== undefined && descriptionHash !== undefined) {
    throw new OperationError('invalid_input', 'an invoice has either a description or a description hash, not both')
  }
  if (descriptionHash !== undefined && !/^[0-9a-fA-F]{64}$/.test(descriptionHash)) {
    throw new OperationError('invalid_input', 'descriptionHash must be 32 bytes of hex')
  }
  if (description !== undefined && Buffer.byteLength(description, 'utf8') > maxDescriptionBytes) {
    throw new OperationError('invalid_input', `description is too long: at most ${maxDescriptionBytes} bytes`)
  }
  return {
    ...(amountMsat ? { amountMsat } : {}),
    ...(descriptionHash !== undefined ? { descriptionHash: descriptionHash.toLowerCase() } : { description }),
    expirySeconds,
  }
}
