// Group commit on a real SQLite file: movements that arrive together share one transaction, a refused one rolls
// back alone, and under `synchronous = full` nobody hears "done" before the WAL sync that makes the batch durable.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import Database from 'better-sqlite3'
import path from 'node:path'
import { groupCommit, type WalSync } from '../../src/wallet/group-commit.js'
import { tempDataDir } from '../support/daemon.js'

const test = suite('group commit')

function walDb(synchronous: 'FULL' | 'NORMAL') {
  const db = new Database(path.join(tempDataDir(), 'group.sqlite'))
  db.pragma('journal_mode = WAL')
  db.pragma(`synchronous = ${synchronous}`)
  db.exec('CREATE TABLE moves (id INTEGER PRIMARY KEY, amount INTEGER NOT NULL CHECK (amount > 0))')
  return db
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

test('a batch is answered only after its WAL sync; a refused movement rolls back alone', async () => {
  const db = walDb('FULL')
  const { sync, pending } = manualSync()
  const commits = groupCommit(db, { walSync: sync })
  const insert = db.prepare('INSERT INTO moves (amount) VALUES (?)')
  const first = settled(commits.run(() => insert.run(5).lastInsertRowid))
  const refused = settled(commits.run(() => insert.run(-1)))
  const third = settled(commits.run(() => insert.run(7).lastInsertRowid))
  await turn()
  await turn()
  // Committed (visible), synchronous back to FULL for every other writer, but nobody told yet.
  assert.is(db.prepare('SELECT COUNT(*) FROM moves').pluck().get(), 2)
  assert.is(db.pragma('synchronous', { simple: true }), 2)
  assert.is(pending.length, 1)
  assert.not.ok(first.done || refused.done || third.done)
  pending[0]!(null)
  await turn()
  assert.ok(first.done && third.done && refused.done)
  assert.is(first.value, 1)
  assert.is(third.value, 2)
  assert.match(String(refused.error), /CHECK constraint/)
  db.close()
})

test('the next batch gathers while a sync is pending and commits as one once it is done', async () => {
  const db = walDb('FULL')
  const { sync, pending } = manualSync()
  const commits = groupCommit(db, { walSync: sync })
  const insert = db.prepare('INSERT INTO moves (amount) VALUES (?)')
  const count = () => db.prepare('SELECT COUNT(*) FROM moves').pluck().get()
  const first = settled(commits.run(() => insert.run(1)))
  await turn()
  const later = [2, 3, 4].map(amount => settled(commits.run(() => insert.run(amount))))
  await turn()
  await turn()
  assert.is(count(), 1) // the second batch waits for the first one's sync
  pending[0]!(null)
  await turn()
  await turn()
  assert.ok(first.done)
  assert.is(count(), 4)
  assert.is(pending.length, 2) // one sync for the three that gathered
  assert.not.ok(later.some(job => job.done))
  pending[1]!(null)
  await turn()
  assert.ok(later.every(job => job.done && job.error === undefined))
  db.close()
})

test('a failed WAL sync answers every movement of the batch with the error', async () => {
  const db = walDb('FULL')
  const { sync, pending } = manualSync()
  const commits = groupCommit(db, { walSync: sync })
  const insert = db.prepare('INSERT INTO moves (amount) VALUES (?)')
  const a = settled(commits.run(() => insert.run(1)))
  const b = settled(commits.run(() => insert.run(2)))
  await turn()
  pending[0]!(new Error('EIO: disk gone'))
  await turn()
  assert.match(String(a.error), /EIO/)
  assert.match(String(b.error), /EIO/)
  db.close()
})

test('the default sync flushes the real WAL file under FULL, and is skipped under NORMAL', async () => {
  for (const level of ['FULL', 'NORMAL'] as const) {
    const db = walDb(level)
    const commits = groupCommit(db)
    const insert = db.prepare('INSERT INTO moves (amount) VALUES (?)')
    const ids = await Promise.all([1, 2, 3].map(amount => commits.run(() => insert.run(amount).lastInsertRowid)))
    assert.equal(ids, [1, 2, 3])
    assert.is(db.pragma('synchronous', { simple: true }), level === 'FULL' ? 2 : 1)
    db.close()
  }
})

test('flush() at stop commits what is queued synchronously, without waiting for a sync', async () => {
  const db = walDb('FULL')
  const { sync, pending } = manualSync()
  const commits = groupCommit(db, { walSync: sync })
  const insert = db.prepare('INSERT INTO moves (amount) VALUES (?)')
  const queued = settled(commits.run(() => insert.run(9).lastInsertRowid))
  commits.flush()
  assert.is(db.prepare('SELECT COUNT(*) FROM moves').pluck().get(), 1)
  await turn()
  assert.is(pending.length, 0)
  assert.ok(queued.done)
  assert.is(queued.value, 1)
  db.close()
})

test.run()
