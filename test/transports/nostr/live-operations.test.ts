// End to end: an operation on a user's account is pushed to the user's key as GetLiveUserOperations, whether or not
// the key subscribed, with the balance after the operation (upstream pushes the balance from before it).
import { suite } from '../../support/suite.js'
import * as assert from 'uvu/assert'
import { startDaemon, type TestDaemon } from '../../support/daemon.js'
import { appProfile, PubClient, sleep } from '../../support/pub-client.js'

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

live('a key that subscribed (twice, as a reconnecting client does) gets each operation once, from its subscription', async () => {
  for (const requestId of ['GetLiveUserOperations', 'GetLiveUserOperations']) {
    const { event } = client.request('GetLiveUserOperations', {}, { requestId })
    await client.publish(event)
  }
  await client.ok('GetUserInfo') // the subscriptions were taken before this answer
  const before = client.messages('GetLiveUserOperations').length
  const { invoice } = await client.ok('NewInvoice', { amountSats: 300, memo: 'tea' })
  const paid = await daemon.request('POST', '/api/node/mock/invoice/paid', { body: { invoice, amount: 0 } })
  assert.is(paid.json.status, 'OK', paid.text)
  const push = await client.waitFor('GetLiveUserOperations', 10_000, message => message.operation?.amount === 300)
  assert.is(push.latest_balance, 2400)
  await sleep(300)
  assert.is(client.messages('GetLiveUserOperations').length, before + 1, 'one push, not one per path or per subscription')
  // The replaced subscription was a dispatcher call by the user: its access line is written when it ends.
  const lines = daemon.logs().split('\n').filter(line => line.includes('"room":"access"') && line.includes('"operation":"GetLiveUserOperations"'))
  assert.ok(lines.some(line => line.includes('"caller":"user"') && line.includes('"outcome":"ok"')), lines.join('\n'))
})

live.run()
