// NIP-47's error codes and ours, both ways, from their one table (src/nwc/nip47-errors.ts).
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { OperationError } from '../../src/bus/index.js'
import { NwcError, nip47CodeOf } from '../../src/nwc/nip47-errors.js'

const test = suite('NIP-47 error codes')

test("a method's NwcError keeps its NIP-47 code and carries the nearest of ours", () => {
  const err = new NwcError('QUOTA_EXCEEDED', 'over budget')
  assert.is(err.code, 'limit_exceeded')
  assert.is(nip47CodeOf(err), 'QUOTA_EXCEEDED')
  assert.is(nip47CodeOf(new NwcError('PAYMENT_FAILED', 'no route')), 'PAYMENT_FAILED')
})

test('any other error is answered with the NIP-47 code nearest to its own; the rest is OTHER', () => {
  const cases: [ConstructorParameters<typeof OperationError>[0], string][] = [
    ['unauthenticated', 'UNAUTHORIZED'], ['forbidden', 'RESTRICTED'], ['not_found', 'NOT_FOUND'],
    ['insufficient_balance', 'INSUFFICIENT_BALANCE'], ['limit_exceeded', 'RATE_LIMITED'],
    ['not_implemented', 'NOT_IMPLEMENTED'], ['internal', 'INTERNAL'], ['invalid_input', 'OTHER'], ['conflict', 'OTHER'],
  ]
  for (const [code, nip47] of cases) assert.is(nip47CodeOf(new OperationError(code, 'x')), nip47, code)
})

test("a failure of the node or the route is what the method was doing: PAYMENT_FAILED for a payment", () => {
  for (const code of ['upstream_failed', 'node_unavailable'] as const) {
    assert.is(nip47CodeOf(new OperationError(code, 'x')), 'OTHER')
    assert.is(nip47CodeOf(new OperationError(code, 'x'), 'PAYMENT_FAILED'), 'PAYMENT_FAILED')
  }
  // An invoice already paid or in flight fails a payment too.
  assert.is(nip47CodeOf(new OperationError('conflict', 'x'), 'PAYMENT_FAILED'), 'PAYMENT_FAILED')
})

test.run()
