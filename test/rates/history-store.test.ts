// The rates room's storage on both engines (the pattern every room's storage test follows): the same cases on
// SQLite and on a real PostgreSQL 15, through the room's storage interface.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { rateHistoryStore, type StoredDayRate } from '../../src/rates/rate-history-store.js'
import { sqlErrorKind, type SqlStore } from '../../src/store/index.js'
import { logPostgresSkipped, openEngines } from '../support/sql-engines.js'

const both = await openEngines()
logPostgresSkipped(both.postgresSkipped)

const day = (date: string, btcRate: string, source: StoredDayRate['source'] = 'kraken'): StoredDayRate => ({
  currency: 'EUR',
  date,
  btcRate,
  source,
  fetchedAt: 1_750_000_000_000,
})

for (const engine of both.engines) {
  const test = suite(`rate history on ${engine.engine}`)
  let sql: SqlStore
  let close: () => Promise<void>
  test.before(async () => {
    ;({ store: sql, close } = await engine.open())
  })
  test.after(async () => {
    await close?.()
    if (engine === both.engines.at(-1)) await both.close() // suites run after this loop: the last one closes
  })

  test('a day never stored is not found', async () => {
    assert.is(await rateHistoryStore(sql).find('EUR', '2025-01-01'), undefined)
  })

  test('a stored day comes back whole, the exact decimal text and the unix-ms time included', async () => {
    const store = rateHistoryStore(sql)
    await store.remember([day('2025-02-01', '91234.123456789012345678'), day('2025-02-02', '90000', 'coingecko')])
    assert.equal(await store.find('EUR', '2025-02-01'), day('2025-02-01', '91234.123456789012345678'))
    assert.equal(await store.find('EUR', '2025-02-02'), day('2025-02-02', '90000', 'coingecko'))
    assert.is(await store.find('USD', '2025-02-01'), undefined)
  })

  test("a closed day's first rate stays: a later remember of the same day changes nothing", async () => {
    const store = rateHistoryStore(sql)
    await store.remember([day('2025-03-01', '1')])
    await store.remember([day('2025-03-01', '2'), day('2025-03-02', '3')])
    assert.is((await store.find('EUR', '2025-03-01'))!.btcRate, '1')
    assert.is((await store.find('EUR', '2025-03-02'))!.btcRate, '3')
  })

  test('one bad row refuses the whole batch (one transaction), by the CHECKs both engines keep', async () => {
    const store = rateHistoryStore(sql)
    for (const bad of [{ ...day('2025-04-02', '5'), currency: 'eur' }, day('2025-4-3', '5'), day('2025-04-04', '')]) {
      const err = await store.remember([day('2025-04-01', '4'), bad]).catch(e => e)
      assert.is(sqlErrorKind(err), 'check', JSON.stringify(bad))
      assert.is(await store.find('EUR', '2025-04-01'), undefined, 'the good row of the batch was not kept')
    }
  })

  test('concurrent remembers of overlapping days store each day once', async () => {
    const store = rateHistoryStore(sql)
    const days = Array.from({ length: 20 }, (_, i) => day(`2025-05-${String(i + 1).padStart(2, '0')}`, String(i)))
    await Promise.all(Array.from({ length: 8 }, (_, k) => store.remember(days.slice(k, k + 10))))
    const rows = await sql.many<{ n: number }>("SELECT count(*) AS n FROM rate_history WHERE date LIKE '2025-05-%'")
    assert.is(Number(rows[0]!.n), 17)
  })

  test.run()
}
