// The metrics room's ring of failed calls, fed the way the daemon feeds it and read through GetFailedCalls, with a
// small capacity and a manual clock: the bound, the cut of a long reason, the window to the second, and what is
// left out (successes, names outside the catalogue). ./failed-calls.test.ts drives the same through the daemon.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { openMetricsHarness, outcome, startMs, type MetricsHarness } from './harness.js'

const test = suite('the ring of failed calls')
const startUnix = Math.floor(startMs / 1000)
const appId = 'c'.repeat(64)
const appCaller = { kind: 'app' as const, appId }
let h: MetricsHarness

test.before.each(async () => {
  h = await openMetricsHarness({ extra: { failuresKept: 3 } })
})
test.after.each(async () => h.close())

const failure = (op: string, errorMessage: string, errorCode = 'invalid_input') =>
  outcome(op, { ok: false, errorCode, errorMessage, caller: appCaller })

test('keeps the latest failures up to its capacity, newest first, each with its second, app, transport, code and reason', async () => {
  h.outcomes.next(failure('PayAppUserInvoice', 'first'))
  await h.time.advance(1000)
  h.outcomes.next(outcome('GetApp', { caller: appCaller }))
  h.outcomes.next(failure('PayAppUserInvoice', 'second', 'forbidden'))
  await h.time.advance(1000)
  h.outcomes.next(outcome('GetApp', { ok: false, errorCode: 'unauthenticated', errorMessage: 'third', caller: null, transport: 'nostr' }))
  const three = await h.call('GetFailedCalls', {})
  assert.is(three.capacity, 3)
  assert.equal(three.failures, [
    { at_unix: startUnix + 2, operation: 'GetApp', app: '_root', transport: 'nostr', code: 'unauthenticated', message: 'third' },
    { at_unix: startUnix + 1, operation: 'PayAppUserInvoice', app: appId, transport: 'http', code: 'forbidden', message: 'second' },
    { at_unix: startUnix, operation: 'PayAppUserInvoice', app: appId, transport: 'http', code: 'invalid_input', message: 'first' },
  ])

  for (const n of [4, 5]) h.outcomes.next(failure('DecodeInvoice', `number ${n}`))
  const after = await h.call('GetFailedCalls', {})
  assert.equal(after.failures.map((f: { message: string }) => f.message), ['number 5', 'number 4', 'third'], 'the oldest made way')
})

test('a long reason is cut; successes and names outside the catalogue are not kept', async () => {
  h.outcomes.next(failure('PayInvoice', `invalid payment request: ${'x'.repeat(10_000)}`))
  h.outcomes.next(failure('NoSuchOperation', 'unknown operation: NoSuchOperation', 'not_found'))
  h.outcomes.next(outcome('PayInvoice'))
  const [kept, ...others] = (await h.call('GetFailedCalls', {})).failures
  assert.is(others.length, 0)
  assert.is(kept.message.length, 300)
  assert.ok(kept.message.startsWith('invalid payment request: xxx') && kept.message.endsWith('…'), kept.message.slice(0, 40))
})

test('since is inclusive, until exclusive, to the second; limit takes the newest', async () => {
  for (let second = 0; second < 3; second++) {
    h.outcomes.next(failure('PayInvoice', `at ${second}`))
    await h.time.advance(1000)
  }
  const messages = async (input: Record<string, number>) =>
    (await h.call('GetFailedCalls', input)).failures.map((f: { message: string }) => f.message)
  assert.equal(await messages({ since: startUnix + 1 }), ['at 2', 'at 1'])
  assert.equal(await messages({ until: startUnix + 1 }), ['at 0'])
  assert.equal(await messages({ since: startUnix + 1, until: startUnix + 2 }), ['at 1'])
  assert.equal(await messages({ since: startUnix + 3 }), [])
  assert.equal(await messages({ limit: 2 }), ['at 2', 'at 1'])
  assert.equal(await messages({ limit: 1, until: startUnix + 2 }), ['at 1'])
})

test('a reset of the metrics storages forgets the reasons with the counts', async () => {
  await h.restart({ settings: { allow_reset: true } })
  h.outcomes.next(failure('PayInvoice', 'gone after the reset'))
  assert.is((await h.call('GetFailedCalls', {})).failures.length, 1)
  await h.call('ResetMetricsStorages', {})
  assert.equal((await h.call('GetFailedCalls', {})).failures, [])
})

test.run()
