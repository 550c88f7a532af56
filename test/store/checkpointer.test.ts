// WAL checkpoints on a worker thread: the daemon's connection never checkpoints inside a commit, yet the WAL is
// copied into the database file and starts over, so it stays bounded under a steady write load.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import fs from 'node:fs'
import { openStore } from '../../src/store/index.js'
import { backgroundAutocheckpoint, startCheckpointWorker } from '../../src/store/checkpointer.js'
import { tempDataDir } from '../support/daemon.js'

const test = suite('WAL checkpoints in the background')
// The thread starts at once here (a mark of 0 WAL pages); the last test shows the mark.
const checkpoints = startCheckpointWorker({ startAtWalPages: 0 })
test.after(() => checkpoints.stop())
const rowBytes = 4096
const pause = (ms: number) => new Promise(resolve => setTimeout(resolve, ms))

/** Commits `count` rows of `rowBytes`, one commit each, yielding to the event loop every 50 commits. */
async function writeRows(db: ReturnType<typeof openStore>['db'], count: number) {
  db.exec('CREATE TABLE IF NOT EXISTS blobs (id INTEGER PRIMARY KEY, data BLOB NOT NULL)')
  const insert = db.prepare('INSERT INTO blobs (data) VALUES (?)')
  const data = Buffer.alloc(rowBytes, 7)
  for (let i = 0; i < count; i++) {
    insert.run(data)
    if (i % 50 === 49) await pause(5)
  }
}

test('the worker copies the WAL into the database below the connection\'s own mark, and the WAL starts over', async () => {
  const store = openStore({ dataDir: tempDataDir(), synchronous: 'normal', checkpoints })
  try {
    assert.is(store.db.pragma('wal_autocheckpoint', { simple: true }), backgroundAutocheckpoint)
    // 1,500 commits of a 4 KiB row: a few thousand WAL pages, below the mark at which the connection checkpoints.
    await writeRows(store.db, 1500)
    await pause(800)
    const main = fs.statSync(store.file).size
    assert.ok(main > 6 * 1024 * 1024, `the database file holds the rows (${main} bytes): the worker checkpointed`)
    // The next commit finds the WAL fully copied and starts it over: only its own frames are in the log.
    await writeRows(store.db, 1)
    const [state] = store.db.pragma('wal_checkpoint(PASSIVE)') as { log: number }[]
    assert.ok(state!.log < 10, `the WAL started over (${state!.log} frames in it)`)
    assert.is(store.db.prepare('SELECT COUNT(*) FROM blobs').pluck().get(), 1501)
  } finally {
    store.close()
  }
})

test('under writes without pauses the connection\'s own mark bounds the WAL', async () => {
  // A worker that never gets to run during the loop: the bound is then the connection's own automatic checkpoint.
  // (With the worker running, a checkpoint it holds makes the connection's passive one at the mark give way, and the
  // WAL grows by what is written until it lets go: timing, not a bound a test can state.)
  const idle = startCheckpointWorker({ intervalMs: 3_600_000, startAtWalPages: 0 })
  const store = openStore({ dataDir: tempDataDir(), synchronous: 'normal', checkpoints: idle })
  try {
    const data = Buffer.alloc(rowBytes, 7)
    store.db.exec('CREATE TABLE blobs (id INTEGER PRIMARY KEY, data BLOB NOT NULL)')
    const insert = store.db.prepare('INSERT INTO blobs (data) VALUES (?)')
    // 8,000 commits of a 4 KiB row write about 25,000 WAL pages: without a checkpoint the WAL would hold them all.
    for (let i = 0; i < 8000; i++) insert.run(data)
    const walPages = fs.statSync(`${store.file}-wal`).size / 4096
    assert.ok(walPages < backgroundAutocheckpoint * 1.1, `the WAL holds ${walPages} pages`)
  } finally {
    store.close()
    idle.stop()
  }
})

test('without the worker (tools) SQLite checkpoints inside commits as usual', async () => {
  const store = openStore({ dataDir: tempDataDir(), synchronous: 'normal' })
  try {
    assert.is(store.db.pragma('wal_autocheckpoint', { simple: true }), 1000)
  } finally {
    store.close()
  }
})

test('rows written before close are there after reopening', async () => {
  const dataDir = tempDataDir()
  const store = openStore({ dataDir, checkpoints })
  await writeRows(store.db, 300)
  store.close()
  const again = openStore({ dataDir })
  assert.is(again.db.prepare('SELECT COUNT(*) FROM blobs').pluck().get(), 300)
  again.close()
})

test('the thread starts only once a watched WAL reaches its mark; until then SQLite checkpoints as usual', async () => {
  // A fresh ledger's migration leaves a few hundred WAL pages; 600 commits of a 4 KiB row take it past 800.
  const lazy = startCheckpointWorker({ startAtWalPages: 800 })
  const store = openStore({ dataDir: tempDataDir(), synchronous: 'normal', checkpoints: lazy })
  try {
    assert.is(lazy.running(), false)
    assert.is(store.db.pragma('wal_autocheckpoint', { simple: true }), 1000)
    await writeRows(store.db, 600)
    while (!lazy.running()) await pause(50)
    assert.is(store.db.pragma('wal_autocheckpoint', { simple: true }), backgroundAutocheckpoint)
    assert.ok(fs.statSync(`${store.file}-wal`).size / 4096 >= 800)
  } finally {
    store.close()
    lazy.stop()
  }
  assert.is(lazy.running(), false)
})

test.run()
