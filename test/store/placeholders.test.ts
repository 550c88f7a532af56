// One placeholder style for both engines: `?` and `@name` rewritten to PostgreSQL's $n once per text,
// leaving literals, quoted names, comments, casts and operators alone.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { pgValues, toPgStatement } from '../../src/store/placeholders.js'

const test = suite('placeholders for PostgreSQL')

test('? becomes $1, $2, … in order; the values go as given', () => {
  const s = toPgStatement('UPDATE t SET a = ? WHERE b = ? AND c >= ?')
  assert.is(s.text, 'UPDATE t SET a = $1 WHERE b = $2 AND c >= $3')
  assert.equal(pgValues(s, [1, 'x', 2n ** 60n]), [1, 'x', '1152921504606846976'])
})

test('@name becomes one $n per distinct name, reused where the name repeats', () => {
  const s = toPgStatement('SELECT * FROM t WHERE a = @a OR b = @b OR c = @a')
  assert.is(s.text, 'SELECT * FROM t WHERE a = $1 OR b = $2 OR c = $1')
  assert.equal(pgValues(s, { b: 2, a: 1, unused: 3 }), [1, 2])
})

test('literals, quoted names, comments, casts and operators are left alone', () => {
  const sql = `SELECT '?' AS "q?", 'it''s @x' AS s, x::jsonb @> '{}' AS c -- what ? @y
               /* ? @z */ FROM t WHERE id = ?`
  const s = toPgStatement(sql)
  assert.is(s.text, sql.replace('id = ?', 'id = $1'))
  assert.is(s.positional, 1)
  assert.is(s.names, null)
})

test('mixed styles, missing names and wrong counts are refused before anything is sent', () => {
  assert.throws(() => toPgStatement('SELECT ? , @a'), /mixes \? and @name/)
  assert.throws(() => pgValues(toPgStatement('SELECT @a'), {}), /missing parameter @a/)
  assert.throws(() => pgValues(toPgStatement('SELECT @a'), [1]), /takes an object/)
  assert.throws(() => pgValues(toPgStatement('SELECT ?, ?'), [1]), /2 placeholders but 1 values/)
})

test('the rewrite is cached per statement text', () => {
  assert.ok(toPgStatement('SELECT 1 WHERE ? = 1') === toPgStatement('SELECT 1 WHERE ? = 1'))
})

test.run()
