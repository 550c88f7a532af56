// Private mode (`privateRequests`, `[nostr] relay_private_requests`): the request and reply kinds go to a stranger
// only when it authenticated (NIP-42) as their author or addressee; without it, any subscriber sees who talks to
// whom. Checked live and from storage, with a bare wire client (to see exactly what is sent) and, through a daemon,
// with a wallet client that authenticates as nostr-tools does.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { finalizeEvent, generateSecretKey, getPublicKey, type NostrEvent } from 'nostr-tools/pure'
import { makeAuthEvent } from 'nostr-tools/nip42'
import { startRelay, type RunningRelay } from '../../src/relay/index.js'
import { startDaemon } from '../support/daemon.js'
import { appProfile, PubClient } from '../support/pub-client.js'
import { connectWire, type WireClient } from './wire-client.js'

const app = generateSecretKey()
const wallet = generateSecretKey()
const other = generateSecretKey()
const now = () => Math.floor(Date.now() / 1000)
const request = () => finalizeEvent({ kind: 21000, created_at: now(), tags: [['p', getPublicKey(app)]], content: 'request' }, wallet)
const reply = () => finalizeEvent({ kind: 21000, created_at: now(), tags: [['p', getPublicKey(wallet)]], content: 'reply' }, app)
const note = () => finalizeEvent({ kind: 1, created_at: now(), tags: [], content: 'hello' }, other)

async function withRelay(privateRequests: boolean, run: (relay: RunningRelay) => Promise<void>) {
  const relay = await startRelay({ host: '127.0.0.1', port: 0, dataDir: fs.mkdtempSync(path.join(os.tmpdir(), 'relaypay-relay-')), limits: { privateRequests } })
  try {
    await run(relay)
  } finally {
    await relay.close()
  }
}

/** Connects, takes the relay's challenge and answers it as `key`; resolves once the relay accepted. */
async function authenticated(url: string, key: Uint8Array): Promise<WireClient> {
  const wire = await connectWire(url)
  const challenge = (await wire.next(m => m[0] === 'AUTH'))[1] as string
  const auth = finalizeEvent(makeAuthEvent(url, challenge), key)
  wire.send(['AUTH', auth])
  const ok = await wire.next(m => m[0] === 'OK' && m[1] === auth.id)
  assert.equal(ok.slice(2), [true, ''], 'the AUTH is accepted')
  return wire
}

/** Every event the subscription gets, stored ones until EOSE and then live ones until `until` arrives. */
async function collect(wire: WireClient, subId: string, until: string): Promise<NostrEvent[]> {
  const events: NostrEvent[] = []
  for (;;) {
    const m = await wire.next(m => m[0] === 'EVENT' && m[1] === subId)
    const event = m[2] as NostrEvent
    events.push(event)
    if (event.id === until) return events
  }
}

const test = suite('private requests (NIP-42)')

test('a stranger sees no request or reply, live or stored; their author and addressee see theirs', () =>
  withRelay(true, async relay => {
    const stranger = await connectWire(relay.url)
    const ownWallet = await authenticated(relay.url, wallet)
    const someoneElse = await authenticated(relay.url, other)
    try {
      assert.ok((await stranger.next(m => m[0] === 'AUTH'))[1], 'a challenge at once')
      stranger.send(['REQ', 'rpc', { kinds: [21000] }])
      const closed = await stranger.next(m => m[0] === 'CLOSED' && m[1] === 'rpc')
      assert.is(closed[2], 'auth-required: this relay sends requests and replies only to their author or addressee (NIP-42)')
      await stranger.query('all', {})
      await ownWallet.query('mine', { kinds: [21000] })
      await someoneElse.query('theirs', { kinds: [21000, 1] })
      const [req, rep, last] = [request(), reply(), note()]
      for (const event of [req, rep, last]) assert.equal(await stranger.publish(event), [true, ''])
      assert.equal((await collect(stranger, 'all', last.id)).map(e => e.id), [last.id], 'the stranger: only the note, live')
      assert.equal((await collect(someoneElse, 'theirs', last.id)).map(e => e.id), [last.id], 'another wallet: only the note, live')
      assert.equal((await collect(ownWallet, 'mine', rep.id)).map(e => e.id), [req.id, rep.id], 'the wallet: its request and the reply, live')
      // From storage (ephemeral events are kept ten minutes for a reconnecting client).
      const later = await connectWire(relay.url)
      try {
        assert.equal((await later.query('stored', {})).map(e => e.id), [last.id])
      } finally {
        later.close()
      }
      const stored = await ownWallet.query('stored', { kinds: [21000] })
      assert.equal(stored.map(e => e.id).sort(), [req.id, rep.id].sort(), 'the wallet: both, stored')
      assert.equal((await someoneElse.query('stored', { kinds: [21000] })).length, 0)
    } finally {
      for (const wire of [stranger, ownWallet, someoneElse]) wire.close()
    }
  }),
)

test("an AUTH with another challenge, relay, kind or date, or a bad signature, is refused", () =>
  withRelay(true, async relay => {
    const wire = await connectWire(relay.url)
    try {
      const challenge = (await wire.next(m => m[0] === 'AUTH'))[1] as string
      const refusal = async (template: ReturnType<typeof makeAuthEvent>, tamper?: (event: NostrEvent) => NostrEvent) => {
        let event: NostrEvent = finalizeEvent(template, wallet)
        if (tamper) event = tamper(event)
        wire.send(['AUTH', event])
        return (await wire.next(m => m[0] === 'OK' && m[1] === event.id))[3]
      }
      assert.is(await refusal(makeAuthEvent(relay.url, 'not-the-challenge')), "auth-required: the challenge is not this connection's")
      assert.is(await refusal(makeAuthEvent('wss://relay.example.com', challenge)), 'invalid: the relay tag names another relay')
      assert.is(await refusal({ ...makeAuthEvent(relay.url, challenge), kind: 1 }), 'invalid: an AUTH event is of kind 22242')
      assert.is(await refusal({ ...makeAuthEvent(relay.url, challenge), created_at: now() - 3600 }), 'invalid: an AUTH event is dated within ten minutes of now')
      assert.is(await refusal(makeAuthEvent(relay.url, challenge), e => ({ ...e, sig: e.sig.replace(/^./, c => (c === '0' ? '1' : '0')) })), 'invalid: signature does not verify')
      wire.send(['REQ', 'rpc', { kinds: [21000] }])
      assert.match(String((await wire.next(m => m[0] === 'CLOSED'))[2]), /^auth-required:/, 'still not authenticated')
    } finally {
      wire.close()
    }
  }),
)

test('by default (private mode off) any subscriber sees every request and reply', () =>
  withRelay(false, async relay => {
    const stranger = await connectWire(relay.url)
    try {
      await stranger.query('rpc', { kinds: [21000] })
      const [req, rep] = [request(), reply()]
      for (const event of [req, rep]) assert.equal(await stranger.publish(event), [true, ''])
      assert.equal((await collect(stranger, 'rpc', rep.id)).map(e => e.id), [req.id, rep.id])
    } finally {
      stranger.close()
    }
  }),
)

test('through a daemon: a wallet that authenticates is served; another key sees nothing of it', async () => {
  const daemon = await startDaemon({ config: '[nostr]\nrelay_private_requests = true\n' })
  const { relays, pubkey } = appProfile(daemon.dataDir)
  const watcher = await authenticated(relays[0]!, other)
  const client = await PubClient.connect({ relays, appPubkey: pubkey, authenticate: true })
  try {
    await watcher.query('all', {})
    assert.ok((await client.ok('GetUserInfo')).userId, 'answered')
    await client.ok('NewInvoice', { amountSats: 21, memo: 'private' })
    // The watcher's own request comes after the wallet's calls and their replies: had any of them reached the
    // watcher, it would have come first.
    const marker = finalizeEvent({ kind: 21000, created_at: now(), tags: [['p', pubkey]], content: 'marker' }, other)
    assert.equal(await watcher.publish(marker), [true, ''])
    assert.equal((await collect(watcher, 'all', marker.id)).map(e => e.id), [marker.id], 'only its own request')
    // Unauthenticated, the same subscription for requests is refused.
    const stranger = await connectWire(relays[0]!)
    try {
      stranger.send(['REQ', 'rpc', { kinds: [21000], '#p': [pubkey] }])
      assert.match(String((await stranger.next(m => m[0] === 'CLOSED'))[2]), /^auth-required:/)
    } finally {
      stranger.close()
    }
  } finally {
    client.close()
    watcher.close()
    await daemon.stop()
  }
})

test.run()
