// The start-up audit of a small journal on PostgreSQL: its verdict is in before startAudit returns, as on SQLite,
// so the daemon logs it before it serves. The audit is queries there, and its report was once left to settle
// while the start went on (wallet/crash read no audit line after a restart, seen once in .ci/run).
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { migratePostgres, postgresSqlStore } from '../../src/store/index.js'
import { startAudit } from '../../src/wallet/start-audit.js'
import { createDatabase, postgresSkipReason, testPostgres } from '../support/postgres.js'

const postgres = await testPostgres()
const test = suite('the start-up audit on PostgreSQL')

if (!postgres) {
  // One case that says so: the runner fails a file that ran no test at all.
  test('skipped: no PostgreSQL server', () => console.log(`  skipped on PostgreSQL: no server (${postgresSkipReason})`))
} else {
  test.after(() => postgres.close())
  test('a small journal: the report has settled when startAudit returns', async () => {
    const store = postgresSqlStore({ url: await createDatabase(postgres.adminUrl) })
    try {
      await migratePostgres(store)
      const audit = await startAudit({ sql: store })
      assert.not.ok(audit.background)
      let settled = false
      void audit.report.then(() => (settled = true))
      // One turn of the loop: the microtasks of a settled report run; an audit still querying needs several.
      await new Promise(resolve => setImmediate(resolve))
      assert.ok(settled, 'the verdict was in when startAudit returned')
      assert.ok((await audit.report).ok)
    } finally {
      await store.close()
    }
  })
}

test.run()
