// Fuzzes every payments operation (upstream's dialect: 200 with {status, reason}) over HTTP with generated bad input.
import { httpFuzzSuite } from '../support/fuzz/http-suite.js'

httpFuzzSuite({
  name: 'fuzzing the payments operations over HTTP',
  share: entry => entry.dialect === 'pub',
  requests: 52_000,
  seed: 1401,
  timeLimitSeconds: 120,
})
