// Accounts are not free: fresh Nostr keys open accounts on their own (a first request to an app that lets clients
// create users), and the node bounds how many it opens ([apps] new_accounts_per_minute and new_accounts_burst).
// Over the budget a new key is refused in words over the relay; a key that has its account is never held back.
// The embedded relay adds a budget per client address: new keys it may send requests from a minute.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { startDaemon, type TestDaemon } from '../support/daemon.js'
import { appProfile, PubClient } from '../support/pub-client.js'
import { finalizeEvent, generateSecretKey } from 'nostr-tools/pure'
import { connectWire } from '../relay/wire-client.js'

const test = suite('new accounts per minute')
let daemon: TestDaemon
const clients: PubClient[] = []

test.before(async () => {
  daemon = await startDaemon({ config: '[apps]\nnew_accounts_per_minute = 1\nnew_accounts_burst = 2\n' })
})
test.after(async () => {
  clients.forEach(client => client.close())
  await daemon.stop()
})

const fresh = async () => {
  const profile = appProfile(daemon.dataDir)
  const client = await PubClient.connect({ relays: profile.relays, appPubkey: profile.pubkey })
  clients.push(client)
  return client
}

test('the burst opens accounts; the next fresh key is refused naming the setting; known keys pass', async () => {
  const [first, second, third] = [await fresh(), await fresh(), await fresh()]
  const opened = await first.ok('GetWalletKeys')
  await second.ok('GetWalletKeys')
  const refused = await third.call('GetWalletKeys')
  assert.is(refused.status, 'ERROR')
  assert.match(refused.reason, /^too many requests: new accounts on this node \(the operator's \[apps\] new_accounts_per_minute\); try again in \d+ s$/)
  // The first key has its account: answered, and the same wallet.
  assert.is((await first.ok('GetWalletKeys')).wallet_id, opened.wallet_id)
})

test("one address opens accounts from so many new keys a minute (the relay's budget); the refusal names it", async () => {
  // Its own daemon: a node-wide budget large enough that only the address's can refuse.
  const own = await startDaemon({ config: '[apps]\nnew_accounts_burst = 1000\n[nostr]\nrelay_new_keys_per_minute_per_address = 2\n' })
  const wallets = () => own.request('POST', '/api/admin/users/info', { body: {}, headers: { authorization: `Bearer ${own.adminToken}` } }).then(res => res.json.total as number)
  const local: PubClient[] = []
  try {
    const profile = appProfile(own.dataDir)
    const before = await wallets()
    for (let i = 0; i < 2; i++) {
      local.push(await PubClient.connect({ relays: profile.relays, appPubkey: profile.pubkey }))
      await local[i]!.ok('GetWalletKeys')
    }
    const wire = await connectWire(profile.relays[0]!)
    try {
      const request = finalizeEvent({ kind: 21000, created_at: Math.floor(Date.now() / 1000), tags: [['p', profile.pubkey]], content: 'a request' }, generateSecretKey())
      const [accepted, reason] = await wire.publish(request)
      assert.is(accepted, false)
      assert.match(reason, /^rate-limited: too many new keys from your address; one more in \d+ s$/)
    } finally {
      wire.close()
    }
    assert.is(await wallets(), before + 2, 'two accounts opened, no third')
    assert.is((await local[0]!.ok('GetWalletKeys')).status, 'OK', 'a key the address used is answered')
  } finally {
    local.forEach(client => client.close())
    await own.stop()
  }
})

test.run()
