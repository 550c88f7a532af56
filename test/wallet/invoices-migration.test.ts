// Migration 082 rebuilds the invoices table of a database made before it, without the UNIQUE on the invoice text (an
// index that made each new invoice cost more as the books grew): every row and serial is kept, the AUTOINCREMENT mark
// too (a serial is an operation id), every index but the text's comes back, and a payment hash is still taken once.
import { test } from '../support/suite.js'
import * as assert from 'uvu/assert'
import fs from 'node:fs'
import { openStore } from '../../src/store/index.js'
import { booksBefore } from '../support/migrations.js'

test('a database from before 082: rows, serials, the serial mark and the other indexes survive; the text index is gone', () => {
  const { dataDir: dir, old } = booksBefore(82)
  const insert = old.db.prepare(`INSERT INTO invoices (payment_hash, payment_request, user_id, amount_msat, created_at,
      expires_at, paid_at, paid_msat, paid_internally, offer_id, extra) VALUES (?, ?, 'u', 1000, 1, 2, ?, ?, ?, ?, ?)`)
  insert.run('aa', 'lnbcrt-a', 5, 1000, 1, 'offer', null)
  insert.run('bb', 'lnbcrt-b', null, null, null, null, '{"tag":"order"}')
  insert.run('cc', 'lnbcrt-c', null, null, null, null, null)
  old.db.prepare('DELETE FROM invoices WHERE serial = 3').run() // the highest serial gone: the mark is above every row
  const indexesBefore = (old.db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'invoices' ORDER BY name").all() as { name: string }[]).map(r => r.name)
  assert.equal(indexesBefore, ['invoices_extra_tag', 'invoices_offer', 'invoices_user_paid', 'sqlite_autoindex_invoices_1', 'sqlite_autoindex_invoices_2'])
  const rowsBefore = old.db.prepare('SELECT * FROM invoices ORDER BY serial').all()
  old.db.close()

  const store = openStore({ dataDir: dir })
  try {
    assert.ok(store.applied.includes('082_invoices_without_request_index.sql'), store.applied.join())
    const db = store.db
    assert.equal(db.prepare('SELECT * FROM invoices ORDER BY serial').all(), rowsBefore)
    const indexes = db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'invoices' ORDER BY name").all() as { name: string }[]
    assert.equal(indexes.map(r => r.name), ['invoices_extra_tag', 'invoices_offer', 'invoices_user_paid', 'sqlite_autoindex_invoices_1'])
    const unique = db.prepare("SELECT name FROM pragma_index_info('sqlite_autoindex_invoices_1')").all()
    assert.equal(unique, [{ name: 'payment_hash' }])
    assert.equal(db.prepare('PRAGMA foreign_key_check(invoices)').all(), [])
    const again = db.prepare(`INSERT INTO invoices (payment_hash, payment_request, user_id, amount_msat, created_at, expires_at)
        VALUES (?, ?, 'u', 1000, 1, 2)`)
    assert.is(Number(again.run('dd', 'lnbcrt-d').lastInsertRowid), 4, 'a serial never used before')
    assert.throws(() => again.run('aa', 'lnbcrt-other'), /UNIQUE/)
    // The lookups keep their indexes.
    const plan = (sql: string) => (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[]).map(r => r.detail).join('; ')
    assert.match(plan("SELECT * FROM invoices WHERE user_id = 'u' AND offer_id = 'offer'"), /invoices_offer/)
    assert.match(plan("SELECT * FROM invoices WHERE json_extract(extra, '$.tag') = 'order' AND extra IS NOT NULL"), /invoices_extra_tag/)
    assert.match(plan("SELECT * FROM invoices WHERE payment_hash = 'aa'"), /sqlite_autoindex_invoices_1/)
  } finally {
    store.db.close()
    fs.rmSync(dir, { recursive: true, force: true })
  }
})

test.run()
