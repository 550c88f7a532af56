// Group commit on a real SQLite file through SqlStore: movements that arrive together share one transaction, a
// refused one rolls back alone (its savepoint), and under `synchronous = full` nobody hears "done" before the WAL
// sync that makes the batch durable.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import Database from 'better-sqlite3'
import path from 'node:path'
import { sqliteSqlStore, type SqlExecutor, type WalSync } from '../../src/store/index.js'
import { groupCommit } from '../../src/wallet/group-commit.js'
import { tempDataDir } from '../support/daemon.js'

const test = suite('group commit')

function walDb(synchronous: 'FULL' | 'NORMAL', walSync?: WalSync | null) {
  const db = new Database(path.join(tempDataDir(), 'group.sqlite'))
  db.pragma('journal_mode = WAL')
  db.pragma(`synchronous = ${synchronous}`)
  db.exec('CREATE TABLE moves (id INTEGER PRIMARY KEY, amount INTEGER NOT NULL CHECK (amount > 0))')
  return { db, sql: sqliteSqlStore(db, walSync === undefined ? {} : { walSync }) }
}

/** A WAL sync the test completes by hand. */
function manualSync() {
  const pending: ((error: Error | null) => void)[] = []
  const sync: WalSync = done => pending.push(done)
  return { sync, pending }
}

const settled = <T>(promise: Promise<T>) => {
  const state = { done: false, value: undefined as T | undefined, error: undefined as unknown }
  promise.then(
    value => Object.assign(state, { done: true, value }),
    error => Object.assign(state, { done: true, error }),
  )
  return state
}
const turn = () => new Promise(resolve => setImmediate(resolve))
const turns = async (n: number) => {
  for (let i = 0; i < n; i++) await turn()
}
const insert = (amount: number) => async (tx: SqlExecutor) =>
  (await tx.one<{ id: number }>('INSERT INTO moves (amount) VALUES (?) RETURNING id', [amount]))!.id

test('a batch is answered only after its WAL sync; a refused movement rolls back alone', async () => {
  const { sync, pending } = manualSync()
  const { db, sql } = walDb('FULL', sync)
  const commits = groupCommit(sql)
  const first = settled(commits.run(insert(5)))
  const refused = settled(commits.run(insert(-1)))
  const third = settled(commits.run(insert(7)))
  await turns(4)
  // Committed (visible), synchronous back to FULL for every other writer, but nobody told yet.
  assert.is(db.prepare('SELECT COUNT(*) FROM moves').pluck().get(), 2)
  assert.is(db.pragma('synchronous', { simple: true }), 2)
  assert.is(pending.length, 1)
  assert.not.ok(first.done || refused.done || third.done)
  pending[0]!(null)
  await turns(2)
  assert.ok(first.done && third.done && refused.done)
  assert.is(first.value, 1)
  assert.is(third.value, 2)
  assert.match(String(refused.error), /CHECK constraint/)
  db.close()
})

test('a movement alone in its batch is its own transaction: refused, all of it rolls back and it hears its own error', async () => {
  const { sync, pending } = manualSync()
  const { db, sql } = walDb('FULL', sync)
  const commits = groupCommit(sql)
  // Two writes, the second refused by the CHECK: the first must not stay behind.
  const refused = settled(
    commits.run(async tx => {
      await tx.run('INSERT INTO moves (amount) VALUES (?)', [3])
      await tx.run('INSERT INTO moves (amount) VALUES (?)', [-3])
    }),
  )
  await turns(4)
  assert.ok(refused.done, 'answered at once: nothing was committed, so there is no sync to wait for')
  assert.match(String(refused.error), /CHECK constraint/)
  assert.is(db.prepare('SELECT COUNT(*) FROM moves').pluck().get(), 0)
  assert.is(pending.length, 0)
  assert.is(db.pragma('synchronous', { simple: true }), 2)
  // The next one alone commits and is answered after its sync, as in a batch.
  const next = settled(commits.run(insert(4)))
  await turns(4)
  assert.is(db.prepare('SELECT COUNT(*) FROM moves').pluck().get(), 1)
  assert.not.ok(next.done)
  pending[0]!(null)
  await turns(2)
  assert.is(next.value, 1)
  db.close()
})

test('the next batch gathers while a sync is pending and commits as one once it is done', async () => {
  const { sync, pending } = manualSync()
  const { db, sql } = walDb('FULL', sync)
  const commits = groupCommit(sql)
  const count = () => db.prepare('SELECT COUNT(*) FROM moves').pluck().get()
  const first = settled(commits.run(insert(1)))
  await turns(3)
  const later = [2, 3, 4].map(amount => settled(commits.run(insert(amount))))
  await turns(3)
  assert.is(count(), 1) // the second batch waits for the first one's sync
  pending[0]!(null)
  await turns(4)
  assert.ok(first.done)
  assert.is(count(), 4)
  assert.is(pending.length, 2) // one sync for the three that gathered
  assert.not.ok(later.some(job => job.done))
  pending[1]!(null)
  await turns(2)
  assert.ok(later.every(job => job.done && job.error === undefined))
  db.close()
})

test('a failed WAL sync answers every movement of the batch with the error', async () => {
  const { sync, pending } = manualSync()
  const { db, sql } = walDb('FULL', sync)
  const commits = groupCommit(sql)
  const a = settled(commits.run(insert(1)))
  const b = settled(commits.run(insert(2)))
  await turns(3)
  pending[0]!(new Error('EIO: disk gone'))
  await turns(2)
  assert.match(String(a.error), /EIO/)
  assert.match(String(b.error), /EIO/)
  db.close()
})

test('the default sync flushes the real WAL file under FULL, and is skipped under NORMAL', async () => {
  for (const level of ['FULL', 'NORMAL'] as const) {
    const { db, sql } = walDb(level)
    const commits = groupCommit(sql)
    const ids = await Promise.all([1, 2, 3].map(amount => commits.run(insert(amount))))
    assert.equal(ids, [1, 2, 3])
    assert.is(db.pragma('synchronous', { simple: true }), level === 'FULL' ? 2 : 1)
    db.close()
  }
})

test('flush() at stop commits what is queued, without waiting for a sync', async () => {
  const { sync, pending } = manualSync()
  const { db, sql } = walDb('FULL', sync)
  const commits = groupCommit(sql)
  const queued = settled(commits.run(insert(9)))
  await commits.flush()
  assert.is(db.prepare('SELECT COUNT(*) FROM moves').pluck().get(), 1)
  assert.is(pending.length, 0)
  assert.ok(queued.done)
  assert.is(queued.value, 1)
  db.close()
})

test('the fence runs first in the shared transaction; when it refuses, every movement of the batch is refused', async () => {
  const { db, sql } = walDb('NORMAL', null)
  let stale = false
  const commits = groupCommit(sql, {
    fence: async tx => {
      await tx.one('SELECT 1 AS one')
      if (stale) throw new Error('stale epoch')
    },
  })
  assert.is(await commits.run(insert(1)), 1)
  stale = true
  const refused = await Promise.allSettled([commits.run(insert(2)), commits.run(insert(3))])
  assert.ok(refused.every(outcome => outcome.status === 'rejected' && /stale epoch/.test(String(outcome.reason))))
  assert.is(db.prepare('SELECT COUNT(*) FROM moves').pluck().get(), 1)
  db.close()
})

test.run()
