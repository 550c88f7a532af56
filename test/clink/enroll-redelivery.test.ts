// CLINK enroll (kind 21004) delivered again, with the daemon on two standalone relays: the same signed request
// published anew through the second relay reaches the daemon live and is answered again with the same answer,
// and no second account is opened. One account per enroll event, however often it is delivered.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import path from 'node:path'
import { finalizeEvent, generateSecretKey } from 'nostr-tools/pure'
import { startRelay, type RunningRelay } from '../../src/relay/index.js'
import { createEventVerifier } from '../../src/transports/nostr/verify.js'
import { startDaemon, tempDataDir, type TestDaemon } from '../support/daemon.js'
import { appProfile } from '../support/pub-client.js'
import { ok } from '../support/money.js'
import { ClinkClient } from './clink-client.js'

const test = suite('CLINK enroll published again')
const relays: RunningRelay[] = []
const clients: ClinkClient[] = []
let daemon: TestDaemon

test.before(async () => {
  const { verify } = await createEventVerifier()
  for (let i = 0; i < 2; i++) relays.push(await startRelay({ host: '127.0.0.1', port: 0, dataDir: tempDataDir(), verifyEvent: verify }))
  // No proof of work: what is under test is the delivery, not the mining.
  const config = `[clink]\nenroll_pow_bits = 0\n[nostr]\nrelays = [${relays.map(relay => `"${relay.url}"`).join(', ')}]\n`
  daemon = await startDaemon({ dataDir: path.join(tempDataDir(), 'data'), config })
})
test.after(async () => {
  clients.forEach(client => client.close())
  await daemon?.stop()
  for (const relay of relays) await relay.close()
})

const accounts = async () => (await ok(daemon, '/api/admin/users/info', `Bearer ${daemon.adminToken}`, {})).total as number

test('the same enroll event through a second relay gets the same answer; one account is opened', async () => {
  const appPubkey = appProfile(daemon.dataDir).pubkey
  const key = generateSecretKey()
  const [first, second] = await Promise.all(relays.map(relay => ClinkClient.connect(relay.url, appPubkey, key)))
  clients.push(first!, second!)
  const before = await accounts()
  const request = finalizeEvent({ kind: 21004, created_at: Math.floor(Date.now() / 1000), tags: [['p', appPubkey], ['clink_version', '1']], content: first!.encrypt({}) }, key)

  const exchange = await first!.publish(request)
  const { payload: answer, event: firstReply } = await exchange.next()
  exchange.close()
  assert.is(answer.res, 'ok', JSON.stringify(answer))
  assert.is(await accounts(), before + 1)

  // The same signed event, published to the second relay only now: it reaches the daemon live.
  // The first answer may be on the second relay too (the daemon publishes to both): the new one is another event.
  const again = await second!.publish(request)
  let reply = await again.next()
  while (reply.event.id === firstReply.id) reply = await again.next()
  const repeated = reply.payload
  again.close()
  assert.equal(repeated, answer, 'the stored answer, pointers and all')
  assert.is(await accounts(), before + 1, 'no second account')
})

test.run()
