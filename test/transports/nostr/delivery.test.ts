// Delivery guarantees of the relay bus, with the daemon on standalone relays the test controls: a request
// delivered twice (two relays, a daemon restart) runs once and is answered again with the stored reply, unless it
// only reads (a repeatable operation: run again, nothing journalled); a tampered
// event is dropped; a relay restart under load loses nothing; 1,000 requests from 50 keys run exactly once each.
import { suite } from '../../support/suite.js'
import * as assert from 'uvu/assert'
import fs from 'node:fs'
import path from 'node:path'
import { startRelay, type RunningRelay } from '../../../src/relay/index.js'
import { createEventVerifier } from '../../../src/transports/nostr/verify.js'
import { openBooks, withBooks } from '../../support/books.js'
import { startDaemon, tempDataDir, type TestDaemon } from '../../support/daemon.js'
import { appProfile, PubClient, sleep, type Reply } from '../../support/pub-client.js'

const delivery = suite('exactly-once delivery over standalone relays')
const relayDirs = [tempDataDir(), tempDataDir(), tempDataDir()]
const relays: RunningRelay[] = []
let daemon: TestDaemon
let dataDir: string
let appPubkey: string
const clients: PubClient[] = []
const config = () => `[nostr]\nrelays = [${relays.map(relay => `"${relay.url}"`).join(', ')}]\n`

async function client(urls: string[]): Promise<PubClient> {
  const made = await PubClient.connect({ relays: urls, appPubkey, timeoutMs: 20_000 })
  clients.push(made)
  return made
}
const keysOf = (reply: Reply) => `${reply.admin_key}/${reply.invoice_key}`

let verifyEvent: (event: any) => boolean

delivery.before(async () => {
  // A and B are honest relays (checking signatures on wasm, as the daemon's own relay does: the pure-JS check would
  // make this process the bottleneck); C accepts anything, so a tampered event can reach the daemon through it.
  verifyEvent = (await createEventVerifier()).verify
  relays.push(await startRelay({ host: '127.0.0.1', port: 0, dataDir: relayDirs[0]!, verifyEvent }))
  relays.push(await startRelay({ host: '127.0.0.1', port: 0, dataDir: relayDirs[1]!, verifyEvent }))
  relays.push(await startRelay({ host: '127.0.0.1', port: 0, dataDir: relayDirs[2]!, verifyEvent: () => true }))
  dataDir = path.join(tempDataDir(), 'data')
  daemon = await startDaemon({ dataDir, config: config() })
  appPubkey = appProfile(dataDir).pubkey
})
delivery.after(async () => {
  clients.forEach(c => c.close())
  await daemon.stop()
  for (const relay of relays) await relay.close()
})

delivery('the daemon names the configured relays in app.nprofile and runs no relay of its own', async () => {
  assert.equal(appProfile(dataDir).relays, relays.map(relay => relay.url))
  const info = JSON.parse(fs.readFileSync(path.join(dataDir, 'daemon.json'), 'utf8'))
  assert.equal(info.relays, relays.map(relay => relay.url))
})

delivery('a request delivered by a second relay runs once and is answered again with the same reply', async () => {
  const c = await client([relays[0]!.url, relays[1]!.url])
  const { event, requestId } = c.request('RotateWalletKeys')
  const first = c.waitFor(requestId)
  await c.publish(event, [relays[0]!.url])
  const original = await first
  assert.is(original.status, 'OK')
  const again = c.waitFor(requestId, 60_000, reply => c.messages(requestId).length >= 2 && reply !== original)
  await c.publish(event, [relays[1]!.url])
  assert.is(keysOf(await again), keysOf(original))
  assert.is(keysOf(await c.ok('GetWalletKeys')), keysOf(original), 'the keys were rotated once')
})

delivery('a repeatable read delivered again is run again and answers the moment; nothing of it is journalled', async () => {
  const c = await client([relays[0]!.url, relays[1]!.url])
  const { event, requestId } = c.request('GetUserInfo')
  const first = c.waitFor(requestId)
  await c.publish(event, [relays[0]!.url])
  const original = await first
  assert.is(original.status, 'OK')
  const url = `https://callbacks.invalid/${requestId}`
  await c.ok('UpdateCallbackUrl', { url })
  const again = c.waitFor(requestId, 60_000, reply => c.messages(requestId).length >= 2 && reply !== original)
  await c.publish(event, [relays[1]!.url])
  const second = await again
  assert.is(second.status, 'OK')
  assert.is.not(original.callback_url, url)
  assert.is(second.callback_url, url, 'run again, not the stored reply of the first run')
  const books = openBooks(dataDir, { readonly: true })
  try {
    assert.is(await books.one('SELECT event_id FROM nostr_requests WHERE event_id = ?', [event.id]), undefined, 'the read is not journalled')
    const writes = await books.many<{ reply: string | null }>('SELECT reply FROM nostr_requests WHERE requester = ?', [c.pubkey])
    assert.is(writes.length, 1, 'UpdateCallbackUrl, which writes, is')
    assert.ok(writes[0]!.reply, 'with its stored reply')
  } finally {
    await books.close()
  }
})

delivery('a tampered request (content changed under the original signature) is dropped', async () => {
  const c = await client([relays[0]!.url, relays[2]!.url])
  const before = keysOf(await c.ok('GetWalletKeys'))
  const signed = c.request('GetWalletKeys').event
  const forged = c.request('RotateWalletKeys')
  const tampered = { ...JSON.parse(JSON.stringify(signed)), content: forged.event.content }
  await c.publish(tampered, [relays[2]!.url])
  await c.ok('GetWalletKeys', {}, {}) // answered after the tampered one was delivered
  await sleep(300)
  assert.equal(c.messages(forged.requestId), [])
  assert.is(keysOf(await c.ok('GetWalletKeys')), before, 'nothing ran')
  assert.match(daemon.logs(), /bad id or signature/)
})

delivery('after a daemon restart a redelivered request is answered with its stored reply and not run again', async () => {
  const c = await client([relays[0]!.url])
  const { event, requestId } = c.request('RotateWalletKeys')
  const first = c.waitFor(requestId)
  await c.publish(event)
  const original = await first
  await daemon.stop()
  const again = c.waitFor(requestId, 15_000, reply => reply !== original)
  // The restarted daemon resumes its subscription a little before the newest request it had taken, so the relay
  // hands it this request again.
  daemon = await startDaemon({ dataDir, config: config() })
  assert.is(keysOf(await again), keysOf(original))
  assert.is(keysOf(await c.ok('GetWalletKeys')), keysOf(original))
})

delivery('after a relay restart the daemon resubscribes, and a request this run answered is not answered again', async () => {
  const c = await client([relays[0]!.url])
  const { event, requestId } = c.request('RotateWalletKeys')
  const first = c.waitFor(requestId)
  await c.publish(event)
  const original = await first
  const port = relays[0]!.port
  await relays[0]!.close()
  relays[0] = await startRelay({ host: '127.0.0.1', port, dataDir: relayDirs[0]!, verifyEvent })
  // The daemon resubscribes on reconnect from before the request (the relay kept it in memory only, as the daemon
  // heard it live: gone with the restart; one the daemon had not heard would be replayed from disk,
  // test/relay/ephemeral-memory.test.ts); a request published after that is answered after the resubscription (the
  // client's own reconnect is part of this call).
  assert.is(keysOf(await c.ok('GetWalletKeys')), keysOf(original))
  await sleep(500)
  assert.is(c.messages(requestId).length, 1, 'one reply event')
})

delivery('a request an earlier run took but never answered is answered "outcome unknown" and not run', async () => {
  const c = await client([relays[0]!.url])
  await c.ok('GetWalletKeys')
  const { event, requestId } = c.request('RotateWalletKeys')
  // What a crash between taking a request and answering it leaves behind: the claim without a reply.
  await daemon.stop()
  await withBooks(dataDir, books => books.run(`INSERT INTO nostr_requests (event_id, requester, app_pubkey, created_at, received_at)
                                               VALUES (?, ?, ?, ?, ?)`, [event.id, c.pubkey, appPubkey, event.created_at, Date.now()]))
  daemon = await startDaemon({ dataDir, config: config() })
  const other = await c.ok('RotateWalletKeys')
  const answer = c.waitFor(requestId, 15_000)
  await c.publish(event)
  const interrupted = await answer
  assert.is(interrupted.status, 'ERROR')
  assert.match(interrupted.reason, /outcome is unknown/)
  assert.is(keysOf(await c.ok('GetWalletKeys')), keysOf(other), 'the interrupted request did not run')
})

/** Each key rotates its wallet keys `rounds` times, one call after another; returns the replies per key. */
async function rotations(
  keys: PubClient[],
  rounds: number,
  publishTo?: string[],
): Promise<{ replies: Reply[][]; sent: { c: PubClient; event: any; requestId: string }[] }> {
  const sent: { c: PubClient; event: any; requestId: string }[] = []
  const replies = await Promise.all(
    keys.map(async c => {
      const mine: Reply[] = []
      for (let i = 0; i < rounds; i++) {
        const { event, requestId } = c.request('RotateWalletKeys')
        sent.push({ c, event, requestId })
        const reply = c.waitFor(requestId, 60_000)
        reply.catch(() => {}) // awaited below; a failed publish must not leave it unhandled
        await c.publish(event, publishTo, 60_000)
        mine.push(await reply)
      }
      return mine
    }),
  )
  return { replies, sent }
}

async function assertRanOnce(keys: PubClient[], replies: Reply[][]): Promise<void> {
  const all = replies.flat()
  assert.ok(all.every(reply => reply.status === 'OK'), 'every request was answered OK')
  assert.is(new Set(all.map(keysOf)).size, all.length, 'every rotation produced new keys')
  for (const [i, c] of keys.entries()) {
    assert.is(keysOf(await c.ok('GetWalletKeys')), keysOf(replies[i]!.at(-1)!), 'the last reply holds the current keys')
  }
}

delivery('a relay restarted twice under load loses no request and runs none twice', async () => {
  const keys = await Promise.all(Array.from({ length: 10 }, () => client([relays[0]!.url])))
  const load = rotations(keys, 20)
  for (let restart = 0; restart < 2; restart++) {
    await sleep(400)
    const port = relays[0]!.port
    await relays[0]!.close()
    await sleep(300)
    relays[0] = await startRelay({ host: '127.0.0.1', port, dataDir: relayDirs[0]!, verifyEvent })
  }
  const { replies } = await load
  assert.is(replies.flat().length, 200)
  await assertRanOnce(keys, replies)
})

delivery('1,000 requests from 50 keys: none lost, and delivering all of them again runs none twice', async () => {
  const keys = await Promise.all(Array.from({ length: 50 }, () => client([relays[0]!.url, relays[1]!.url])))
  const started = Date.now()
  const { replies, sent } = await rotations(keys, 20, [relays[0]!.url])
  const ms = Date.now() - started
  assert.is(replies.flat().length, 1000)
  await assertRanOnce(keys, replies)
  // Every request again, through the other relay (which has not seen them): each is answered again with its
  // stored reply, and nothing runs a second time.
  await Promise.all(
    sent.map(({ c, event, requestId }) => {
      const answered = c.messages(requestId)[0]!
      const again = c.waitFor(requestId, 60_000, reply => reply !== answered)
      again.catch(() => {})
      // 1,000 events at once through one relay: under a loaded machine their OKs take longer than the default 15 s.
      return c.publish(event, [relays[1]!.url], 60_000).then(() => again).then(reply => assert.is(keysOf(reply), keysOf(answered)))
    }),
  )
  await assertRanOnce(keys, replies)
  process.stdout.write(`    1,000 rotations in ${ms} ms\n`)
})

delivery.run()
