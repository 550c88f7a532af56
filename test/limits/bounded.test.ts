// The bounded memos behind the token, app-user, key and signature caches: never more than their capacity, the
// oldest entry dropped first, `touch` keeping a used entry, and a key set again not counted twice. The aged set
// (requests answered here) also forgets what is older than its age.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { AgedSet, BoundedMap, BoundedSet } from '../../src/limits/bounded.js'

const test = suite('bounded memos')

test('a full map drops its oldest entry for a new key, and never holds more than its capacity', () => {
  const memo = new BoundedMap<string, number>(3)
  for (const [i, key] of ['a', 'b', 'c', 'd', 'e'].entries()) memo.set(key, i)
  assert.is(memo.size, 3)
  assert.equal([...memo.keys()], ['c', 'd', 'e'])
})

test('setting a key it already holds replaces the value and drops nothing', () => {
  const memo = new BoundedMap<string, number>(2)
  memo.set('a', 1).set('b', 2).set('a', 3)
  assert.equal([...memo.entries()], [['a', 3], ['b', 2]])
})

test('touch makes an entry the most recent, so the least recently used is dropped', () => {
  const memo = new BoundedMap<string, number>(2)
  memo.set('a', 1).set('b', 2)
  assert.is(memo.touch('a'), 1)
  assert.is(memo.touch('z'), undefined)
  memo.set('c', 3)
  assert.equal([...memo.keys()], ['a', 'c'])
})

test('a set drops its oldest member for a new one, and adding a member it holds drops nothing', () => {
  const seen = new BoundedSet<string>(2)
  seen.add('a').add('b').add('b')
  assert.equal([...seen], ['a', 'b'])
  seen.add('c')
  assert.equal([...seen], ['b', 'c'])
  assert.not.ok(seen.has('a'))
})

test('an aged set forgets a member past its age, keeps a younger one, and adding again restarts the age', () => {
  let now = 0
  const answered = new AgedSet<string>(10, 1000, () => now)
  answered.add('a')
  now = 500
  answered.add('b')
  now = 1000
  assert.ok(answered.has('a'), 'exactly the age: still remembered')
  now = 1001
  assert.not.ok(answered.has('a'), 'past the age: forgotten')
  assert.ok(answered.has('b'))
  answered.add('b')
  now = 2000
  assert.ok(answered.has('b'), 'added again at 1001: young still')
  now = 2002
  assert.not.ok(answered.has('b'))
  assert.is(answered.size, 0)
})

test('an aged set keeps its capacity as the ceiling, oldest out first', () => {
  const answered = new AgedSet<string>(2, Infinity, () => 0)
  answered.add('a').add('b').add('c')
  assert.is(answered.size, 2)
  assert.not.ok(answered.has('a'))
  assert.ok(answered.has('b') && answered.has('c'))
})

test.run()
