import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { finalizeEvent, generateSecretKey, getPublicKey, type NostrEvent } from 'nostr-tools/pure'
import { startRelay, type RelayLimits, type RunningRelay } from '../../src/relay/index.js'
import { repoRoot } from '../support/paths.js'
import { connectWire, withRelay as withRelayOn, type WireClient } from './wire-client.js'

const alice = generateSecretKey()
let nowMs = Date.now()
const clock = { now: () => nowMs }
const nowSeconds = () => Math.floor(nowMs / 1000)
const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'relaypay-relay-'))
const note = (content: string, createdAt = nowSeconds()): NostrEvent =>
  finalizeEvent({ kind: 1, created_at: createdAt, tags: [], content }, alice)

const withRelay = (limits: Partial<RelayLimits>, run: (relay: RunningRelay, wire: WireClient) => Promise<void>) => withRelayOn(limits, clock, run)
const closedReason = (wire: WireClient, subId: string) =>
  wire.next(m => m[0] === 'CLOSED' && m[1] === subId).then(m => m[2] as string)

const limits = suite('per-connection limits')

limits('subscriptions beyond the limit are closed; replacing one or closing one makes room', () =>
  withRelay({ maxSubscriptions: 2 }, async (_, wire) => {
    await wire.query('one', { kinds: [1] })
    await wire.query('two', { kinds: [1] })
    wire.send(['REQ', 'three', { kinds: [1] }])
    assert.is(await closedReason(wire, 'three'), 'blocked: more than 2 open subscriptions on this connection')
    await wire.query('two', { kinds: [7] }) // same id: replaces, does not count twice
    wire.send(['CLOSE', 'one'])
    await wire.query('three', { kinds: [1] })
  }),
)

limits("requests past their author's storage budget still reach listeners live; the store keeps no more", () =>
  withRelay({ maxAuthorBytes: 2048 }, async (relay, wire) => {
    const listener = await connectWire(relay.url)
    try {
      const wallet = getPublicKey(generateSecretKey())
      await listener.query('live', { kinds: [21000], '#p': [wallet] })
      const sender = generateSecretKey()
      const sent = Array.from({ length: 6 }, (_, i) =>
        finalizeEvent({ kind: 21000, created_at: nowSeconds(), tags: [['p', wallet]], content: `${i}`.padEnd(600, 'x') }, sender),
      )
      const arrived = new Set<string>()
      const live = (async () => {
        while (arrived.size < sent.length) {
          const m = await listener.next(m => m[0] === 'EVENT' && m[1] === 'live')
          arrived.add((m[2] as NostrEvent).id)
        }
      })()
      for (const event of sent) assert.equal(await wire.publish(event), [true, ''])
      await live
      assert.equal([...arrived].sort(), sent.map(event => event.id).sort())
      assert.ok(relay.stats().storeBytes <= 2048, `stored ${relay.stats().storeBytes} bytes`)
    } finally {
      listener.close()
    }
  }),
)

limits('too many filters in one REQ are refused', () =>
  withRelay({ maxFilters: 2 }, async (_, wire) => {
    wire.send(['REQ', 'many', { kinds: [1] }, { kinds: [2] }, { kinds: [3] }])
    assert.is(await closedReason(wire, 'many'), 'invalid: more than 2 filters in one REQ')
  }),
)

limits('a REQ gets at most maxLimit stored events, with or without a limit', () =>
  withRelay({ maxLimit: 3 }, async (_, wire) => {
    for (let i = 0; i < 5; i++) await wire.publish(note(`n${i}`, nowSeconds() - 10 + i))
    const authors = [getPublicKey(alice)]
    assert.equal((await wire.query('big', { authors, limit: 100 })).map(ev => ev.content), ['n4', 'n3', 'n2'])
    assert.is((await wire.query('none', { authors })).length, 3)
  }),
)

limits('a connection that sends too fast is rate-limited until its budget refills', () =>
  withRelay({ messagesPerSecond: 1, messageBurst: 3 }, async (_, wire) => {
    for (let i = 0; i < 3; i++) assert.equal(await wire.publish(note(`burst ${i}`)), [true, ''])
    assert.equal(await wire.publish(note('one too many')), [false, 'rate-limited: too many messages, slow down'])
    wire.send(['REQ', 'also', { kinds: [1] }])
    assert.is(await closedReason(wire, 'also'), 'rate-limited: too many messages, slow down')
    nowMs += 2000
    assert.equal(await wire.publish(note('after a pause')), [true, ''])
    nowMs = Date.now()
  }),
)

limits('garbage counts against the rate limit like any other message', () =>
  withRelay({ messagesPerSecond: 1, messageBurst: 3 }, async (_, wire) => {
    for (let i = 0; i < 3; i++) wire.sendRaw('garbage')
    assert.equal(await wire.publish(note('after the garbage')), [false, 'rate-limited: too many messages, slow down'])
  }),
)

limits('connections beyond maxConnections are turned away', () =>
  withRelay({ maxConnections: 1 }, async relay => {
    const second = await connectWire(relay.url)
    assert.is((await second.closed).code, 1013)
  }),
)

const malformed = suite('malformed messages get NIP-01 reasons')

malformed('bad filters are refused with CLOSED and a reason', () =>
  withRelay({}, async (_, wire) => {
    for (const c of [
      { filter: { search: 'pizza' }, reason: /^unsupported: search/ },
      { filter: { colour: 'red' }, reason: /^unsupported: filter field "colour"/ },
      { filter: { ids: ['abc'] }, reason: /^invalid: ids must hold exact 64-character/ },
      { filter: { '#p': ['not-hex'] }, reason: /^invalid: #p must hold/ },
      { filter: { kinds: [-1] }, reason: /^invalid: kinds/ },
      { filter: { since: 'yesterday' }, reason: /^invalid: since/ },
      { filter: { limit: -1 }, reason: /^invalid: limit/ },
      { filter: { ids: Array(1001).fill('a'.repeat(64)) }, reason: /^invalid: ids has more than 1000 values/ },
    ]) {
      wire.send(['REQ', 'bad', c.filter])
      assert.match(await closedReason(wire, 'bad'), c.reason)
    }
  }),
)

malformed('messages that are not NIP-01 get a NOTICE', () =>
  withRelay({}, async (_, wire) => {
    const noticeFor = async (send: () => void) => {
      send()
      return (await wire.next(m => m[0] === 'NOTICE'))[1] as string
    }
    assert.match(await noticeFor(() => wire.sendRaw('not json')), /^invalid: message is not JSON/)
    assert.match(await noticeFor(() => wire.send({ type: 'EVENT' })), /^invalid: a message is a JSON array/)
    assert.match(await noticeFor(() => wire.send(['COUNT', 'c', {}])), /^unsupported: message type "COUNT"/)
    assert.match(await noticeFor(() => wire.send(['REQ', 'x'.repeat(65), {}])), /^invalid: a subscription id/)
    assert.match(await noticeFor(() => wire.send(['EVENT', { content: 'no id' }])), /^invalid: id must be/)
  }),
)

malformed('an event with a malformed field is refused with OK false', () =>
  withRelay({}, async (_, wire) => {
    const base = JSON.parse(JSON.stringify(note('shape')))
    for (const [field, value, reason] of [
      ['kind', 70000, /^invalid: kind/],
      ['created_at', 1.5, /^invalid: created_at/],
      ['tags', [['p', 7]], /^invalid: every tag/],
      ['sig', 'zz', /^invalid: sig/],
    ] as const) {
      const [accepted, why] = await wire.publish({ ...base, [field]: value })
      assert.is(accepted, false)
      assert.match(why, reason)
    }
  }),
)

const lifecycle = suite('close() stops everything')

lifecycle('a process that started the relay and had a client exits on its own after close()', async () => {
  const door = pathToFileURL(path.join(repoRoot, 'build/src/relay/index.js')).href
  const script = `
    import { startRelay } from ${JSON.stringify(door)}
    import WebSocket from 'ws'
    const relay = await startRelay({ host: '127.0.0.1', port: 0, dataDir: ${JSON.stringify(tempDir())} })
    const client = new WebSocket(relay.url)
    await new Promise(resolve => client.once('open', resolve))
    client.send(JSON.stringify(['REQ', 's', { kinds: [1] }]))
    await new Promise(resolve => client.once('message', resolve))
    await relay.close()
    console.log('closed')`
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { cwd: repoRoot })
  let output = ''
  child.stdout.on('data', chunk => (output += chunk))
  child.stderr.on('data', chunk => (output += chunk))
  const exit = await new Promise<number | string>(resolve => {
    const timer = setTimeout(() => {
      child.kill()
      resolve('still running after 5 s')
    }, 5000)
    child.on('exit', code => {
      clearTimeout(timer)
      resolve(code ?? 'killed')
    })
  })
  assert.is(exit, 0, output)
  assert.ok(output.includes('closed'))
})

limits.run()
malformed.run()
lifecycle.run()
