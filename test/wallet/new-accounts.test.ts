// Accounts are not free: fresh Nostr keys open accounts on their own (a first request to an app that lets clients
// create users), and the node bounds how many it opens ([apps] new_accounts_per_minute and new_accounts_burst).
// Over the budget a new key is refused in words over the relay; a key that has its account is never held back.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { startDaemon, type TestDaemon } from '../support/daemon.js'
import { appProfile, PubClient } from '../support/pub-client.js'

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

test.run()
