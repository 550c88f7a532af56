// Storage budgets (src/relay/event-store.ts) and paged reads (src/relay/reader.ts): what keeps a flood of events
// from filling the disk and one large read from holding the relay.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { finalizeEvent, generateSecretKey, type NostrEvent } from 'nostr-tools/pure'
import { eventSize, openEventStore, type StorageBudget } from '../../src/relay/event-store.js'
import { startRelay } from '../../src/relay/index.js'
import { connectWire } from './wire-client.js'

const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'relaypay-quota-'))
const now = Math.floor(Date.now() / 1000)
const stranger = { address: '198.51.100.7', own: false }
const event = (kind: number, content: string, key = generateSecretKey(), createdAt = now): NostrEvent =>
  finalizeEvent({ kind, created_at: createdAt, tags: [], content }, key)

const quota = suite('storage budgets')

quota('at the total budget, ephemeral events are evicted oldest first; with none left, writes are refused', () => {
  const sample = event(21000, 'x'.repeat(1000))
  const budget: StorageBudget = { maxBytes: eventSize(sample) * 3 + 10, maxAuthorBytes: Infinity, maxAddressBytes: Infinity }
  const store = openEventStore({ dataDir: tempDir(), ephemeralRetentionSeconds: 600, budget: () => budget })
  const ephemeral = [0, 1, 2].map(i => event(21000, String(i).repeat(1000)))
  for (const e of ephemeral) assert.is(store.save(e, now, stranger), 'stored')
  const note = event(1, 'n'.repeat(1000))
  assert.is(store.save(note, now, stranger), 'stored', 'room made by evicting the oldest ephemeral event')
  assert.is(store.query({ tags: new Map(), ids: [ephemeral[0]!.id], limit: 10 }, now).length, 0, 'the oldest went first')
  assert.is(store.query({ tags: new Map(), ids: [ephemeral[2]!.id], limit: 10 }, now).length, 1)
  for (const n of [1, 2]) assert.is(store.save(event(1, String(n).repeat(1000)), now, stranger), 'stored')
  assert.is(store.save(event(1, 'z'.repeat(1000)), now, stranger), 'full', 'nothing left to evict: refused')
  assert.ok(store.usageBytes() <= budget.maxBytes)
  // The daemon's own stored kinds are kept even past the budget; its ephemeral ones are not.
  assert.is(store.save(event(13194, 'o'.repeat(1000)), now, { address: '', own: true }), 'stored')
  assert.is(store.save(event(23195, 'r'.repeat(1000)), now, { address: '', own: true }), 'full')
  store.close()
})

quota('an author and an address over their budgets are refused; the daemon is not counted against either', () => {
  const key = generateSecretKey()
  const size = eventSize(event(21000, 'x'.repeat(500), key))
  const budget: StorageBudget = { maxBytes: Infinity, maxAuthorBytes: size * 2 + 10, maxAddressBytes: size * 3 + 10 }
  const store = openEventStore({ dataDir: tempDir(), ephemeralRetentionSeconds: 600, budget: () => budget })
  assert.is(store.save(event(21000, 'a'.repeat(500), key), now, stranger), 'stored')
  assert.is(store.save(event(21000, 'b'.repeat(500), key), now, stranger), 'stored')
  assert.is(store.save(event(21000, 'c'.repeat(500), key), now, stranger), 'author-full')
  assert.is(store.save(event(21000, 'd'.repeat(500)), now, stranger), 'stored')
  assert.is(store.save(event(21000, 'e'.repeat(500)), now, stranger), 'address-full')
  assert.is(store.save(event(21000, 'f'.repeat(500), key), now, { address: '', own: true }), 'stored')
  store.close()
})

const pages = suite('paged reads')

pages('a REQ over many pages gets every event once, newest first; several filters are merged in that order', async () => {
  const relay = await startRelay({ host: '127.0.0.1', port: 0, dataDir: tempDir(), limits: { pageSize: 7, maxLimit: 1000 } })
  try {
    const wire = await connectWire(relay.url)
    const key = generateSecretKey()
    const sent = Array.from({ length: 60 }, (_, i) => event(1, `note ${i}`, key, now - i))
    for (const e of sent) assert.equal(await wire.publish(e), [true, ''])
    const got = await wire.query('all', { kinds: [1] })
    assert.equal(got.map(e => e.id), sent.map(e => e.id))
    const merged = await wire.query('two', { kinds: [1], ids: sent.slice(0, 30).map(e => e.id) }, { kinds: [1], ids: sent.slice(20).map(e => e.id) })
    assert.equal(merged.map(e => e.id), sent.map(e => e.id), 'the overlap is sent once, in order')
    wire.close()
  } finally {
    await relay.close()
  }
})

pages('a spent stored-event budget: a new REQ gets CLOSED rate-limited:, a filter for live events only still opens', async () => {
  const relay = await startRelay({ host: '127.0.0.1', port: 0, dataDir: tempDir(), limits: { storedEventsPerSecond: 1 } })
  try {
    const wire = await connectWire(relay.url)
    const key = generateSecretKey()
    for (let i = 0; i < 3; i++) await wire.publish(event(1, `note ${i}`, key, now - i))
    // The burst (2) is spent on the first two events; the third waits for the budget.
    wire.send(['REQ', 'first', { kinds: [1] }])
    await wire.next(m => m[0] === 'EVENT' && m[1] === 'first')
    await wire.next(m => m[0] === 'EVENT' && m[1] === 'first')
    const refused = await wire.query('second', { kinds: [1] }).then(() => 'answered', (err: Error) => err.message)
    assert.match(refused, /^rate-limited: /)
    assert.equal(await wire.query('live', { kinds: [1], limit: 0 }), [])
    wire.close()
  } finally {
    await relay.close()
  }
})

quota.run()
pages.run()
