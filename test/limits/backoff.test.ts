// Retry delays that double (src/limits/backoff.ts), as the rooms that retry use them: the first wait, doubling,
// the cap, and a run of failures so long the doubling overflows.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { doublingDelayMs } from '../../src/limits/index.js'

const test = suite('retry delays')

test('a retry delay starts at its first wait, doubles with each retry and stops at its cap', () => {
  assert.equal(
    [0, 1, 2, 3, 4, 5, 6].map(attempt => doublingDelayMs(attempt, 1000, 30_000)),
    [1000, 2000, 4000, 8000, 16_000, 30_000, 30_000],
  )
  // Callers that count from 1 pass attempt - 1: the first retry waits the first delay, never less.
  assert.is(doublingDelayMs(-1, 100, 5000), 100)
  // However long the run of failures, the cap holds (2 ** 2000 is Infinity).
  assert.is(doublingDelayMs(2000, 1000, 60_000), 60_000)
})

test.run()
