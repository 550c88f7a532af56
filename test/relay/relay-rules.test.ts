import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { finalizeEvent, generateSecretKey, getPublicKey, type NostrEvent } from 'nostr-tools/pure'
import { startRelay, type RunningRelay } from '../../src/relay/index.js'
import { openEventStore } from '../../src/relay/event-store.js'
import { parseFilter } from '../../src/relay/filter.js'
import { defaultRelayLimits } from '../../src/relay/limits.js'
import { connectWire, type WireClient } from './wire-client.js'

const alice = generateSecretKey()
const bob = generateSecretKey()
const alicePub = getPublicKey(alice)
let nowMs = Date.now()
const clock = { now: () => nowMs }
const nowSeconds = () => Math.floor(nowMs / 1000)
const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'relaypay-relay-'))

function signed(sk: Uint8Array, kind: number, content: string, tags: string[][] = [], createdAt = nowSeconds()): NostrEvent {
  return finalizeEvent({ kind, created_at: createdAt, tags, content }, sk)
}
const ids = (events: NostrEvent[]) => events.map(ev => ev.id)

let relay: RunningRelay
let wire: WireClient

function relaySuite(name: string) {
  const s = suite(name)
  s.before(async () => {
    relay = await startRelay({ host: '127.0.0.1', port: 0, dataDir: tempDir(), clock })
    wire = await connectWire(relay.url)
  })
  s.after(async () => {
    wire.close()
    await relay.close()
  })
  return s
}

const replaceable = relaySuite('replaceable and addressable events keep only their latest version')

replaceable('a newer profile replaces the older one, and a late older one changes nothing', async () => {
  const t = nowSeconds() - 100
  const older = signed(alice, 0, '{"name":"old"}', [], t)
  const newer = signed(alice, 0, '{"name":"new"}', [], t + 10)
  assert.equal(await wire.publish(older), [true, ''])
  assert.equal(await wire.publish(newer), [true, ''])
  assert.equal(await wire.publish(older), [true, 'duplicate: have a newer version of this event'])
  assert.equal(ids(await wire.query('p', { kinds: [0], authors: [alicePub] })), [newer.id])
})

replaceable('on equal created_at the lowest id is kept (NIP-01)', async () => {
  const t = nowSeconds() - 50
  const [low, high] = [signed(bob, 10002, 'a', [], t), signed(bob, 10002, 'b', [], t)].sort((x, y) => (x.id < y.id ? -1 : 1))
  await wire.publish(high)
  await wire.publish(low)
  await wire.publish(high)
  assert.equal(ids(await wire.query('r', { kinds: [10002], authors: [getPublicKey(bob)] })), [low.id])
})

replaceable('addressable events are replaced per d tag only', async () => {
  const t = nowSeconds() - 100
  const pizzaV1 = signed(alice, 30402, 'pizza 10 EUR', [['d', 'pizza']], t)
  const pizzaV2 = signed(alice, 30402, 'pizza 12 EUR', [['d', 'pizza']], t + 5)
  const pasta = signed(alice, 30402, 'pasta', [['d', 'pasta']], t)
  for (const ev of [pizzaV1, pasta, pizzaV2]) assert.equal((await wire.publish(ev))[0], true)
  assert.equal(ids(await wire.query('a', { kinds: [30402], authors: [alicePub] })), [pizzaV2.id, pasta.id])
})

const deletion = relaySuite('NIP-09 deletion requests')

deletion('an author deletes her own note; the deletion stays and the note cannot come back', async () => {
  const note = signed(alice, 1, 'regrettable', [], nowSeconds() - 10)
  await wire.publish(note)
  const request = signed(alice, 5, 'oops', [['e', note.id], ['k', '1']])
  assert.equal(await wire.publish(request), [true, ''])
  assert.equal(await wire.query('gone', { ids: [note.id] }), [])
  assert.equal(ids(await wire.query('kept', { kinds: [5], authors: [alicePub] })), [request.id])
  assert.equal(await wire.publish(note), [false, 'blocked: the author deleted this event (NIP-09)'])
  assert.equal(await wire.query('still-gone', { ids: [note.id] }), [])
})

deletion("a deletion request for someone else's event does nothing", async () => {
  const note = signed(alice, 1, 'mine', [], nowSeconds() - 10)
  await wire.publish(note)
  assert.equal((await wire.publish(signed(bob, 5, '', [['e', note.id]])))[0], true)
  assert.equal(ids(await wire.query('safe', { ids: [note.id] })), [note.id])
  const forged = signed(bob, 5, '', [['a', `30402:${alicePub}:pizza`]])
  const listing = signed(alice, 30402, 'pizza', [['d', 'pizza']], nowSeconds() - 10)
  await wire.publish(listing)
  await wire.publish(forged)
  assert.equal(ids(await wire.query('listing', { ids: [listing.id] })), [listing.id])
})

deletion('an address deletion removes versions up to its date and refuses older ones', async () => {
  const t = nowSeconds() - 100
  const listing = signed(alice, 30402, 'soup', [['d', 'soup']], t)
  await wire.publish(listing)
  const request = signed(alice, 5, '', [['a', `30402:${alicePub}:soup`]], t + 10)
  await wire.publish(request)
  assert.equal(await wire.query('soup', { kinds: [30402], '#d': ['soup'] }), [])
  const stale = signed(alice, 30402, 'soup again', [['d', 'soup']], t + 5)
  assert.equal((await wire.publish(stale))[0], false)
  const fresh = signed(alice, 30402, 'soup is back', [['d', 'soup']], t + 20)
  assert.equal(await wire.publish(fresh), [true, ''])
  assert.equal(ids(await wire.query('back', { kinds: [30402], '#d': ['soup'] })), [fresh.id])
})

deletion('deleting a deletion request has no effect', async () => {
  const note = signed(alice, 1, 'to delete', [], nowSeconds() - 10)
  await wire.publish(note)
  const first = signed(alice, 5, '', [['e', note.id]], nowSeconds() - 5)
  await wire.publish(first)
  await wire.publish(signed(alice, 5, '', [['e', first.id]]))
  assert.equal(ids(await wire.query('first', { ids: [first.id] })), [first.id])
})

const timing = relaySuite('event times: future dates, NIP-40 expiration, duplicates')

timing('an event dated too far in the future is refused', async () => {
  const ahead = signed(alice, 1, 'from the future', [], nowSeconds() + 3600)
  assert.equal(await wire.publish(ahead), [false, 'invalid: created_at is more than 900 seconds in the future'])
  assert.equal((await wire.publish(signed(alice, 1, 'a bit ahead', [], nowSeconds() + 60)))[0], true)
})

timing('an expired event is refused, and an expiring one disappears when its time comes', async () => {
  const expired = signed(alice, 1, 'too late', [['expiration', String(nowSeconds() - 1)]])
  assert.equal(await wire.publish(expired), [false, 'invalid: event has expired'])
  const expiring = signed(alice, 1, 'brief', [['expiration', String(nowSeconds() + 30)]])
  assert.equal(await wire.publish(expiring), [true, ''])
  assert.equal(ids(await wire.query('before', { ids: [expiring.id] })), [expiring.id])
  nowMs += 31_000
  assert.equal(await wire.query('after', { ids: [expiring.id] }), [])
  nowMs = Date.now()
})

timing('a duplicate is acknowledged but not delivered twice to live subscribers', async () => {
  const reader = await connectWire(relay.url)
  await reader.query('live', { kinds: [21000], authors: [alicePub], since: nowSeconds() })
  const request = signed(alice, 21000, 'AQ..', [['p', getPublicKey(bob)]])
  assert.equal(await wire.publish(request), [true, ''])
  assert.equal(await wire.publish(request), [true, 'duplicate: already have this event'])
  const first = await reader.next(m => m[0] === 'EVENT')
  assert.is((first[2] as NostrEvent).id, request.id)
  const second = await reader.next(m => m[0] === 'EVENT', 300).then(() => true, () => false)
  assert.is(second, false)
  reader.close()
})

timing('live subscribers get only the events their filters match', async () => {
  const reader = await connectWire(relay.url)
  const service = getPublicKey(bob)
  await reader.query('mine', { kinds: [21000], '#p': [service], since: nowSeconds() - 5 })
  const elsewhere = signed(alice, 21000, 'AQ..', [['p', alicePub]])
  const wrongKind = signed(alice, 21001, 'AQ..', [['p', service]])
  const tooOld = signed(alice, 21000, 'AQ..', [['p', service]], nowSeconds() - 60)
  const forService = signed(alice, 21000, 'AQ..for the service', [['p', service]])
  for (const ev of [elsewhere, wrongKind, tooOld, forService]) assert.equal(await wire.publish(ev), [true, ''])
  const delivered = await reader.next(m => m[0] === 'EVENT')
  assert.is((delivered[2] as NostrEvent).id, forService.id)
  reader.close()
})

const sweep = suite('the sweep reclaims expired events')

sweep('ephemeral events are deleted once their retention has passed, other events stay', () => {
  const store = openEventStore({ dataDir: tempDir(), ephemeralRetentionSeconds: 600 })
  const now = nowSeconds()
  assert.is(store.save(signed(alice, 21000, 'x', [], now), now), 'stored')
  assert.is(store.save(signed(alice, 1, 'y', [], now), now), 'stored')
  const all = parseFilter({ authors: [alicePub] }, defaultRelayLimits)
  assert.is(store.sweep(now + 599), 0)
  assert.is(store.sweep(now + 601), 1)
  assert.equal(store.query(all, now).map(ev => JSON.parse(ev.raw).kind), [1])
  store.close()
})

replaceable.run()
deletion.run()
timing.run()
sweep.run()

const pages = suite('stored events are read newest first, page by page, whatever the kinds named')

pages('one, two, sixteen and seventeen kinds: every page in created_at DESC, id ASC order, nothing twice or missed', () => {
  const store = openEventStore({ dataDir: tempDir(), ephemeralRetentionSeconds: 600 })
  const now = nowSeconds()
  const kinds = Array.from({ length: 17 }, (_, k) => 1000 + k)
  const events: NostrEvent[] = []
  // 340 events over 40 seconds: many share a second, so the id decides their order.
  for (let n = 0; n < 340; n++) events.push(signed(n % 2 ? alice : bob, kinds[n % 17]!, `e${n}`, [], now - 40 + (n % 40)))
  for (const event of events) assert.is(store.save(event, now), 'stored')
  const expected = (named: number[]) =>
    events
      .filter(ev => named.includes(ev.kind))
      .sort((x, y) => y.created_at - x.created_at || (x.id < y.id ? -1 : 1))
      .map(ev => ev.id)
  for (const named of [[1003], [1001, 1002], kinds.slice(0, 16), kinds]) {
    const filter = parseFilter({ kinds: named, limit: 500 }, defaultRelayLimits)
    const read: string[] = []
    let cursor: { createdAt: number; id: string } | undefined
    for (;;) {
      const page = store.queryPage(filter, now, 7, cursor)
      read.push(...page.map(ev => ev.id))
      const last = page[page.length - 1]
      if (page.length < 7 || !last) break
      cursor = { createdAt: last.createdAt, id: last.id }
    }
    assert.equal(read, expected(named), `${named.length} kinds`)
    // With another condition beside the kinds (an author), and a limit below what matches.
    const authored = parseFilter({ kinds: named, authors: [alicePub], limit: 5 }, defaultRelayLimits)
    const alices = events.filter(ev => ev.pubkey === alicePub).map(ev => ev.id)
    assert.equal(store.query(authored, now).map(ev => ev.id), expected(named).filter(id => alices.includes(id)).slice(0, 5))
  }
  store.close()
})

pages.run()
