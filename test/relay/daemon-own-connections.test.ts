// The daemon's own connections to its embedded relay: they show the per-process secret and get slots of
// their own beyond the caps, and the relay learns the keys it serves from their subscriptions, at once.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { startDaemon, type TestDaemon } from '../support/daemon.js'
import { appProfile, PubClient } from '../support/pub-client.js'
import { connectWire } from './wire-client.js'

const test = suite("the daemon's own relay connections")
let daemon: TestDaemon | undefined
const clients: PubClient[] = []

test.after.each(async () => {
  clients.splice(0).forEach(client => client.close())
  await daemon?.stop()
  daemon = undefined
})

test('with room for one stranger only, the daemon still connects (reserved slots) and one wallet is served', async () => {
  daemon = await startDaemon({ env: { RELAYPAY_NOSTR_RELAY_MAX_CONNECTIONS: '1' } })
  const { relays, pubkey } = appProfile(daemon.dataDir)
  const wallet = await PubClient.connect({ relays, appPubkey: pubkey, timeoutMs: 60_000 })
  clients.push(wallet)
  assert.is((await wallet.call('GetUserInfo')).status, 'OK', 'the daemon heard the wallet: its own links got in')
  const second = await connectWire(relays[0]!)
  const closed = await second.closed
  assert.is(closed.code, 1013, 'a second stranger is turned away')
})

test('a new app answers at once: the relay takes requests to its key as soon as the daemon listens for it', async () => {
  daemon = await startDaemon()
  const added = await daemon.request('POST', '/api/admin/app/add', {
    body: { name: 'shop', allow_user_creation: true },
    headers: { authorization: daemon.adminToken },
  })
  assert.is(added.json.status, 'OK', added.text)
  const wallet = await PubClient.connect({ relays: appProfile(daemon.dataDir).relays, appPubkey: added.json.app.npub, timeoutMs: 10_000 })
  clients.push(wallet)
  const reply = await wallet.call('GetUserInfo')
  assert.ok(reply.status === 'OK' || reply.status === 'ERROR', `the request reached the daemon (${JSON.stringify(reply)})`)
  // A request to a key nobody serves is refused by the relay itself.
  const stranger = await PubClient.connect({ relays: appProfile(daemon.dataDir).relays, appPubkey: 'ab'.repeat(32), timeoutMs: 3000 })
  clients.push(stranger)
  const refused = await stranger.call('GetUserInfo').then(r => JSON.stringify(r), (err: Error) => err.message)
  assert.match(refused, /blocked|no message/)
})

test.run()
