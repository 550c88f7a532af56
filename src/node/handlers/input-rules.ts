// The rules an operator's request must meet before it reaches the node, whichever backend stands behind it: the
// embedded node checks some of them again, but LND answers with its own (less clear) words, so they live here.
import { OperationError } from '../../bus/index.js'

const txidPattern = /^[0-9a-fA-F]{64}$/
const nodePubkeyPattern = /^0[23][0-9a-fA-F]{64}$/

/** A positive whole number (a channel's funding, a fee rate that must be set). */
export function requirePositive(value: number, field: string): void {
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new OperationError('invalid_input', `${field} must be greater than 0`)
  }
}

/** Zero or more; for fields where 0 means "let the node choose" or "none". */
export function requireNonNegative(value: number, field: string): void {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new OperationError('invalid_input', `${field} must not be negative`)
  }
}

/** A transaction id as Bitcoin prints it: 32 bytes in hex. Returned lower-cased. */
export function requireTxid(value: string, field: string): string {
  if (!txidPattern.test(value)) throw new OperationError('invalid_input', `${field} must be a 64-character hex txid`)
  return value.toLowerCase()
}

export function requireNodePubkey(value: string, field: string): string {
  if (!nodePubkeyPattern.test(value)) {
    throw new OperationError('invalid_input', `${field} must be a 33-byte compressed public key in hex (66 characters)`)
  }
  return value.toLowerCase()
}

/** `funding_txid:output_index`, the way LND names a channel's funding output. */
export function parseChannelPoint(value: string, field: string): { fundingTxid: string; outputIndex: number } {
  const parts = /^([0-9a-fA-F]{64}):(\d{1,10})$/.exec(value)
  const outputIndex = parts ? Number(parts[2]) : NaN
  if (!parts || outputIndex > 0xffffffff) {
    throw new OperationError('invalid_input', `${field} must look like <funding txid>:<output index>`)
  }
  return { fundingTxid: parts[1].toLowerCase(), outputIndex }
}

