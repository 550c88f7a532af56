// Ephemeral events through a real relay on loopback: one heard live by whoever it names (`#p`) is kept in memory
// only; one that nobody it names heard is written to relay.sqlite too and survives a restart of the relay. Either
// way a later `since` query finds it while the relay runs, and a copy sent again is a duplicate, relayed once.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import Database from 'better-sqlite3'
import { finalizeEvent, generateSecretKey, getPublicKey, type NostrEvent } from 'nostr-tools/pure'
import { startRelay, type RunningRelay } from '../../src/relay/index.js'
import { connectWire, type WireClient } from './wire-client.js'

const test = suite('relay ephemeral events')
const wallet = generateSecretKey()
const service = getPublicKey(generateSecretKey())
const absent = getPublicKey(generateSecretKey())
let dataDir: string
let relay: RunningRelay
const open: WireClient[] = []

const request = (to: string, content = 'AQ…encrypted') =>
  finalizeEvent({ kind: 21000, created_at: Math.floor(Date.now() / 1000), tags: [['p', to]], content }, generateSecretKey())
const onDisk = (id: string) => {
  const db = new Database(path.join(dataDir, 'relay.sqlite'), { readonly: true })
  try {
    return (db.prepare('SELECT count(*) AS n FROM events WHERE id = ?').get(id) as { n: number }).n === 1
  } finally {
    db.close()
  }
}
async function client(): Promise<WireClient> {
  const wire = await connectWire(relay.url)
  open.push(wire)
  return wire
}
const eventFor = (subId: string, id: string) => (m: unknown[]) => m[0] === 'EVENT' && m[1] === subId && (m[2] as NostrEvent).id === id
const since = () => Math.floor(Date.now() / 1000) - 60

test.before.each(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'relaypay-relay-ephemeral-'))
  relay = await startRelay({ host: '127.0.0.1', port: 0, dataDir })
})
test.after.each(async () => {
  for (const wire of open.splice(0)) wire.close()
  await relay.close()
  fs.rmSync(dataDir, { recursive: true, force: true })
})

test('a request heard live by the key it names is kept in memory only, and a later `since` query finds it', async () => {
  assert.is(relay.stats().memoryBytes, 0)
  const daemon = await client()
  await daemon.query('in', { kinds: [21000], '#p': [service] })
  const sent = request(service)
  assert.equal(await (await client()).publish(sent), [true, ''])
  await daemon.next(eventFor('in', sent.id))
  assert.not.ok(onDisk(sent.id), 'not written to relay.sqlite')
  assert.ok(relay.stats().memoryBytes > JSON.stringify(sent).length, `held in memory (${relay.stats().memoryBytes} bytes in the stats)`)
  const again = await (await client()).query('resume', { kinds: [21000], '#p': [service], since: since() })
  assert.equal(again.map(e => e.id), [sent.id])
})

test('a request nobody it names heard is written to disk and survives a restart of the relay', async () => {
  // A subscriber for every request hears it, but it does not name the key the request is for.
  const firehose = await client()
  await firehose.query('all', { kinds: [21000] })
  const sent = request(absent)
  assert.equal(await (await client()).publish(sent), [true, ''])
  await firehose.next(eventFor('all', sent.id))
  assert.ok(onDisk(sent.id), 'written to relay.sqlite before its OK')

  const heard = request(service)
  const daemon = await client()
  await daemon.query('in', { kinds: [21000], '#p': [service] })
  await (await client()).publish(heard)
  await daemon.next(eventFor('in', heard.id))

  for (const wire of open.splice(0)) wire.close()
  const port = relay.port
  await relay.close()
  relay = await startRelay({ host: '127.0.0.1', port, dataDir })
  const after = await client()
  assert.equal((await after.query('absent', { kinds: [21000], '#p': [absent], since: since() })).map(e => e.id), [sent.id])
  // The trade: what was heard live is gone with the relay's memory, as NIP-01 has relays treat ephemeral events.
  assert.equal(await after.query('heard', { kinds: [21000], '#p': [service], since: since() }), [])
  // Sent again, the one on disk is a duplicate; the one that was heard is new to the restarted relay.
  const [accepted, reason] = await after.publish(sent)
  assert.ok(accepted)
  assert.match(reason, /^duplicate:/)
  assert.equal(await after.publish(heard), [true, ''])
})

test('the same request sent again is a duplicate and is relayed once', async () => {
  const daemon = await client()
  await daemon.query('in', { kinds: [21000], '#p': [service] })
  const sent = request(service)
  const sender = await client()
  assert.equal(await sender.publish(sent), [true, ''])
  await daemon.next(eventFor('in', sent.id))
  const [accepted, reason] = await sender.publish(sent)
  assert.ok(accepted)
  assert.match(reason, /^duplicate:/)
  const second = await daemon.next(eventFor('in', sent.id), 300).then(
    () => 'delivered again',
    () => 'not delivered',
  )
  assert.is(second, 'not delivered')
})

test('a query pages through events on disk and in memory in one order, each once', async () => {
  const daemon = await client()
  await daemon.query('in', { kinds: [21000], '#p': [service] })
  const sender = await client()
  const events: NostrEvent[] = []
  for (let i = 0; i < 6; i++) {
    // Alternately heard (memory) and not (disk: a second key nobody listens for rides on the same filter below).
    const to = i % 2 === 0 ? service : absent
    const sent = finalizeEvent(
      { kind: 21000, created_at: Math.floor(Date.now() / 1000) - i, tags: [['p', to]], content: `n${i}` },
      wallet,
    )
    events.push(sent)
    assert.equal(await sender.publish(sent), [true, ''])
  }
  assert.equal(events.map(e => onDisk(e.id)), [false, true, false, true, false, true])
  const got = await (await client()).query('both', { kinds: [21000], '#p': [service, absent], since: since() - 10 })
  const expected = [...events].sort((a, b) => b.created_at - a.created_at || (a.id < b.id ? -1 : 1)).map(e => e.id)
  assert.equal(got.map(e => e.id), expected)
  const limited = await (await client()).query('few', { kinds: [21000], authors: [getPublicKey(wallet)], limit: 3 })
  assert.equal(limited.map(e => e.id), expected.slice(0, 3))
})

test.run()
