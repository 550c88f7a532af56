// Linking an app user to a relay key, the HTTP upgrade, devices and BatchUser, through the daemon's public doors:
// the app's HTTP API and an independent relay client.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { startDaemon, type TestDaemon } from '../support/daemon.js'
import { appProfile, PubClient, sleep } from '../support/pub-client.js'

const linking = suite('npub linking, HTTP upgrade, devices and batches')
let daemon: TestDaemon
let relays: string[]
let wallet: string
let shop: { pubkey: string; token: string }
const clients: PubClient[] = []
const connect = async (appPubkey = wallet, scheme?: 'nip44v1' | 'nip44v2') => {
  const client = await PubClient.connect({ relays, appPubkey, scheme })
  clients.push(client)
  return client
}
const post = async (path: string, body: unknown, authorization?: string) =>
  (await daemon.request('POST', path, { body, headers: authorization ? { authorization } : {} })).json

linking.before(async () => {
  daemon = await startDaemon({ config: '[http]\nallow_upgrade = true\npublic_url = "https://pay.example.com"\n' })
  ;({ relays, pubkey: wallet } = appProfile(daemon.dataDir))
  const added = await post('/api/admin/app/add', { name: 'shop', allow_user_creation: false }, daemon.adminToken)
  assert.is(added.status, 'OK', JSON.stringify(added))
  shop = { pubkey: added.app.npub, token: added.auth_token }
})
linking.after(async () => {
  clients.forEach(c => c.close())
  await daemon.stop()
})

linking('an app added while running answers on its own key; it refuses unknown keys when it opens no accounts', async () => {
  const stranger = await connect(shop.pubkey)
  const reply = await stranger.call('GetWalletKeys')
  assert.is(reply.status, 'ERROR')
  assert.is(reply.reason, 'user creation by client is not allowed in this app')
})

linking('an app user is linked to a key with a 2-minute token presented over the relay', async () => {
  const user = await post('/api/app/user/add', { identifier: 'alice', fail_if_exists: true, balance: 0 }, shop.token)
  assert.is(user.status, 'OK', JSON.stringify(user))
  const state = () => post('/api/app/user/npub/state', { user_identifier: 'alice' }, shop.token)
  assert.equal((await state()).state, { type: 'unlinked', unlinked: {} })

  const issued = await post('/api/app/user/npub/token', { user_identifier: 'alice' }, shop.token)
  assert.match(issued.token, /^[0-9a-f]{64}$/)
  assert.equal((await state()).state, { type: 'linking_token', linking_token: issued.token })
  const twice = await post('/api/app/user/npub/token', { user_identifier: 'alice' }, shop.token)
  assert.is(twice.reason, 'a linking token is already pending for this user')

  const alice = await connect(shop.pubkey)
  // A token is only good at the app that issued it.
  const elsewhere = await connect(wallet)
  assert.is((await elsewhere.call('LinkNPubThroughToken', { token: issued.token })).reason, 'invalid or expired linking token')
  assert.is((await alice.call('LinkNPubThroughToken', { token: issued.token })).status, 'OK')
  assert.equal((await state()).state, { type: 'linked_npub', linked_npub: alice.pubkey })
  // The key now acts as alice: the same wallet the app sees.
  assert.is((await alice.ok('GetWalletKeys')).wallet_id, user.info.userId)
  assert.is((await alice.call('LinkNPubThroughToken', { token: issued.token })).reason, 'invalid or expired linking token')

  const relinked = await post('/api/app/user/npub/token', { user_identifier: 'alice' }, shop.token)
  assert.is(relinked.reason, 'this user is already linked to an npub')
  const reset = await post('/api/app/user/npub/token/reset', { user_identifier: 'alice' }, shop.token)
  assert.match(reset.token, /^[0-9a-f]{64}$/)
  const bob = await connect(shop.pubkey)
  assert.is((await bob.call('LinkNPubThroughToken', { token: reset.token })).status, 'OK')
  assert.is((await bob.ok('GetWalletKeys')).wallet_id, user.info.userId, 're-linked to the new key')
})

linking('another app cannot see or link this app\'s users', async () => {
  const other = await post('/api/admin/app/add', { name: 'other', allow_user_creation: true }, daemon.adminToken)
  const reply = await post('/api/app/user/npub/token', { user_identifier: 'alice' }, other.auth_token)
  assert.is(reply.status, 'ERROR')
  assert.is(reply.reason, 'user not found')
})

linking('GetHttpCreds gives the public URL and a user token that works over HTTP as the same user', async () => {
  for (const scheme of ['nip44v1', 'nip44v2'] as const) {
    const user = await connect(wallet, scheme)
    const creds = await user.ok('GetHttpCreds')
    assert.is(creds.url, 'https://pay.example.com')
    const overHttp = await post('/api/user/wallet/keys', {}, creds.token)
    assert.is(overHttp.status, 'OK', JSON.stringify(overHttp))
    assert.is(overHttp.wallet_id, (await user.ok('GetWalletKeys')).wallet_id)
  }
})

linking('EnrollMessagingToken keeps a device token; an empty one is refused', async () => {
  const user = await connect()
  assert.is((await user.call('EnrollMessagingToken', { device_id: 'phone', firebase_messaging_token: 'fcm-1' })).status, 'OK')
  assert.is((await user.call('EnrollMessagingToken', { device_id: 'phone', firebase_messaging_token: 'fcm-2' })).status, 'OK')
  const empty = await user.call('EnrollMessagingToken', { device_id: 'phone', firebase_messaging_token: '' })
  assert.is(empty.status, 'ERROR')
})

linking('EncryptionExchange answers OK over HTTP and refuses an empty key', async () => {
  assert.is((await post('/api/encryption/exchange', { publicKey: 'ab'.repeat(33), deviceId: 'phone' })).status, 'OK')
  assert.is((await post('/api/encryption/exchange', { publicKey: '', deviceId: 'phone' })).status, 'ERROR')
})

const batchCases = (calls: unknown[]) => ({ requests: calls })

linking('BatchUser over the relay and over HTTP: one answer per entry, in order, as the same user', async () => {
  const user = await connect()
  const creds = await user.ok('GetHttpCreds')
  const calls = [
    { rpcName: 'GetWalletKeys', req: {} },
    { rpcName: 'NoSuchOperation', req: {} },
    { rpcName: 'GetApp', req: {} }, // an App operation: not a user call
    { rpcName: 'GetLiveUserOperations' }, // a stream: not batchable
    { rpcName: 'CreateWallet', req: { name: '' } },
    { rpcName: 'CreateWallet', req: { name: 'savings' } },
  ]
  const overRelay = await user.ok('BatchUser', batchCases(calls))
  const overHttp = await post('/api/user/batch', batchCases(calls), creds.token)
  const mine = (await user.ok('GetWalletKeys')).wallet_id
  for (const reply of [overRelay, overHttp]) {
    assert.is(reply.status, 'OK', JSON.stringify(reply))
    const r = reply.responses
    assert.is(r.length, 6)
    assert.is(r[0].status, 'OK')
    assert.is(r[0].wallet_id, mine)
    assert.equal(r[1], { status: 'ERROR', reason: 'unkown rpcName' })
    assert.equal(r[2], { status: 'ERROR', reason: 'unkown rpcName' })
    assert.equal(r[3], { status: 'ERROR', reason: 'unkown rpcName' })
    assert.is(r[4].status, 'ERROR')
    assert.is(r[5].status, 'OK')
    assert.is(r[5].name, 'savings')
  }
  const tooMany = Array.from({ length: 11 }, () => ({ rpcName: 'GetWalletKeys', req: {} }))
  assert.is((await user.call('BatchUser', batchCases(tooMany))).reason, 'too many requests in the batch')
  assert.is((await post('/api/user/batch', batchCases(tooMany), creds.token)).reason, 'too many requests in the batch')
})

linking('GetLiveUserOperations is a subscription: it answers nothing', async () => {
  const user = await connect()
  const { event, requestId } = user.request('GetLiveUserOperations', {}, { requestId: 'GetLiveUserOperations' })
  await user.publish(event)
  await user.ok('GetWalletKeys')
  await sleep(200)
  assert.equal(user.messages(requestId), [])
})

linking.run()
