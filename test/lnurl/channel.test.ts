// LNURL-channel (LUD-02) through the wire: the wallet reads the channelRequest, connects to the node (simulated
// here with the operator's AddPeer, which is how the embedded node learns of a connected peer), and calls the
// callback; the node opens a channel that ListChannels then shows. The link works once.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import type { TestDaemon } from '../support/daemon.js'
import { addAppUser, createAppWithUser, type TestAppUser } from '../support/accounts.js'
import { randomNodePubkey } from '../support/outside-invoice.js'
import { decodeLnurl, getAdvertised, publicUrl, startLnurlDaemon } from './lnurl-client.js'

const jwtSecret = 'lnurl-channel-test-secret-0123456789ab'
const test = suite('lnurl-channel')
let daemon: TestDaemon
let user: TestAppUser

test.before(async () => {
  daemon = await startLnurlDaemon(jwtSecret)
  user = await createAppWithUser(daemon, { jwtSecret, identifier: 'channel-user' })
})
test.after(async () => {
  await daemon?.stop()
})

const admin = async (method: string, path: string, body?: unknown) =>
  (await daemon.request(method, path, { ...(body !== undefined ? { body } : {}), headers: { authorization: daemon.adminToken } })).json

test('a channel request opens a channel to the connected wallet node, once', async () => {
  const link = (await daemon.request('POST', '/api/user/lnurl_channel/url', { headers: { authorization: user.userToken } })).json
  assert.is(link.status, 'OK', JSON.stringify(link))
  const infoUrl = decodeLnurl(link.lnurl)
  assert.is(infoUrl, `${publicUrl}/api/guest/lnurl_channel/info?k1=${link.k1}`)
  const info = await getAdvertised(daemon, infoUrl)
  assert.is(info.tag, 'channelRequest')
  assert.is(info.k1, link.k1)
  assert.match(info.uri, /^(02|03)[0-9a-f]{64}@127\.0\.0\.1:9735$/)

  const walletNode = randomNodePubkey()
  const notConnected = await getAdvertised(daemon, info.callback, { k1: link.k1, remoteid: walletNode, private: '1' })
  assert.is(notConnected.status, 'ERROR')
  assert.match(notConnected.reason, /connect to/)

  assert.is((await admin('POST', '/api/admin/peer', { pubkey: walletNode, host: '127.0.0.1', port: 9735 })).status, 'OK')
  const opened = await getAdvertised(daemon, info.callback, { k1: link.k1, remoteid: walletNode, private: '1' })
  assert.equal(opened, { status: 'OK' })
  const channels = (await admin('GET', '/api/admin/channels')).open_channels as any[]
  assert.is(channels.length, 1)
  assert.is(channels[0].capacity, 100_000)
  assert.is(channels[0].local_balance, 100_000, 'the node funded it; nothing pushed')

  const again = await getAdvertised(daemon, info.callback, { k1: link.k1, remoteid: walletNode })
  assert.is(again.status, 'ERROR')
  const another = (await daemon.request('POST', '/api/user/lnurl_channel/url', { headers: { authorization: user.userToken } })).json
  assert.is(another.status, 'ERROR', 'one channel per user')
})

test("a user's three links used at once: the node opens one channel", async () => {
  const other = await addAppUser(daemon, { appToken: user.appToken, appId: user.appId, jwtSecret, identifier: 'channel-user-2' })
  const links: { k1: string }[] = []
  for (let i = 0; i < 3; i++) {
    const link = (await daemon.request('POST', '/api/user/lnurl_channel/url', { headers: { authorization: other.userToken } })).json
    assert.is(link.status, 'OK', JSON.stringify(link))
    links.push(link)
  }
  const walletNode = randomNodePubkey()
  assert.is((await admin('POST', '/api/admin/peer', { pubkey: walletNode, host: '127.0.0.1', port: 9735 })).status, 'OK')
  const before = ((await admin('GET', '/api/admin/channels')).open_channels as any[]).length
  const callback = `${publicUrl}/api/guest/lnurl_channel/handle`
  const answers = await Promise.all(links.map(link => getAdvertised(daemon, callback, { k1: link.k1, remoteid: walletNode })))
  assert.is(answers.filter(a => a.status === 'OK').length, 1, JSON.stringify(answers))
  for (const answer of answers.filter(a => a.status !== 'OK')) assert.is(answer.reason, 'a channel was already opened for this user')
  assert.is(((await admin('GET', '/api/admin/channels')).open_channels as any[]).length, before + 1)
})

test.run()
