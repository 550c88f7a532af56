// Fuzzes every extension, host and model-registry operation (the detail dialect: status codes with {detail}) over
// HTTP with generated bad input.
import { httpFuzzSuite } from '../support/fuzz/http-suite.js'

httpFuzzSuite({
  name: 'fuzzing the extension, host and model operations over HTTP',
  share: entry => entry.dialect === 'detail',
  requests: 40_000,
  seed: 1402,
  timeLimitSeconds: 120,
})
