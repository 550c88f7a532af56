// Events of one event-loop turn share one transaction (src/relay/save-queue.ts): each still gets its own outcome,
// in order, and only after the commit; a later event sees the earlier ones of its batch.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import Database from 'better-sqlite3'
import { finalizeEvent, generateSecretKey } from 'nostr-tools/pure'
import { openEventStore } from '../../src/relay/event-store.js'
import { parseFilter } from '../../src/relay/filter.js'
import { defaultRelayLimits } from '../../src/relay/limits.js'
import { saveQueue, type SaveResult } from '../../src/relay/save-queue.js'

const test = suite('relay save queue')
const now = Math.floor(Date.now() / 1000)
const key = generateSecretKey()
const event = (kind: number, content: string, tags: string[][] = []) => finalizeEvent({ kind, created_at: now, tags, content }, key)

test(`one turn, one batch: outcomes in order after the commit, duplicates and replacements seen within the batch`, async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'relaypay-saves-'))
  const store = openEventStore({ dataDir, ephemeralRetentionSeconds: 600 })
  const queue = saveQueue(store)
  const a = event(21000, 'a')
  const profile = event(0, '{"name":"x"}')
  const older = finalizeEvent({ kind: 0, created_at: now - 10, tags: [], content: '{"name":"old"}' }, key)
  const results: [string, SaveResult][] = []
  for (const [name, ev] of [['a', a], ['a again', a], ['profile', profile], ['older profile', older]] as const) {
    queue.save(ev, now, result => results.push([name, result]))
  }
  assert.equal(results, [], 'nothing is answered before the shared commit')
  while (results.length < 4) await new Promise(resolve => setTimeout(resolve, 5))
  assert.equal(results, [
    ['a', { outcome: 'stored' }],
    ['a again', { outcome: 'duplicate' }],
    ['profile', { outcome: 'stored' }],
    ['older profile', { outcome: 'newer-exists' }],
  ])
  const stored = store.query(parseFilter({ kinds: [0, 21000] }, defaultRelayLimits), now).map(e => e.id)
  assert.equal(stored.sort(), [a.id, profile.id].sort(), 'this thread reads what was stored as soon as it is answered')
  await queue.close()
  store.close()
})

test('close stores what is queued; then a failing store answers every event with its error', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'relaypay-saves-'))
  const store = openEventStore({ dataDir, ephemeralRetentionSeconds: 600 })
  const queue = saveQueue(store)
  const kept: SaveResult[] = []
  queue.save(event(1, 'kept'), now, r => kept.push(r))
  queue.save(event(1, 'kept too'), now, r => kept.push(r))
  await queue.close()
  assert.equal(kept, [{ outcome: 'stored' }, { outcome: 'stored' }], 'close answers what was queued')
  store.close()
  const failed: SaveResult[] = []
  queue.save(event(1, 'lost'), now, r => failed.push(r))
  queue.save(event(1, 'lost too'), now, r => failed.push(r))
  await new Promise(resolve => setImmediate(resolve))
  assert.is(failed.length, 2)
  for (const r of failed) assert.ok('error' in r)
})

test('an event SQLite refuses fails alone: the rest of its batch is stored, and it leaves nothing behind', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'relaypay-saves-'))
  const store = openEventStore({ dataDir, ephemeralRetentionSeconds: 600 })
  // A second connection makes SQLite refuse one event, as a full disk or an I/O error would refuse any.
  const other = new Database(path.join(dataDir, 'relay.sqlite'))
  other.exec(`CREATE TRIGGER poison BEFORE INSERT ON events WHEN new.raw LIKE '%poison%' BEGIN SELECT RAISE(ABORT, 'poisoned'); END`)
  other.close()
  const pubkey = 'ab'.repeat(32)
  const before = event(21000, 'before', [['p', pubkey]])
  const poisoned = event(21000, 'poison', [['p', pubkey]])
  const after = event(21000, 'after', [['p', pubkey]])
  const outcomes = store.saveBatch([before, poisoned, after, before].map(ev => ({ event: ev, now })))
  assert.equal(outcomes[0], 'stored')
  assert.instance(outcomes[1], Error)
  assert.match((outcomes[1] as Error).message, 'poisoned')
  assert.equal(outcomes.slice(2), ['stored', 'duplicate'], 'later events of the batch see the earlier ones, as in one pass')
  const stored = store.query(parseFilter({ '#p': [pubkey] }, defaultRelayLimits), now).map(e => e.id)
  assert.equal(stored.sort(), [before.id, after.id].sort())
  const db = new Database(path.join(dataDir, 'relay.sqlite'), { readonly: true })
  assert.equal(db.prepare('SELECT count(*) AS n FROM tags WHERE event_id = ?').get(poisoned.id), { n: 0 })
  assert.equal(db.prepare("SELECT bytes FROM usage WHERE key = ''").get(), { bytes: store.usageBytes() })
  db.close()
  store.close()
})

test.run()
