// Amounts entering the wallet from the wire: whole sats there, integer msat inside. Every conversion refuses what
// would not stay exact (JS numbers are exact up to 2^53 msat).
import { OperationError } from '../bus/index.js'
import { msatPerSat } from '../units/index.js'

/** `sats` from a request as msat; refuses zero, negative, fractional and unsafe amounts. */
export function positiveSatsAsMsat(sats: number, field: string): number {
  if (!Number.isSafeInteger(sats)) throw new OperationError('invalid_input', `${field} must be a whole number of sats`)
  if (sats <= 0) throw new OperationError('invalid_input', `${field} must be greater than 0`)
  const msat = sats * msatPerSat
  if (!Number.isSafeInteger(msat)) throw new OperationError('invalid_input', `${field} is too large`)
  return msat
}

/** Like positiveSatsAsMsat, but 0 is allowed (a balance set to zero). */
export function nonNegativeSatsAsMsat(sats: number, field: string): number {
  if (sats < 0) throw new OperationError('invalid_input', `${field} must not be negative`)
  return sats === 0 ? 0 : positiveSatsAsMsat(sats, field)
}
