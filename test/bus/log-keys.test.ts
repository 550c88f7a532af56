// The scan test/support/daemon.ts runs over every test daemon's log when it stops: a JSON line holding one key
// twice fails the test that started the daemon. This file proves the scan finds what JSON.parse would hide.
import { test } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { duplicateKeyIn, duplicateKeyLines } from '../support/log-keys.js'

test('a key written twice at the top of a line is found, though JSON.parse keeps only one', () => {
  const line = '{"level":30,"room":"relay","room":"relay","msg":"relay listening"}'
  assert.equal(Object.keys(JSON.parse(line)), ['level', 'room', 'msg'])
  assert.is(duplicateKeyIn(line), 'room')
})

test('nested objects are scanned on their own: equal keys in sibling objects are fine, twice in one is not', () => {
  assert.is(duplicateKeyIn('{"a":{"x":1},"b":{"x":2},"list":[{"x":1},{"x":2}]}'), undefined)
  assert.is(duplicateKeyIn('{"a":{"x":1,"y":{"z":1,"z":2}}}'), 'a.y.z')
  assert.is(duplicateKeyIn('{"err":{"type":"Error","message":"m","stack":"s"},"msg":"x"}'), undefined)
})

test('strings that look like keys, escapes and commas inside values do not confuse it', () => {
  assert.is(duplicateKeyIn('{"msg":"\\"room\\":1, \\"room\\":2","room":"a","list":["room","room"]}'), undefined)
  assert.is(duplicateKeyIn('{"a\\"b":1,"a\\"b":2}'), 'a"b')
})

test('only JSON lines are scanned, and each finding names the key and the line', () => {
  const found = duplicateKeyLines('plain text "a":1,"a":2\n{"ok":1}\n{"op":"X","op":"Y"}\n')
  assert.is(found.length, 1)
  assert.match(found[0]!, /^key "op" appears twice in: \{"op":"X"/)
})

test.run()
