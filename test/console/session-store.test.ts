// The console's session store and wrong-token wait on their own, on a clock the test moves: a session is
// short-lived (it ends after the idle time unless a request renews it), and the wait after wrong tokens doubles
// per address up to 30 s and is cleared by the right token. (The HTTP side is in session.test.ts.)
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { createSessionStore, createSignInBackoff } from '../../src/console/sessions.js'

const store = suite('console session store')
const minute = 60_000

store('a session ends after the idle time; each use renews it; sign-out ends it at once', () => {
  const sessions = createSessionStore(30 * minute)
  const opened = sessions.open(0)
  assert.is(sessions.find(opened.id, 29 * minute)?.id, opened.id, 'used at minute 29: renewed until minute 59')
  assert.is(sessions.find(opened.id, 58 * minute)?.id, opened.id)
  assert.is(sessions.find(opened.id, 58 * minute + 30 * minute), undefined, '30 minutes without a request: gone')
  assert.is(sessions.find(opened.id, 0), undefined, 'and it stays gone')
  const other = sessions.open(0)
  sessions.close(other.id)
  assert.is(sessions.find(other.id, 1), undefined)
  assert.is(sessions.find(undefined, 1), undefined)
  assert.is(sessions.find('made-up', 1), undefined)
})

store('every session has its own random id and CSRF token', () => {
  const sessions = createSessionStore(minute)
  const a = sessions.open(0)
  const b = sessions.open(0)
  assert.is.not(a.id, b.id)
  assert.is.not(a.csrf, b.csrf)
  assert.ok(a.id.length >= 40 && a.csrf.length >= 30)
})

store('wrong tokens: the wait doubles per address up to 30 s; the right token clears it; other addresses never wait', () => {
  const backoff = createSignInBackoff()
  const waits = [1, 2, 3, 4, 5, 6, 7, 8].map(() => backoff.failed('203.0.113.9', 0))
  assert.equal(waits, [500, 1000, 2000, 4000, 8000, 16000, 30000, 30000])
  assert.is(backoff.waitMs('203.0.113.9', 10_000), 20_000)
  assert.is(backoff.waitMs('198.51.100.7', 10_000), 0, 'the operator elsewhere is not held up')
  backoff.succeeded('203.0.113.9')
  assert.is(backoff.waitMs('203.0.113.9', 10_000), 0)
  assert.is(backoff.failed('203.0.113.9', 10_000), 500, 'counting starts over')
})

store.run()
