// The request kinds' own budgets per client address: the largest request event, the request bytes per second,
// and the keys an address may send requests from that it has not used before. Driven by an injected clock, so
// the refills are exact.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { finalizeEvent, generateSecretKey, getPublicKey } from 'nostr-tools/pure'
import { startRelay, type RelayLimits, type RunningRelay } from '../../src/relay/index.js'
import { connectWire, withRelay as withRelayOn, type WireClient } from './wire-client.js'
import { startDaemon } from '../support/daemon.js'
import { appProfile, PubClient } from '../support/pub-client.js'

let nowMs = Date.now()
const clock = { now: () => nowMs }
const wallet = getPublicKey(generateSecretKey())
let sequence = 0
/** A request of about `bytes` bytes of content, each one different (the same event twice is a duplicate). */
const request = (key: Uint8Array, bytes: number, kind = 21000) =>
  finalizeEvent({ kind, created_at: Math.floor(nowMs / 1000), tags: [['p', wallet]], content: `${sequence++}`.padEnd(bytes, 'x') }, key)
/** The size of the EVENT message the client sends for `event`, as the relay counts it. */
const messageBytes = (event: object) => Buffer.byteLength(JSON.stringify(['EVENT', event]))

const withRelay = (limits: Partial<RelayLimits>, run: (relay: RunningRelay, wire: WireClient) => Promise<void>) => withRelayOn(limits, clock, run)

const test = suite('request budgets per address')

test('a request event larger than the cap is refused as invalid; other kinds of that size are not', () =>
  withRelay({ maxRequestBytes: 8192 }, async (_, wire) => {
    const key = generateSecretKey()
    const big = request(key, 9000)
    assert.equal(await wire.publish(big), [false, `invalid: a request event is at most 8192 bytes; this one is ${messageBytes(big)}`])
    assert.equal(await wire.publish(request(key, 7000)), [true, ''], 'under the cap')
    const nwc = request(key, 9000, 23194)
    assert.is((await wire.publish(nwc))[0], false, 'NWC requests are request kinds too')
    const note = finalizeEvent({ kind: 1, created_at: Math.floor(nowMs / 1000), tags: [], content: 'x'.repeat(9000) }, key)
    assert.equal(await wire.publish(note), [true, ''], 'a note is not a request: the general limits apply')
  }),
)

test("request bytes beyond the address's budget are refused until it refills; each address has its own", () =>
  withRelay({ requestBytesPerSecondPerAddress: 4096, maxRequestBytes: 16_384 }, async (relay, wire) => {
    nowMs += 60_000
    const key = generateSecretKey()
    // The burst is five seconds' worth, 20,480 bytes: five requests of about 4,000 bytes fit, the sixth does not.
    for (let i = 0; i < 5; i++) assert.equal(await wire.publish(request(key, 3600)), [true, ''], `request ${i + 1}`)
    const sixth = request(key, 3600)
    assert.equal(await wire.publish(sixth), [false, 'rate-limited: too many request bytes from your address, slow down'])
    const other = await connectWire(relay.url, { localAddress: '127.0.0.2' })
    try {
      assert.equal(await other.publish(request(key, 3600)), [true, ''], 'another address has its own budget')
    } finally {
      other.close()
    }
    // A note is not charged to it.
    const note = finalizeEvent({ kind: 1, created_at: Math.floor(nowMs / 1000), tags: [], content: 'x'.repeat(3800) }, key)
    assert.equal(await wire.publish(note), [true, ''])
    nowMs += 1000 // 4,096 bytes back: one more request (the connection is read again once they are)
    assert.equal(await wire.publish(request(key, 3600)), [true, ''])
    assert.equal((await wire.publish(request(key, 3600)))[0], false)
  }),
)

test('an address may send requests from so many new keys a minute; keys it used lately are not charged again', () =>
  withRelay({ newKeysPerMinutePerAddress: 3 }, async (relay, wire) => {
    nowMs += 60_000
    const keys = Array.from({ length: 4 }, () => generateSecretKey())
    for (const key of keys.slice(0, 3)) assert.equal(await wire.publish(request(key, 10)), [true, ''])
    assert.equal(await wire.publish(request(keys[3]!, 10)), [false, 'rate-limited: too many new keys from your address; one more in 20 s'])
    assert.equal(await wire.publish(request(keys[0]!, 10)), [true, ''], 'a key the address used is not new')
    const other = await connectWire(relay.url, { localAddress: '127.0.0.2' })
    try {
      assert.equal(await other.publish(request(keys[3]!, 10)), [true, ''], 'another address has its own budget')
    } finally {
      other.close()
    }
    const note = finalizeEvent({ kind: 1, created_at: Math.floor(nowMs / 1000), tags: [], content: 'hi' }, keys[3]!)
    assert.equal(await wire.publish(note), [true, ''], 'only requests are charged')
    nowMs += 20_000
    assert.equal(await wire.publish(request(keys[3]!, 10)), [true, ''], 'a minute / 3 later, one more')
    assert.equal((await wire.publish(request(generateSecretKey(), 10)))[0], false)
  }),
)

test("others' requests are sent live to a filter without #p only within the read budgets; an addressed filter gets all", () =>
  withRelay({ storedEventsPerSecondPerAddress: 5 }, async (relay, watcher) => {
    const addressee = await connectWire(relay.url, { localAddress: '127.0.0.2' })
    const sender = await connectWire(relay.url, { localAddress: '127.0.0.3' })
    try {
      await watcher.query('all', { kinds: [21000, 1] })
      await addressee.query('mine', { kinds: [21000], '#p': [wallet] })
      const key = generateSecretKey()
      const requests = Array.from({ length: 15 }, () => request(key, 10))
      for (const event of requests) assert.equal(await sender.publish(event), [true, ''])
      const marker = finalizeEvent({ kind: 1, created_at: Math.floor(nowMs / 1000), tags: [], content: 'marker' }, key)
      assert.equal(await sender.publish(marker), [true, ''])
      const seen: string[] = []
      for (;;) {
        const event = (await watcher.next(m => m[0] === 'EVENT' && m[1] === 'all'))[2] as { id: string }
        if (event.id === marker.id) break
        seen.push(event.id)
      }
      // The address's burst is twice its rate (the clock stands still: nothing refills); a stored kind is not charged.
      assert.equal(seen, requests.slice(0, 10).map(e => e.id), 'the first ten, then the note')
      for (const event of requests) assert.is(((await addressee.next(m => m[0] === 'EVENT' && m[1] === 'mine'))[2] as { id: string }).id, event.id)
    } finally {
      addressee.close()
      sender.close()
    }
  }),
)

test("through a daemon: requests to the app reach a stranger who names the app's key only within its read budget", async () => {
  // A read budget of one a second (burst two): a watcher's subscription to the app's requests gets two or three of
  // ten sent at once; the replies, addressed to the wallet, all come (the watcher names the wallet's key too).
  const daemon = await startDaemon({ config: '[nostr]\nrelay_stored_events_per_second = 1\nrelay_stored_events_per_second_per_address = 1\n' })
  const { relays, pubkey } = appProfile(daemon.dataDir)
  const client = await PubClient.connect({ relays, appPubkey: pubkey })
  const watcher = await connectWire(relays[0]!, { localAddress: '127.0.0.2' })
  try {
    await watcher.query('watch', { kinds: [21000], '#p': [pubkey] }, { kinds: [21000], '#p': [client.pubkey] })
    await Promise.all(Array.from({ length: 10 }, () => client.ok('GetUserInfo')))
    let requests = 0
    for (let replies = 0; replies < 10; ) {
      const event = (await watcher.next(m => m[0] === 'EVENT' && m[1] === 'watch', 10_000))[2] as { pubkey: string }
      if (event.pubkey === client.pubkey) requests++
      else replies++
    }
    assert.ok(requests >= 1 && requests <= 6, `${requests} of the 10 requests reached the watcher`)
  } finally {
    watcher.close()
    client.close()
    await daemon.stop()
  }
})

test('limits that would refuse every request of the largest size are refused', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'relaypay-relay-'))
  const started = startRelay({ host: '127.0.0.1', port: 0, dataDir, clock, limits: { maxRequestBytes: 100_000, requestBytesPerSecondPerAddress: 10_000 } })
  const refusal = await started.then(async relay => (await relay.close(), 'started'), (err: Error) => err.message)
  assert.match(refusal, /requestBytesPerSecondPerAddress must be at least a fifth of maxRequestBytes/)
})

test.run()
