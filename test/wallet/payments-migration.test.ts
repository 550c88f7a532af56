// Migration 070 (repeats per invoice, not per payment hash) rebuilds the payments table of a database made before it:
// every row and serial is kept, the AUTOINCREMENT mark too (a serial is an operation id and a ledger ref, never
// reused), a hash that failed before no longer blocks, and one live attempt per hash is still all the database takes.
import { test } from '../support/suite.js'
import * as assert from 'uvu/assert'
import fs from 'node:fs'
import { openStore } from '../../src/store/index.js'
import { booksBefore } from '../support/migrations.js'

test('a database from before 070: rows, serials and the serial mark survive; failed hashes are free again', () => {
  const { dataDir: dir, old } = booksBefore(70)
  const insert = old.db.prepare(`INSERT INTO payments (payment_hash, payment_request, user_id, amount_msat, service_fee_msat,
      max_routing_fee_msat, internal, status, created_at, resolved_at) VALUES (?, ?, 'u', 1000, 10, 0, 0, ?, 1, ?)`)
  insert.run('aa', 'lnbcrt-victim-copy', 'failed', 2) // the attacker's failed copy of the victim's hash
  insert.run('bb', 'lnbcrt-paid', 'succeeded', 2)
  insert.run('cc', 'lnbcrt-gone', 'failed', 2)
  old.db.prepare('DELETE FROM payments WHERE serial = 3').run() // the highest serial gone: the mark is above every row
  assert.throws(() => insert.run('aa', 'lnbcrt-victim', 'pending', null), /UNIQUE/) // before: the hash was blocked
  old.db.close()

  const store = openStore({ dataDir: dir })
  try {
    assert.ok(store.applied.includes('070_payments_per_invoice.sql'), store.applied.join())
    const db = store.db
    const rows = db.prepare('SELECT serial, payment_hash, status FROM payments ORDER BY serial').all()
    assert.equal(rows, [
      { serial: 1, payment_hash: 'aa', status: 'failed' },
      { serial: 2, payment_hash: 'bb', status: 'succeeded' },
    ])
    const again = db.prepare(`INSERT INTO payments (payment_hash, payment_request, user_id, amount_msat, service_fee_msat,
        max_routing_fee_msat, internal, status, created_at, resolved_at) VALUES (?, ?, 'u', 1000, 10, 0, 0, ?, 1, ?)`)
    // The genuine invoice behind the failed copy can be attempted, with a serial never used before.
    assert.is(Number(again.run('aa', 'lnbcrt-victim', 'pending', null).lastInsertRowid), 4)
    // But not a second live attempt at that hash, nor one at a hash already paid.
    assert.throws(() => again.run('aa', 'lnbcrt-victim', 'pending', null), /UNIQUE/)
    assert.throws(() => again.run('bb', 'lnbcrt-other', 'succeeded', 3), /UNIQUE/)
    // Failed attempts may pile up beside the live one.
    again.run('bb', 'lnbcrt-other', 'failed', 3)
  } finally {
    store.db.close()
    fs.rmSync(dir, { recursive: true, force: true })
  }
})

test.run()
