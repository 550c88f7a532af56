// Payroll's storage on both engines: the contracts and the payout ledger, the same cases on SQLite and
// on a real PostgreSQL 15. Besides each method, the guarantees HTTP cannot provoke on demand: two daemons sharing
// one database (two connections to one database here), payers racing for one period (exactly one claim wins),
// the payer and the redelivered invoice-paid event settling at once (the contract advances once), a crash after
// the money moved (the redelivery settles the row) and before it did (the claim closes once its invoice expired).
import fs from 'node:fs'
import { suite } from '../../support/suite.js'
import * as assert from 'uvu/assert'
import { migratePostgres, openStore, postgresSqlStore, type SqlEngine, type SqlStore } from '../../../src/store/index.js'
import { contractsStore, type Contract, type ContractsStore, type ContractTerms } from '../../../src/extensions/payroll/contracts-store.js'
import {
  interruptedClaimDetail, ledgerStore, writtenOffDetail, type Attempt, type LedgerStore,
} from '../../../src/extensions/payroll/ledger-store.js'
import { tempDataDir } from '../../support/daemon.js'
import { createDatabase, dropDatabase } from '../../support/postgres.js'
import { logPostgresSkipped, openEngines, type Engines } from '../../support/sql-engines.js'

const both = await openEngines()
logPostgresSkipped(both.postgresSkipped)

const terms: ContractTerms = {
  name: 'Alice salary',
  employeeWallet: 'employee',
  sourceWallet: 'source',
  amount: '1000',
  currency: 'sat',
  frequency: 'monthly',
  startDate: '2025-01-31',
  totalPeriods: 3,
  pricingMode: 'payday',
  manualRate: null,
  backfill: false,
}

let ids = 0
const newId = () => `row-${++ids}`

function attempt(contract: Contract, period: number, payday = '2025-01-31'): Attempt {
  return { contract, period, payday, amountMsat: 1_000_000, rate: null, rateSource: null, memo: 'memo', detail: '' }
}

interface Daemon {
  ledger: LedgerStore
  contracts: ContractsStore
}

/** Two stores on one fresh database, as two daemons would hold: two SQLite connections, or two PostgreSQL pools. */
async function openShared(engine: SqlEngine, engines: Engines): Promise<{ a: SqlStore; b: SqlStore; close(): Promise<void> }> {
  if (engine === 'sqlite') {
    const dataDir = tempDataDir()
    const first = openStore({ dataDir })
    const second = openStore({ dataDir })
    return {
      a: first.sql,
      b: second.sql,
      async close() {
        for (const opened of [first, second]) {
          await opened.sql.close()
          opened.close()
        }
        fs.rmSync(dataDir, { recursive: true, force: true })
      },
    }
  }
  const url = await createDatabase(engines.postgres!.adminUrl)
  const a = postgresSqlStore({ url })
  await migratePostgres(a)
  const b = postgresSqlStore({ url })
  return {
    a,
    b,
    async close() {
      await a.close()
      await b.close()
      await dropDatabase(engines.postgres!.adminUrl, url)
    },
  }
}

for (const { engine } of both.engines) {
  const test = suite(`payroll storage on ${engine}`)
  let shared: Awaited<ReturnType<typeof openShared>>
  let daemonA: Daemon
  let daemonB: Daemon
  /**
   * The k-th of several racers. On PostgreSQL they alternate between the two daemons' pools, so they run on
   * separate sessions at once. On SQLite all go through one connection (which takes them in turn): two daemons
   * are two processes there, each waiting on the file lock, while two connections in one thread would wait on
   * each other's open transaction until SQLITE_BUSY.
   */
  const racer = (k: number): Daemon => (engine === 'postgres' && k % 2 ? daemonB : daemonA)
  // One database per suite (a fresh one per case costs seconds of migrations on PostgreSQL); emptied per case.
  test.before(async () => {
    shared = await openShared(engine, both)
    daemonA = { ledger: ledgerStore(shared.a, newId), contracts: contractsStore(shared.a) }
    daemonB = { ledger: ledgerStore(shared.b, newId), contracts: contractsStore(shared.b) }
  })
  test.before.each(async () => {
    await shared.a.run('DELETE FROM payroll_payouts')
    await shared.a.run('DELETE FROM payroll_contracts')
  })
  test.after(async () => {
    await shared.close()
    if (engine === both.engines.at(-1)!.engine) await both.close() // suites run after this loop: the last one closes
  })

  test('contracts: created whole, read back, listed newest first and by the wallet they pay', async () => {
    const { contracts } = daemonA
    const created = await contracts.create('c1', { ...terms, manualRate: '90000.5', pricingMode: 'manual', backfill: true }, 1_750_000_000_000)
    assert.equal(created, {
      id: 'c1', ...terms, manualRate: '90000.5', pricingMode: 'manual', backfill: true, periodsDone: 0, status: 'active',
      pausedReason: '', createdAt: 1_750_000_000_000, updatedAt: 1_750_000_000_000,
    })
    assert.equal(await contracts.get('c1'), created)
    assert.is(await contracts.get('nope'), undefined)
    await contracts.create('c2', { ...terms, employeeWallet: 'bob' }, 1_750_000_000_001)
    assert.equal((await contracts.list()).map(c => c.id), ['c2', 'c1'])
    assert.equal((await contracts.listPaying('bob')).map(c => c.id), ['c2'])
    assert.equal(await contracts.listPaying('nobody'), [])
  })

  test('contracts: the CHECKs both engines keep refuse a contract paying its own source', async () => {
    const err = await daemonA.contracts.create('bad', { ...terms, sourceWallet: 'employee' }, 1).catch(e => e)
    assert.instance(err, Error)
    assert.is(await daemonA.contracts.get('bad'), undefined)
  })

  test('contracts: update, pause (once), delete; active ids are those with periods left', async () => {
    const { contracts, ledger } = daemonA
    await contracts.create('c1', terms, 1_000)
    await contracts.create('c2', terms, 2_000)
    await contracts.create('c3', { ...terms, totalPeriods: 1 }, 3_000)
    assert.ok(await ledger.skip(attempt((await contracts.get('c3'))!, 0), 3_001))
    assert.equal(await contracts.activeIdsWithPeriodsLeft(), ['c1', 'c2'], 'c3 has no period left')

    assert.is(await contracts.updateTerms('c1', { ...terms, name: 'Renamed', totalPeriods: 5, backfill: true }, 4_000), true)
    const updated = (await contracts.get('c1'))!
    assert.equal([updated.name, updated.totalPeriods, updated.backfill, updated.updatedAt], ['Renamed', 5, true, 4_000])
    assert.is(await contracts.updateTerms('gone', terms, 4_000), false)

    assert.is(await contracts.pause('c2', 'period 0 failed', 5_000), true)
    assert.is(await contracts.pause('c2', 'again', 5_001), false, 'a paused contract is not paused again')
    const paused = (await contracts.get('c2'))!
    assert.equal([paused.status, paused.pausedReason], ['paused', 'period 0 failed'])
    assert.equal(await contracts.activeIdsWithPeriodsLeft(), ['c1'])

    assert.is(await contracts.delete('c1'), true)
    assert.is(await contracts.delete('c1'), false)
    assert.is(await contracts.get('c1'), undefined)
  })

  test('contracts: total_periods cannot go below periods_done (the guard of the update)', async () => {
    const { contracts, ledger } = daemonA
    const contract = await contracts.create('c1', terms, 1_000)
    await ledger.skip(attempt(contract, 0), 1_001)
    await ledger.skip(attempt({ ...contract, periodsDone: 1 }, 1), 1_002)
    assert.is(await contracts.updateTerms('c1', { ...terms, totalPeriods: 1 }, 2_000), false)
    assert.is((await contracts.get('c1'))!.totalPeriods, 3)
  })

  test('two daemons on one database: the second cannot claim a period the first is paying or has paid', async () => {
    const contract = await daemonA.contracts.create('c1', terms, 1_000)
    const claimA = await daemonA.ledger.claim(attempt(contract, 0), 1_000, 700_000)
    assert.ok(claimA)
    assert.is(claimA!.status, 'paying')
    assert.is(await daemonB.ledger.claim(attempt(contract, 0), 1_001, 700_001), undefined)
    await daemonA.ledger.attachInvoice(claimA!.id, 'a'.repeat(64))
    assert.is((await daemonA.ledger.settle('a'.repeat(64), 2_000))!.row.status, 'paid')
    assert.is(await daemonB.ledger.claim(attempt(contract, 0), 2_001, 700_001), undefined)
    assert.is((await daemonB.contracts.get('c1'))!.periodsDone, 1)
  })

  test('payers racing for one period on two daemons: exactly one claim wins', async () => {
    const contract = await daemonA.contracts.create('c1', terms, 1_000)
    const claims = await Promise.all(
      Array.from({ length: 16 }, (_, k) => racer(k).ledger.claim(attempt(contract, 0), 1_000 + k, 700_000)),
    )
    assert.is(claims.filter(Boolean).length, 1)
    const rows = await shared.a.many<{ n: number }>("SELECT count(*) AS n FROM payroll_payouts WHERE contract_id = 'c1'")
    assert.is(Number(rows[0]!.n), 1)
  })

  test('a failed claim frees the period for the next attempt; failures are counted per period', async () => {
    const contract = await daemonA.contracts.create('c1', terms, 1_000)
    const claim = (await daemonA.ledger.claim(attempt(contract, 0), 1_000, 700_000))!
    const failed = await daemonA.ledger.failClaim(claim.id, 'refused')
    assert.equal([failed.status, failed.detail], ['failed', 'refused'])
    assert.ok(await daemonB.ledger.claim(attempt(contract, 0), 1_001, 700_001))
    assert.is(await daemonA.ledger.failures('c1', 0), 1)
    assert.is(await daemonA.ledger.failures('c1', 1), 0)
    const recorded = await daemonA.ledger.recordFailure({ ...attempt(contract, 0), detail: 'no rate' }, 1_002)
    assert.equal([recorded.status, recorded.detail], ['failed', 'no rate'])
    assert.is(await daemonA.ledger.failures('c1', 0), 2)
  })

  test('a claim settled meanwhile stays paid when the payer then fails it', async () => {
    const contract = await daemonA.contracts.create('c1', terms, 1_000)
    const claim = (await daemonA.ledger.claim(attempt(contract, 0), 1_000, 700_000))!
    await daemonA.ledger.attachInvoice(claim.id, '9'.repeat(64))
    await daemonB.ledger.settle('9'.repeat(64), 1_500)
    const row = await daemonA.ledger.failClaim(claim.id, 'timed out')
    assert.equal([row.status, row.detail], ['paid', ''])
  })

  test('the payer and the redelivered invoice-paid event both settling advance the contract once', async () => {
    const contract = await daemonA.contracts.create('c1', terms, 1_000)
    const claim = (await daemonA.ledger.claim(attempt(contract, 0), 1_000, 700_000))!
    await daemonA.ledger.attachInvoice(claim.id, 'b'.repeat(64))
    const byPayer = (await daemonA.ledger.settle('b'.repeat(64), 2_000))!
    const byListener = (await daemonB.ledger.settle('b'.repeat(64), 3_000))!
    assert.equal([byPayer.changed, byListener.changed], [true, false])
    assert.is((await daemonA.contracts.get('c1'))!.periodsDone, 1)
    assert.is((await daemonA.ledger.list({ contractId: 'c1' })).length, 1)
    assert.is(await daemonA.ledger.settle('0'.repeat(64), 3_000), undefined, 'no row carries this hash')
  })

  test('settles of one invoice at the same moment on two daemons: one changes the row, the contract advances once', async () => {
    const contract = await daemonA.contracts.create('c1', terms, 1_000)
    const claim = (await daemonA.ledger.claim(attempt(contract, 0), 1_000, 700_000))!
    await daemonA.ledger.attachInvoice(claim.id, '7'.repeat(64))
    const settled = await Promise.all(
      Array.from({ length: 10 }, (_, k) => racer(k).ledger.settle('7'.repeat(64), 2_000 + k)),
    )
    assert.is(settled.filter(s => s!.changed).length, 1)
    assert.ok(settled.every(s => s!.row.status === 'paid' && !s!.periodPaidTwice))
    assert.is((await daemonA.contracts.get('c1'))!.periodsDone, 1)
  })

  test('a claim left by a crash is hidden, then closed as failed once its invoice has expired', async () => {
    const contract = await daemonA.contracts.create('c1', terms, 1_000)
    const claim = (await daemonA.ledger.claim(attempt(contract, 0), 1_000, 700_000))!
    await daemonA.ledger.attachInvoice(claim.id, 'c'.repeat(64))
    assert.equal(await daemonB.ledger.list({ contractId: 'c1' }), [])
    assert.is(await daemonB.ledger.expireClaims('c1', 699_999), 0)
    assert.is(await daemonB.ledger.expireClaims('c1', 700_001), 1)
    const [row] = await daemonB.ledger.list({ contractId: 'c1' })
    assert.equal([row!.status, row!.detail, row!.paymentHash], ['failed', interruptedClaimDetail, 'c'.repeat(64)])
    assert.is((await daemonB.contracts.get('c1'))!.periodsDone, 0)
  })

  test('an invoice paid after its attempt was closed as failed is settled, unless another invoice paid the period', async () => {
    const contract = await daemonA.contracts.create('c1', terms, 1_000)
    const late = (await daemonA.ledger.claim(attempt(contract, 0), 1_000, 700_000))!
    await daemonA.ledger.attachInvoice(late.id, 'd'.repeat(64))
    await daemonA.ledger.failClaim(late.id, 'interrupted')
    const settled = (await daemonA.ledger.settle('d'.repeat(64), 2_000))!
    assert.equal([settled.row.status, settled.changed, settled.periodPaidTwice], ['paid', true, false])
    assert.is((await daemonA.contracts.get('c1'))!.periodsDone, 1)

    const other = await daemonA.contracts.create('c2', terms, 1_000)
    const stale = (await daemonA.ledger.claim(attempt(other, 0), 1_000, 700_000))!
    await daemonA.ledger.attachInvoice(stale.id, 'e'.repeat(64))
    await daemonA.ledger.failClaim(stale.id, 'interrupted')
    const retry = (await daemonA.ledger.claim(attempt(other, 0), 1_000, 700_000))!
    await daemonA.ledger.attachInvoice(retry.id, 'f'.repeat(64))
    await daemonA.ledger.settle('f'.repeat(64), 2_000)
    const twice = (await daemonA.ledger.settle('e'.repeat(64), 3_000))!
    assert.equal([twice.row.status, twice.changed, twice.periodPaidTwice], ['failed', false, true])
    assert.is((await daemonA.contracts.get('c2'))!.periodsDone, 1)
  })

  test('a skip consumes the period; it loses to a payer that consumed the period first', async () => {
    const contract = await daemonA.contracts.create('c1', terms, 1_000)
    const stale = (await daemonB.contracts.get('c1'))!
    const claim = (await daemonA.ledger.claim(attempt(contract, 0), 1_000, 700_000))!
    await daemonA.ledger.attachInvoice(claim.id, '1'.repeat(64))
    await daemonA.ledger.settle('1'.repeat(64), 2_000)
    assert.is(await daemonB.ledger.skip({ ...attempt(stale, 0), amountMsat: null }, 3_000), undefined)
    assert.is((await daemonB.ledger.list({ contractId: 'c1' })).length, 1, 'the losing skip left no row')
    assert.is((await daemonB.contracts.get('c1'))!.periodsDone, 1)

    const skipped = (await daemonB.ledger.skip({ ...attempt((await daemonB.contracts.get('c1'))!, 1), amountMsat: null }, 3_001))!
    assert.equal([skipped.status, skipped.period], ['skipped', 1])
    assert.is((await daemonA.contracts.get('c1'))!.periodsDone, 2)
  })

  test('skips of one period racing on two daemons: exactly one consumes it', async () => {
    const contract = await daemonA.contracts.create('c1', terms, 1_000)
    const skips = await Promise.all(
      Array.from({ length: 10 }, (_, k) => racer(k).ledger.skip({ ...attempt(contract, 0), amountMsat: null }, 2_000 + k)),
    )
    assert.is(skips.filter(Boolean).length, 1)
    assert.is((await daemonA.contracts.get('c1'))!.periodsDone, 1)
    assert.is((await daemonA.ledger.list({ contractId: 'c1' })).length, 1)
  })

  test('list: newest first, claims hidden, filtered by contract, status, employee wallet and payday bounds', async () => {
    const { ledger, contracts } = daemonA
    const c1 = await contracts.create('c1', terms, 1_000)
    const c2 = await contracts.create('c2', { ...terms, employeeWallet: 'bob' }, 1_000)
    const first = (await ledger.skip({ ...attempt(c1, 0, '2025-01-31'), amountMsat: null }, 2_000))!
    const failed = await ledger.recordFailure({ ...attempt(c1, 1, '2025-02-28'), detail: 'no rate' }, 2_001)
    const other = (await ledger.skip({ ...attempt(c2, 0, '2025-03-31'), amountMsat: null }, 2_002))!
    await ledger.claim(attempt(c2, 1, '2025-04-30'), 2_003, 700_000)
    assert.equal((await ledger.list()).map(p => p.id), [other.id, failed.id, first.id])
    assert.equal((await ledger.list({ contractId: 'c1' })).map(p => p.id), [failed.id, first.id])
    assert.equal((await ledger.list({ status: 'failed' })).map(p => p.id), [failed.id])
    assert.equal((await ledger.list({ employeeWallet: 'bob' })).map(p => p.id), [other.id])
    assert.equal((await ledger.list({ since: '2025-02-28' })).map(p => p.id), [other.id, failed.id])
    assert.equal((await ledger.list({ until: '2025-02-28' })).map(p => p.id), [failed.id, first.id])
    assert.equal((await ledger.list({ since: '2025-02-01', until: '2025-03-01', contractId: 'c1' })).map(p => p.id), [failed.id])
    assert.equal(await ledger.get(failed.id), failed)
    assert.is(await ledger.get('nope'), undefined)
    assert.equal(
      { ...failed, id: '' },
      {
        id: '', contractId: 'c1', contractName: 'Alice salary', period: 1, payday: '2025-02-28', status: 'failed',
        amount: '1000', currency: 'sat', employeeWallet: 'employee', sourceWallet: 'source', amountMsat: 1_000_000,
        rate: null, rateSource: null, detail: 'no rate', memo: 'memo', paymentHash: null, createdAt: 2_001,
      },
    )
  })

  test('resume writes off the missed paydays and reactivates; a stale contract changes nothing', async () => {
    const { ledger, contracts } = daemonA
    await contracts.create('c1', { ...terms, totalPeriods: 5 }, 1_000)
    await contracts.pause('c1', '', 1_500)
    const paused = (await contracts.get('c1'))!
    const writeOff = { paydayOf: (period: number) => `2025-0${period + 1}-15`, before: '2025-03-15' }
    assert.is(await ledger.resume(paused, writeOff, 2_000), 2)
    const resumed = (await contracts.get('c1'))!
    assert.equal([resumed.status, resumed.periodsDone], ['active', 2])
    assert.equal((await ledger.list({ contractId: 'c1' })).map(p => [p.period, p.status, p.detail]), [
      [1, 'skipped', writtenOffDetail],
      [0, 'skipped', writtenOffDetail],
    ])
    assert.is(await ledger.resume(paused, writeOff, 2_100), undefined, 'resumed already: nothing written')
    assert.is((await ledger.list({ contractId: 'c1' })).length, 2)

    await contracts.pause('c1', 'period 2 failed 5 times', 3_000)
    assert.is(await ledger.resume((await contracts.get('c1'))!, null, 3_100), 0, 'kept: nothing written off')
    assert.is((await contracts.get('c1'))!.periodsDone, 2)
  })

  test('resumes of one contract racing on two daemons: one writes off and resumes, the other changes nothing', async () => {
    await daemonA.contracts.create('c1', { ...terms, totalPeriods: 5 }, 1_000)
    await daemonA.contracts.pause('c1', '', 1_500)
    const paused = (await daemonA.contracts.get('c1'))!
    const writeOff = { paydayOf: (period: number) => `2025-0${period + 1}-15`, before: '2025-04-01' }
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, k) => racer(k).ledger.resume(paused, writeOff, 2_000 + k)),
    )
    assert.equal(results.filter(r => r !== undefined), [3])
    assert.is((await daemonA.contracts.get('c1'))!.periodsDone, 3)
    assert.is((await daemonA.ledger.list({ contractId: 'c1' })).length, 3)
  })

  test.run()
}
