// The token buckets behind the guest limits (src/limits/rate-limit.ts): a burst, then one token per refill interval,
// the wait until the next one, and the key a client address is counted under (IPv6 per /64); and the bus's refusal
// when a bucket is empty.
import { test } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { RateLimiter, addressKey } from '../../src/limits/rate-limit.js'
import { isOperationError, takeOrRefuse } from '../../src/bus/errors.js'

test('a burst, then one token per interval; a refused take takes nothing', () => {
  const limiter = new RateLimiter({ perMinute: 4, burst: 3 })
  for (let i = 0; i < 3; i++) assert.is(limiter.take('a', 0), 0)
  assert.is(limiter.take('a', 0), 15_000) // 4 a minute: the next token in 15 s
  assert.is(limiter.take('a', 10_000), 5_000)
  assert.is(limiter.take('a', 15_000), 0)
  assert.is(limiter.take('b', 15_000), 0) // keys do not share
  assert.is(limiter.take('a', 15_000 + 60_000 * 10), 0) // refilled, but never above the burst
  assert.is(limiter.take('a', 15_000 + 60_000 * 10), 0)
  assert.is(limiter.take('a', 15_000 + 60_000 * 10), 0)
  assert.ok(limiter.take('a', 15_000 + 60_000 * 10) > 0)
})

test('takeOrRefuse: limit_exceeded, 429, Retry-After in whole seconds', () => {
  const limiter = new RateLimiter({ perMinute: 30, burst: 1 })
  takeOrRefuse(limiter, 'x', 0, 'tests')
  try {
    takeOrRefuse(limiter, 'x', 500, 'tests')
    assert.unreachable('refused')
  } catch (err) {
    assert.ok(isOperationError(err))
    assert.is(err.code, 'limit_exceeded')
    assert.is(err.status, 429)
    assert.is(err.retryAfterSeconds, 2) // 1.5 s, rounded up
    assert.is(err.message, 'too many requests: tests; try again in 2 s')
  }
})

test('a full memo forgets the least recently seen key first', () => {
  const limiter = new RateLimiter({ perMinute: 1, burst: 1 }, 2)
  limiter.take('a', 0)
  limiter.take('b', 0)
  limiter.take('a', 0) // refused, but seen: 'b' is now the oldest
  limiter.take('c', 0)
  assert.ok(limiter.take('a', 0) > 0, 'a is still remembered')
  assert.is(limiter.take('b', 0), 0, 'b was forgotten: a fresh bucket')
})

test('asking how long a key must wait takes nothing from its bucket', () => {
  const limiter = new RateLimiter({ perMinute: 60, burst: 2 })
  assert.is(limiter.waitMs('a', 0), 0, 'an unseen key has a full bucket')
  for (let i = 0; i < 5; i++) assert.is(limiter.waitMs('a', 0), 0, 'still full after asking')
  limiter.take('a', 0)
  limiter.take('a', 0)
  assert.is(limiter.waitMs('a', 0), 1000, 'empty: one token a second')
  assert.is(limiter.waitMs('a', 400), 600)
  assert.is(limiter.waitMs('a', 1000), 0, 'refilled')
  assert.is(limiter.take('a', 1000), 0)
})

test('client addresses: IPv4 as is (also IPv4-mapped), IPv6 per /64', () => {
  assert.is(addressKey('203.0.113.7'), '203.0.113.7')
  assert.is(addressKey('::ffff:203.0.113.7'), '203.0.113.7')
  assert.is(addressKey('2001:db8:1:2:3:4:5:6'), '2001:db8:1:2::/64')
  assert.is(addressKey('2001:db8:1:2::9'), '2001:db8:1:2::/64')
  assert.is(addressKey('2001:DB8:0001:0002:ffff::1'), '2001:db8:1:2::/64')
  assert.is(addressKey('2001:db8::1'), '2001:db8:0:0::/64')
  assert.is(addressKey('::1'), '0:0:0:0::/64')
  assert.is(addressKey('fe80::1%eth0'), 'fe80:0:0:0::/64')
  assert.is(addressKey(undefined), 'unknown')
})

test.run()
