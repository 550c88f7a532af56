// The extension host's delivery records on both engines: the same cases on SQLite and on a real
// PostgreSQL 15, through the host's storage interface.
import { suite } from '../../support/suite.js'
import * as assert from 'uvu/assert'
import { deliveryStore } from '../../../src/extensions/host/delivery-store.js'
import type { SqlStore } from '../../../src/store/index.js'
import { logPostgresSkipped, openEngines } from '../../support/sql-engines.js'

const both = await openEngines()
logPostgresSkipped(both.postgresSkipped)

for (const engine of both.engines) {
  const test = suite(`extension deliveries on ${engine.engine}`)
  let sql: SqlStore
  let close: () => Promise<void>
  test.before(async () => {
    ;({ store: sql, close } = await engine.open())
  })
  test.after(async () => {
    await close?.()
    if (engine === both.engines.at(-1)) await both.close()
  })

  test('an invoice is undelivered until it is marked, per extension', async () => {
    const store = deliveryStore(sql)
    assert.is(await store.delivered('restaurant', 'a'.repeat(64)), false)
    await store.markDelivered('restaurant', 'a'.repeat(64), 1_750_000_000_000)
    assert.is(await store.delivered('restaurant', 'a'.repeat(64)), true)
    assert.is(await store.delivered('payroll', 'a'.repeat(64)), false, 'another extension has not had it')
  })

  test('marking twice, or concurrently, keeps one record and the first time', async () => {
    const store = deliveryStore(sql)
    await Promise.all(Array.from({ length: 8 }, (_, k) => store.markDelivered('payroll', 'b'.repeat(64), 1_000 + k)))
    await store.markDelivered('payroll', 'b'.repeat(64), 9_999)
    const rows = await sql.many<{ at: number }>(
      "SELECT delivered_at AS at FROM extension_deliveries WHERE extension = 'payroll' AND payment_hash = ?",
      ['b'.repeat(64)],
    )
    assert.is(rows.length, 1)
    assert.ok(rows[0]!.at >= 1_000 && rows[0]!.at < 1_008, `kept ${rows[0]!.at}`)
  })

  test.run()
}
