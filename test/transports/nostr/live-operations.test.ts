// End to end: an operation on a user's account is pushed to the user's key as GetLiveUserOperations, whether or not
// the key subscribed, with the balance after the operation (reference/pub-protocol.md §3.6, §14).
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { startDaemon, type TestDaemon } from '../../support/daemon.js'
import { appProfile, PubClient } from '../../support/pub-client.js'

const live = suite('live user operations over the relay')
let daemon: TestDaemon
let client: PubClient

live.before(async () => {
  daemon = await startDaemon()
  const { relays, pubkey } = appProfile(daemon.dataDir)
  client = await PubClient.connect({ relays, appPubkey: pubkey })
})
live.after(async () => {
  client.close()
  await daemon.stop()
})

live('a paid invoice is pushed to the key with the operation and the new balance', async () => {
  const { invoice } = await client.ok('NewInvoice', { amountSats: 2100, memo: 'coffee' })
  const push = client.waitFor('GetLiveUserOperations', 10_000)
  push.catch(() => {}) // awaited below
  const paid = await daemon.request('POST', '/api/node/mock/invoice/paid', { body: { invoice, amount: 0 } })
  assert.is(paid.json.status, 'OK', paid.text)
  const message = await push
  assert.is(message.status, 'OK')
  assert.is(message.operation.type, 'INCOMING_INVOICE')
  assert.is(message.operation.amount, 2100)
  assert.is(message.latest_balance, 2100)
})

live.run()
