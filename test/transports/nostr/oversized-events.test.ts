// An external relay may deliver events of any size; the daemon drops one above `[nostr] max_event_bytes` before it
// parses or decrypts it, logs a warning, answers nothing, and keeps serving the same connection. The relay here is
// a real standalone relay (src/relay) that accepts the large event, so only the daemon's cap stands in the way.
import path from 'node:path'
import { suite } from '../../support/suite.js'
import * as assert from 'uvu/assert'
import { startRelay, type RunningRelay } from '../../../src/relay/index.js'
import { startDaemon, tempDataDir, type TestDaemon } from '../../support/daemon.js'
import { appProfile, PubClient, sleep } from '../../support/pub-client.js'

const maxEventBytes = 8192
const test = suite('events above the size cap from an external relay')
let relay: RunningRelay
let daemon: TestDaemon
let client: PubClient

test.before(async () => {
  relay = await startRelay({ host: '127.0.0.1', port: 0, dataDir: tempDataDir() })
  const dataDir = path.join(tempDataDir(), 'data')
  daemon = await startDaemon({ dataDir, config: `[nostr]\nrelays = ["${relay.url}"]\nmax_event_bytes = ${maxEventBytes}\n` })
  client = await PubClient.connect({ relays: [relay.url], appPubkey: appProfile(dataDir).pubkey, timeoutMs: 20_000 })
})
test.after(async () => {
  client?.close()
  await daemon?.stop()
  await relay?.close()
})

test('an oversized kind-21000 request is dropped unread with a warning; the next request is answered', async () => {
  // A valid request, made large by a field the operation does not read.
  const big = client.request('GetUserInfo', { padding: 'x'.repeat(2 * maxEventBytes) })
  assert.ok(JSON.stringify(big.event).length > maxEventBytes)
  await client.publish(big.event)
  // Answered after the big one was delivered on the same subscription.
  const small = await client.ok('GetUserInfo')
  assert.ok(small.userId, JSON.stringify(small))
  await sleep(300)
  assert.equal(client.messages(big.requestId), [], 'no reply to the dropped request')
  const warning = daemon.logs().split('\n').find(line => line.includes('larger than [nostr] max_event_bytes'))
  assert.ok(warning, 'a warning is logged')
  const logged = JSON.parse(warning!)
  assert.is(logged.level, 40)
  assert.ok(logged.bytes > maxEventBytes)
  assert.is(logged.maxEventBytes, maxEventBytes)
  assert.not.match(daemon.logs(), /"msg":"[^"]*(decrypt|invalid request)/i, 'never decrypted or parsed as a request')
})

test('a request just under the cap is served', async () => {
  const padding = 'y'.repeat(maxEventBytes / 4)
  const reply = await client.ok('GetUserInfo', { padding })
  assert.ok(reply.userId)
})

test.run()
