// NIP-47's error codes and ours, both ways, in one place: a method throws NwcError in NIP-47's words (its nearest
// code of ours rides along for metrics and access lines), and any other OperationError is answered with the NIP-47
// code nearest to its own.
import { OperationError, type ErrorCode } from '../bus/index.js'

/** NIP-47 error codes. */
export type NwcErrorCode =
  | 'RATE_LIMITED' | 'NOT_IMPLEMENTED' | 'INSUFFICIENT_BALANCE' | 'QUOTA_EXCEEDED' | 'RESTRICTED' | 'UNAUTHORIZED'
  | 'INTERNAL' | 'UNSUPPORTED_ENCRYPTION' | 'OTHER' | 'PAYMENT_FAILED' | 'NOT_FOUND'

/** The nearest of our own codes (metrics, access lines); the NIP-47 code rides along as `wireCode`. */
const ownCode: Record<NwcErrorCode, ErrorCode> = {
  RATE_LIMITED: 'limit_exceeded', NOT_IMPLEMENTED: 'not_implemented', INSUFFICIENT_BALANCE: 'insufficient_balance',
  QUOTA_EXCEEDED: 'limit_exceeded', RESTRICTED: 'forbidden', UNAUTHORIZED: 'unauthenticated', INTERNAL: 'internal',
  UNSUPPORTED_ENCRYPTION: 'invalid_input', OTHER: 'invalid_input', PAYMENT_FAILED: 'upstream_failed', NOT_FOUND: 'not_found',
}

/** Our error codes in NIP-47's words, for errors that carry no NIP-47 code of their own. */
const nip47Code: Partial<Record<ErrorCode, NwcErrorCode>> = {
  unauthenticated: 'UNAUTHORIZED',
  forbidden: 'RESTRICTED',
  not_found: 'NOT_FOUND',
  insufficient_balance: 'INSUFFICIENT_BALANCE',
  limit_exceeded: 'RATE_LIMITED',
  not_implemented: 'NOT_IMPLEMENTED',
  internal: 'INTERNAL',
}

/** An OperationError that answers in NIP-47's words: the 23194 codec sends `wireCode` as the error code. */
export class NwcError extends OperationError {
  constructor(nwcCode: NwcErrorCode, message: string) {
    super(ownCode[nwcCode], message, { wireCode: nwcCode })
    this.name = 'NwcError'
  }
}

/**
 * The NIP-47 code an error is answered with: its own when it carries one, else the nearest to its code. A failure
 * of the node or of the payment's route is `upstream`: what the method was doing when it failed (PAYMENT_FAILED
 * for a payment, where a conflict — the invoice already paid or in flight — is one too).
 */
export function nip47CodeOf(err: OperationError, upstream: NwcErrorCode = 'OTHER'): NwcErrorCode {
  if (err.wireCode) return err.wireCode as NwcErrorCode
  if (err.code === 'upstream_failed' || err.code === 'node_unavailable') return upstream
  if (err.code === 'conflict' && upstream === 'PAYMENT_FAILED') return 'PAYMENT_FAILED'
  return nip47Code[err.code] ?? 'OTHER'
}
