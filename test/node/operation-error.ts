// Asserting that a node call fails the way a caller would see it: an OperationError with a code and a message.
import * as assert from 'uvu/assert'
import { isOperationError, type ErrorCode } from '../../src/bus/errors.js'

export async function rejectsWith(promise: Promise<unknown>, code: ErrorCode, message?: string | RegExp) {
  let error: unknown
  try {
    await promise
  } catch (err) {
    error = err
  }
  if (error === undefined) assert.unreachable(`expected an OperationError ${code}, but the call succeeded`)
  if (!isOperationError(error)) throw error
  assert.is(error.code, code, `code of "${error.message}"`)
  if (typeof message === 'string') assert.is(error.message, message)
  else if (message) assert.match(error.message, message)
}
