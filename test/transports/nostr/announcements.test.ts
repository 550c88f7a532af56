// Announcements (extension events, zap receipts) as the transport sends them: the announcer queues what the rooms
// publish before the transport runs, retries with backoff while no relay accepts, drops a caller relay the guard
// refuses, and gives up what waits at a stop; the pool's connections to caller-named relays pass the guard and are
// capped. The pool's side is a stand-in where only the announcer is checked, a real relay where connections are.
import { suite } from '../../support/suite.js'
import * as assert from 'uvu/assert'
import { Writable } from 'node:stream'
import { pino } from 'pino'
import { finalizeEvent, generateSecretKey, verifyEvent, type Event, type EventTemplate } from 'nostr-tools/pure'
import { createAnnouncer, type AnnouncingParts } from '../../../src/transports/nostr/announcements.js'
import { callerRelays, maxCallerRelays } from '../../../src/transports/nostr/caller-relays.js'
import { startRelay, type RunningRelay } from '../../../src/relay/index.js'
import { tempDataDir } from '../../support/daemon.js'

const service = 'wss://service.example'
const key = generateSecretKey()
const template = { kind: 30018, content: '{}', tags: [['d', 'item']] }

/** A logger whose lines the test reads. */
function capturedLog() {
  const lines: string[] = []
  const log = pino({ level: 'info' }, new Writable({ write: (chunk, _enc, done) => (lines.push(String(chunk)), done()) }))
  return { log, lines }
}

/** The pool's side: signs with nostr-tools, records each try and answers it with `accept`. */
function standIn(accept: (tries: number) => boolean) {
  const offered: { event: Event; relays: readonly string[] | undefined }[] = []
  let wake: () => void = () => {}
  const parts: AnnouncingParts = {
    sign: (t: EventTemplate, k: Uint8Array, then: (event: Event) => void) => then(finalizeEvent(t, k)),
    offer: async (event, relays) => {
      offered.push({ event, relays })
      wake()
      return accept(offered.length)
    },
    serviceRelays: () => [service],
  }
  const tried = (count: number) =>
    new Promise<void>(resolve => {
      if (offered.length >= count) return resolve()
      wake = () => offered.length >= count && resolve()
    })
  return { parts, offered, tried }
}

const announcer = suite('the announcer')

announcer('what is published before the transport runs waits, then goes out through its pool, signed as returned', async () => {
  const { log } = capturedLog()
  const a = createAnnouncer({ relays: [service], guard: { allowLoopback: false }, clock: { now: () => Date.now() }, log })
  const id = a.publish(template, key)
  const pool = standIn(() => true)
  let idle = false
  const waited = a.idle().then(() => (idle = true))
  await Promise.resolve()
  assert.is(idle, false, 'not idle while the event waits for the transport')
  a.attach(pool.parts)
  await waited
  assert.is(pool.offered.length, 1)
  assert.is(pool.offered[0]!.event.id, id, 'the id returned at the call is the event sent')
  assert.ok(verifyEvent(pool.offered[0]!.event))
  assert.is(pool.offered[0]!.relays, undefined, 'to the service relays of the moment')
})

announcer('no relay accepting: tried again 1 s, then 2 s later, and sent then', async () => {
  const { log, lines } = capturedLog()
  const a = createAnnouncer({ relays: [service], guard: { allowLoopback: false }, clock: { now: () => Date.now() }, log })
  const pool = standIn(tries => tries >= 3)
  a.attach(pool.parts)
  const id = a.publish(template, key)
  await a.idle()
  assert.is(pool.offered.length, 3)
  const retries = lines.filter(line => line.includes(id) && line.includes('retrying')).map(line => JSON.parse(line).retryInMs)
  assert.equal(retries, [1000, 2000])
  assert.is(lines.filter(line => line.includes('gave up')).length, 0)
})

announcer('a caller relay the guard refuses is dropped with a warning that does not name it; service relays pass', async () => {
  const { log, lines } = capturedLog()
  const a = createAnnouncer({ relays: [service], guard: { allowLoopback: false }, clock: { now: () => Date.now() }, log })
  const pool = standIn(() => true)
  a.attach(pool.parts)
  assert.is(a.refusalOf(service), undefined)
  assert.ok(a.refusalOf('ws://127.0.0.1:7000'), 'loopback is refused unless allowed')
  assert.ok(a.refusalOf('ws://10.1.2.3:7000'), 'a private network is refused')
  a.publish(template, key, ['ws://user:pw@10.1.2.3:7000'])
  await a.idle()
  assert.is(pool.offered.length, 0, 'nothing is sent when every relay named is refused')
  a.publish(template, key, [service, 'ws://10.1.2.3:7000'])
  await a.idle()
  assert.equal(pool.offered.map(o => o.relays), [[service]])
  assert.is(lines.filter(line => line.includes('not publishing to a relay the guard refuses')).length, 2)
  assert.not.match(lines.join(''), '10.1.2.3')
})

announcer('a stop gives up what waits for its next try; idle resolves; nothing is published after', async () => {
  const { log, lines } = capturedLog()
  const a = createAnnouncer({ relays: [service], guard: { allowLoopback: false }, clock: { now: () => Date.now() }, log })
  const pool = standIn(() => false)
  a.attach(pool.parts)
  const id = a.publish(template, key)
  await pool.tried(1)
  await a.stop()
  await a.idle()
  assert.ok(lines.some(line => line.includes('gave up publishing events') && line.includes(id)))
  a.publish(template, key)
  await a.idle()
  assert.is(pool.offered.length, 1)
})

announcer.run()

const callers = suite('connections to caller-named relays')
let relay: RunningRelay

callers.before(async () => {
  relay = await startRelay({ host: '127.0.0.1', port: 0, dataDir: tempDataDir() })
})
callers.after(async () => {
  await relay?.close()
})

const event = () => finalizeEvent({ kind: 1, content: 'receipt', tags: [], created_at: Math.floor(Date.now() / 1000) }, key)

callers('the guard refuses a loopback relay unless loopback is allowed, at connection time too', async () => {
  const { log } = capturedLog()
  const guarded = callerRelays({ allowLoopback: false }, log)
  await guarded.publish(relay.url, event(), 5000).then(
    () => assert.unreachable('published to a refused relay'),
    err => assert.match(String(err), /private network|loopback|refused|not allowed/i),
  )
  assert.is(guarded.size(), 0)
  await guarded.close(0)
})

callers(`at most ${maxCallerRelays} are connected at once; past that a new one waits for its next try`, async () => {
  const { log } = capturedLog()
  const pool = callerRelays({ allowLoopback: true }, log)
  // Distinct URLs of one relay: each is a caller-named relay of its own to the pool.
  const urls = Array.from({ length: maxCallerRelays + 1 }, (_, i) => `${relay.url}/?caller=${i}`)
  await Promise.all(urls.slice(0, maxCallerRelays).map(url => pool.publish(url, event(), 5000)))
  assert.is(pool.size(), maxCallerRelays)
  await pool.publish(urls[maxCallerRelays]!, event(), 5000).then(
    () => assert.unreachable('a connection past the cap'),
    err => assert.match(String(err), /already connected/),
  )
  assert.is(pool.size(), maxCallerRelays)
  await pool.close(1000)
  assert.is(pool.size(), 0)
})

callers.run()
