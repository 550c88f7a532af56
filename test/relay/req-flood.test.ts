// What a flood of REQs and reconnects costs the relay (src/relay/client-session.ts, reading-pause.ts, reader.ts,
// server.ts): a client over a cap is not read, not even the messages the relay had already read from it; stored
// events over a spent budget go out a page at a time, not one per wake; an address at its connection cap is refused
// before the handshake.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { WebSocket } from 'ws'
import { startRelay, type RelayLimits, type RunningRelay } from '../../src/relay/index.js'
import { seedRelayStore } from '../support/attack.js'
import { onHandshakeRefusal, type HandshakeRefusal } from '../support/handshake-refusal.js'
import { connectWire, type RelayMessage } from './wire-client.js'

const test = suite('REQ floods')

async function withRelay(limits: Partial<RelayLimits>, run: (relay: RunningRelay) => Promise<void>, seed?: number): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'relaypay-reqflood-'))
  if (seed) seedRelayStore(dataDir, { ephemeral: 0, stored: seed, contentBytes: 50 })
  const relay = await startRelay({ host: '127.0.0.1', port: 0, dataDir, limits })
  try {
    await run(relay)
  } finally {
    await relay.close()
  }
}

/** One masked WebSocket text frame (RFC 6455 5.2) of a short message, as a client sends it. */
function textFrame(message: unknown): Buffer {
  const payload = Buffer.from(JSON.stringify(message))
  if (payload.length > 125) throw new Error('a short message only')
  const mask = crypto.randomBytes(4)
  const masked = payload.map((byte, i) => byte ^ mask[i % 4]!)
  return Buffer.concat([Buffer.from([0x81, 0x80 | payload.length]), mask, masked])
}

/** Several messages in one TCP write, so that the relay reads them all at once. */
function sendTogether(socket: WebSocket, messages: unknown[]): void {
  ;(socket as unknown as { _socket: { write(data: Buffer): void } })._socket.write(Buffer.concat(messages.map(textFrame)))
}

test('REQs over the cap that arrived in one read are handled after the pause, one at a time, not refused at once', () =>
  // A long pause, so that the other connection's CLOSE is surely read within it.
  withRelay({ maxSubscriptionsPerAddress: 1, overCapPauseMs: 3000 }, async relay => {
    const holder = await connectWire(relay.url)
    const flooder = new WebSocket(relay.url)
    try {
      await holder.query('held', { kinds: [1] })
      const answers: RelayMessage[] = []
      const answered = new Map<string, (m: RelayMessage) => void>()
      flooder.on('message', data => {
        const message = JSON.parse(data.toString()) as RelayMessage
        answers.push(message)
        answered.get(message[1] as string)?.(message)
      })
      const answerTo = (subId: string) => new Promise<RelayMessage>(resolve => answered.set(subId, resolve))
      await new Promise((resolve, reject) => flooder.once('open', resolve).once('error', reject))
      const first = answerTo('b1')
      const second = answerTo('b2')
      sendTogether(flooder, [
        ['REQ', 'b1', { kinds: [1] }],
        ['REQ', 'b2', { kinds: [1] }],
      ])
      assert.equal(await first, ['CLOSED', 'b1', 'rate-limited: more than 1 open subscriptions from your address'])
      // The address's one subscription closes while the flooder is not read; a NOTICE shows the CLOSE was handled.
      holder.send(['CLOSE', 'held'])
      holder.send(['PING'])
      await holder.next(m => m[0] === 'NOTICE')
      // Refused in the same breath as b1, b2 would be CLOSED; handled after the pause, it finds the room made.
      assert.equal(await second, ['EOSE', 'b2'])
      assert.is(answers.filter(m => m[0] === 'CLOSED').length, 1, JSON.stringify(answers))
    } finally {
      flooder.terminate()
      holder.close()
    }
  }),
)

test('stored events over a spent budget go out a page at a time, not one per refill', () =>
  withRelay(
    { pageSize: 20, storedEventsPerSecond: 100 },
    async relay => {
      const client = new WebSocket(relay.url)
      try {
        await new Promise((resolve, reject) => client.once('open', resolve).once('error', reject))
        // Messages handed over in one turn of this process's loop came in one read: a group.
        const groups: number[] = []
        let open = false
        let events = 0
        const done = new Promise<void>(resolve =>
          client.on('message', data => {
            const [type] = JSON.parse(data.toString()) as RelayMessage
            if (type === 'EOSE') return resolve()
            if (type !== 'EVENT') return
            events++
            if (!open) {
              open = true
              groups.push(0)
              setImmediate(() => (open = false))
            }
            groups[groups.length - 1]!++
          }),
        )
        client.send(JSON.stringify(['REQ', 'all', { kinds: [1], limit: 300 }]))
        await done
        assert.is(events, 300)
        // The burst (200) goes out at once; the 100 after it, at 100 a second, in pages of 20. Woken at each token,
        // the read sent them one per write: about a hundred groups.
        let seen = 0
        const afterBurst = groups.filter(size => (seen += size) > 200).length
        assert.ok(afterBurst <= 15, `the last 100 events came in ${afterBurst} reads: ${groups.join(' ')}`)
      } finally {
        client.terminate()
      }
    },
    300,
  ),
)

test('an address at its connection cap is refused with 429 before the WebSocket handshake, and says why', () =>
  withRelay({ maxConnectionsPerAddress: 2 }, async relay => {
    const held = [await connectWire(relay.url), await connectWire(relay.url)]
    try {
      // 'open' fails the assertion below: the third connection must not be let in.
      const refusal = await attempt(relay.url).outcome
      assert.equal(refusal, { status: 429, body: 'rate-limited: too many connections from your address' })
      assert.is(relay.stats().connections, 2)
      // One of the two leaves: once the relay has seen it go, the next is let in.
      held.pop()!.close()
      for (;;) {
        if (relay.stats().connections < 2) break
        await new Promise(resolve => setImmediate(resolve))
      }
      const fourth = await connectWire(relay.url)
      fourth.close()
    } finally {
      for (const wire of held) wire.close()
    }
  }),
)

test("an address is sent so many bytes of stored events a second; over them, its next REQ for stored events is refused", async () => {
  // A clock that does not move: a spent budget stays spent.
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'relaypay-reqflood-'))
  seedRelayStore(dataDir, { ephemeral: 0, stored: 50, contentBytes: 1000 })
  const relay = await startRelay({ host: '127.0.0.1', port: 0, dataDir, clock: { now: () => 1_000_000 }, limits: { storedBytesPerSecondPerAddress: 5000 } })
  const wire = await connectWire(relay.url)
  try {
    let events = 0
    wire.send(['REQ', 'all', { kinds: [1], limit: 50 }])
    // The burst is 10,000 bytes: about eight of these events of about 1,300 bytes.
    while (events < 5) {
      await wire.next(m => m[0] === 'EVENT' && m[1] === 'all')
      events++
    }
    wire.send(['REQ', 'probe', { kinds: [1], limit: 1 }])
    const answer = await wire.next(m => m[1] === 'probe' && (m[0] === 'CLOSED' || m[0] === 'EOSE'))
    assert.equal(answer, ['CLOSED', 'probe', 'rate-limited: too many stored events requested, try again in a few seconds'])
    for (;;) {
      const more = await wire.next(m => m[0] === 'EVENT' && m[1] === 'all', 1).catch(() => undefined)
      if (!more) break
      events++
    }
    assert.ok(events <= 10, `sent ${events} of 50 events within the 10,000-byte burst`)
  } finally {
    wire.close()
    await relay.close()
  }
})

/** A connection attempt's outcome: let in, or the status and body of the refusal before the handshake. */
function attempt(url: string): { socket: WebSocket; outcome: Promise<'open' | HandshakeRefusal> } {
  const socket = new WebSocket(url)
  const outcome = new Promise<'open' | HandshakeRefusal>((resolve, reject) => {
    socket.once('open', () => resolve('open'))
    socket.on('error', reject)
    onHandshakeRefusal(socket, resolve)
  })
  return { socket, outcome }
}

test('a refused connection waits for its 429; past the address\'s cap of such waits, the answer is at once', () =>
  withRelay({ maxConnectionsPerAddress: 1, refusalDelayMs: 60_000 }, async relay => {
    const member = await connectWire(relay.url)
    const waiting = attempt(relay.url)
    let answered = false
    void waiting.outcome.then(
      () => (answered = true),
      () => undefined, // the relay's close cuts it
    )
    try {
      // Refused (counted) but not answered; the next one is past the address's cap of held refusals (1).
      while ((relay.stats().refused['rate-limited'] ?? 0) < 1) await new Promise(resolve => setImmediate(resolve))
      const next = attempt(relay.url)
      assert.equal(await next.outcome, { status: 429, body: 'rate-limited: too many connections from your address' })
      // A round trip on the member's connection: an answer sent at once to the first would be here by now.
      await member.query('probe', { kinds: [1] })
      assert.is(answered, false, 'the first refused connection is still waiting for its answer')
    } finally {
      waiting.socket.on('error', () => undefined)
      member.close()
    }
  }),
)

test.run()
