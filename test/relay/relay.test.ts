import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import WebSocket from 'ws'
import { finalizeEvent, generateSecretKey, getPublicKey, type NostrEvent } from 'nostr-tools/pure'
import { Relay, useWebSocketImplementation } from 'nostr-tools/relay'
import { SimplePool, useWebSocketImplementation as usePoolWebSocket } from 'nostr-tools/pool'
import type { Filter } from 'nostr-tools/filter'
import { startRelay, type RunningRelay } from '../../src/relay/index.js'
import { connectWire } from './wire-client.js'

// Node 20 has no global WebSocket; nostr-tools takes one per subpath module.
useWebSocketImplementation(WebSocket)
usePoolWebSocket(WebSocket)

const alice = generateSecretKey()
const bob = generateSecretKey()
const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'relaypay-relay-'))
let nowMs = Date.now()
const clock = { now: () => nowMs }
const nowSeconds = () => Math.floor(nowMs / 1000)

function signed(sk: Uint8Array, kind: number, content: string, tags: string[][] = [], createdAt = nowSeconds()): NostrEvent {
  return finalizeEvent({ kind, created_at: createdAt, tags, content }, sk)
}

async function rejectsWith(promise: Promise<unknown>, reason: RegExp): Promise<void> {
  const outcome = await promise.then(
    value => ({ value }),
    (err: Error) => ({ err }),
  )
  if (!('err' in outcome)) assert.unreachable(`expected a refusal matching ${reason}, got ${JSON.stringify(outcome.value)}`)
  else assert.match(outcome.err.message, reason)
}

/** Resolves with the first event a nostr-tools subscription delivers after its EOSE. */
function nextLiveEvent(relay: Relay, filter: Filter): { ready: Promise<void>; event: Promise<NostrEvent> } {
  let ready!: () => void
  const readyPromise = new Promise<void>(resolve => (ready = resolve))
  const event = new Promise<NostrEvent>((resolve, reject) => {
    let live = false
    const timer = setTimeout(() => reject(new Error('no live event in time')), 3000)
    const sub = relay.subscribe([filter], {
      oneose: () => {
        live = true
        ready()
      },
      onevent: ev => {
        if (!live) return
        clearTimeout(timer)
        sub.close()
        resolve(ev)
      },
    })
  })
  return { ready: readyPromise, event }
}

const live = suite('publish and subscribe through nostr-tools clients')
let relay: RunningRelay
let dataDir: string

live.before(async () => {
  dataDir = tempDir()
  relay = await startRelay({ host: '127.0.0.1', port: 0, dataDir, clock })
})
live.after(async () => {
  await relay.close()
})

live('a published note reaches a live subscriber on another connection', async () => {
  const reader = await Relay.connect(relay.url)
  const writer = await Relay.connect(relay.url)
  const waiting = nextLiveEvent(reader, { kinds: [1], authors: [getPublicKey(alice)] })
  await waiting.ready
  const note = signed(alice, 1, 'hello from alice')
  assert.is(await writer.publish(note), '')
  const got = await waiting.event
  assert.is(got.id, note.id)
  assert.is(got.content, 'hello from alice')
  reader.close()
  writer.close()
})

live('SimplePool publishes, then reads the stored event back', async () => {
  const pool = new SimplePool()
  const note = signed(bob, 1, 'stored for later', [['t', 'relaypay']])
  const results = await Promise.allSettled(pool.publish([relay.url], note))
  assert.is(results[0].status, 'fulfilled')
  const found = await pool.querySync([relay.url], { '#t': ['relaypay'] }, { maxWait: 2000 })
  assert.equal(found.map(ev => ev.id), [note.id])
  pool.destroy()
})

live('a tampered event is refused with an invalid: reason', async () => {
  const writer = await Relay.connect(relay.url)
  const original = signed(alice, 1, 'original words')
  // A JSON copy: a spread copy would carry nostr-tools' cached "verified" mark along.
  const tampered = { ...JSON.parse(JSON.stringify(original)), content: 'tampered words' }
  await rejectsWith(writer.publish(tampered), /invalid: id does not match the event/)
  const forged = finalizeEvent({ kind: 1, created_at: nowSeconds(), tags: [], content: 'forged' }, bob)
  const wrongSig = { ...JSON.parse(JSON.stringify(forged)), sig: signed(bob, 1, 'other').sig }
  await rejectsWith(writer.publish(wrongSig), /invalid: signature does not verify/)
  const wire = await connectWire(relay.url)
  assert.equal(await wire.query('tampered', { ids: [original.id, forged.id] }), [])
  wire.close()
  writer.close()
})

live('an ephemeral request is delivered live and again to a later `since` query', async () => {
  const daemon = await Relay.connect(relay.url)
  const service = getPublicKey(bob)
  const waiting = nextLiveEvent(daemon, { kinds: [21000], '#p': [service] })
  await waiting.ready
  const request = signed(alice, 21000, 'AQ…encrypted', [['p', service]])
  const client = await Relay.connect(relay.url)
  await client.publish(request)
  assert.is((await waiting.event).id, request.id)
  daemon.close()

  // The daemon restarts and resubscribes with since = last seen − slack: the request must still be there.
  const wire = await connectWire(relay.url)
  const since = request.created_at - 60
  const again = await wire.query('resume', { kinds: [21000], '#p': [service], since })
  assert.equal(again.map(ev => ev.id), [request.id])

  // After the retention window the relay has forgotten it.
  nowMs += 11 * 60 * 1000
  assert.equal(await wire.query('later', { kinds: [21000], '#p': [service], since }), [])
  nowMs = Date.now()
  wire.close()
  client.close()
})

live('stored queries honour every filter field, newest first', async () => {
  const base = nowSeconds() - 1000
  const root = signed(alice, 1, 'root', [], base)
  const reply = signed(bob, 1, 'reply', [['e', root.id], ['p', getPublicKey(alice)]], base + 10)
  const listing = signed(alice, 30402, 'listing', [['d', 'menu-item-7'], ['t', 'pizza']], base + 20)
  const reaction = signed(bob, 7, '+', [['e', root.id], ['k', '1']], base + 30)
  const wire = await connectWire(relay.url)
  for (const ev of [root, reply, listing, reaction]) assert.equal(await wire.publish(ev), [true, ''])
  const ids = (events: NostrEvent[]) => events.map(ev => ev.id)
  const mine = [root.id, reply.id, listing.id, reaction.id]
  const only = (events: NostrEvent[]) => ids(events).filter(id => mine.includes(id))

  for (const c of [
    { filter: { ids: [root.id, reaction.id] }, expected: [reaction.id, root.id] },
    { filter: { authors: [getPublicKey(bob)], since: base }, expected: [reaction.id, reply.id] },
    { filter: { kinds: [1], since: base }, expected: [reply.id, root.id] },
    { filter: { '#e': [root.id] }, expected: [reaction.id, reply.id] },
    { filter: { '#p': [getPublicKey(alice)], since: base }, expected: [reply.id] },
    { filter: { '#d': ['menu-item-7'] }, expected: [listing.id] },
    { filter: { '#t': ['pizza'], kinds: [30402] }, expected: [listing.id] },
    { filter: { '#k': ['1'] }, expected: [reaction.id] },
    { filter: { '#e': [root.id], kinds: [7] }, expected: [reaction.id] },
    { filter: { authors: [getPublicKey(alice)], since: base, until: base + 10 }, expected: [root.id] },
    { filter: { ids: mine, limit: 2 }, expected: [reaction.id, listing.id] },
    { filter: { ids: mine, limit: 0 }, expected: [] },
    { filter: { ids: [] }, expected: [] },
  ]) {
    assert.equal(only(await wire.query('q', c.filter)), c.expected, JSON.stringify(c.filter))
  }
  // Several filters are OR-ed, each with its own limit, and an event matching two is sent once.
  const both = await wire.query('or', { ids: [root.id] }, { '#e': [root.id], limit: 1 }, { ids: [root.id, listing.id] })
  assert.equal(ids(both), [reaction.id, listing.id, root.id])
  wire.close()
})

live('CLOSE ends a subscription: later events are not sent to it', async () => {
  const wire = await connectWire(relay.url)
  await wire.query('watch', { kinds: [1], authors: [getPublicKey(bob)], since: nowSeconds() })
  wire.send(['CLOSE', 'watch'])
  await wire.query('sync', { authors: [getPublicKey(generateSecretKey())] }) // a round trip: the CLOSE has been handled
  const writer = await connectWire(relay.url)
  assert.equal(await writer.publish(signed(bob, 1, 'after close')), [true, ''])
  const delivered = await wire.next(m => m[0] === 'EVENT', 300).then(m => JSON.stringify(m), () => false)
  assert.is(delivered, false)
  wire.close()
  writer.close()
})

live('the NIP-11 document describes the relay and its limits', async () => {
  const httpUrl = relay.url.replace('ws://', 'http://')
  const res = await fetch(httpUrl, { headers: { Accept: 'application/nostr+json' } })
  assert.is(res.status, 200)
  assert.is(res.headers.get('access-control-allow-origin'), '*')
  const doc = (await res.json()) as Record<string, any>
  assert.type(doc.name, 'string')
  assert.type(doc.description, 'string')
  assert.ok(doc.supported_nips.includes(1) && doc.supported_nips.includes(9) && doc.supported_nips.includes(11))
  assert.is(doc.software, 'relaypay')
  assert.type(doc.version, 'string')
  assert.is(doc.limitation.max_message_length, 256 * 1024)
  assert.type(doc.limitation.max_subscriptions, 'number')
  assert.type(doc.limitation.max_filters, 'number')
  assert.type(doc.limitation.max_limit, 'number')
  const plain = await fetch(httpUrl)
  assert.ok((await plain.text()).includes('Nostr relay'))
})

const restart = suite('a restarted relay keeps what it stored')

restart('events survive close and start on the same data dir', async () => {
  const dir = tempDir()
  const first = await startRelay({ host: '127.0.0.1', port: 0, dataDir: dir })
  const profile = signed(alice, 0, '{"name":"alice"}', [], Math.floor(Date.now() / 1000))
  const note = signed(alice, 1, 'survives restarts', [], Math.floor(Date.now() / 1000))
  const writer = await connectWire(first.url)
  assert.equal(await writer.publish(profile), [true, ''])
  assert.equal(await writer.publish(note), [true, ''])
  await first.close()
  assert.is((await writer.closed).code, 1001)
  assert.ok(fs.existsSync(path.join(dir, 'relay.sqlite')))

  const second = await startRelay({ host: '127.0.0.1', port: 0, dataDir: dir })
  const reader = await Relay.connect(second.url)
  const found: string[] = []
  await new Promise<void>(resolve => {
    reader.subscribe([{ authors: [getPublicKey(alice)] }], { onevent: ev => found.push(ev.id), oneose: resolve })
  })
  assert.equal(found.sort(), [profile.id, note.id].sort())
  reader.close()
  await second.close()
})

const limits = suite('limits refuse what would hurt the relay')

limits('an oversized message is refused and the connection keeps working', async () => {
  const small = await startRelay({ host: '127.0.0.1', port: 0, dataDir: tempDir(), limits: { maxMessageBytes: 4096 } })
  const writer = await Relay.connect(small.url)
  try {
    const big = signed(alice, 1, 'x'.repeat(5000))
    await rejectsWith(writer.publish(big), /invalid: message is \d+ bytes, more than the 4096 allowed/)
    assert.is(await writer.publish(signed(alice, 1, 'small enough')), '')
  } finally {
    writer.close()
    await small.close()
  }
})

limits('a frame past the hard cap closes the connection', async () => {
  const small = await startRelay({
    host: '127.0.0.1',
    port: 0,
    dataDir: tempDir(),
    limits: { maxMessageBytes: 4096, maxFrameBytes: 8192 },
  })
  try {
    const wire = await connectWire(small.url)
    wire.sendRaw(JSON.stringify(['EVENT', signed(alice, 1, 'y'.repeat(10_000))]))
    assert.is((await wire.closed).code, 1009)
  } finally {
    await small.close()
  }
})

live.run()
restart.run()
limits.run()
