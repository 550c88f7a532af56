// SIGHUP with a new `[nostr] relays` list, as an operator moves the daemon from one relay to another: the daemon
// leaves the old relay, serves kind 21000 and NIP-47 on the new one, names it in app.nprofile, daemon.json and new
// NWC connection strings, and keeps serving HTTP throughout. Moving to or from the embedded relay needs a restart.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import fs from 'node:fs'
import path from 'node:path'
import { startRelay, type RunningRelay } from '../../src/relay/index.js'
import { createEventVerifier } from '../../src/transports/nostr/verify.js'
import { startDaemon, tempDataDir, type TestDaemon } from '../support/daemon.js'
import { PubClient, appProfile } from '../support/pub-client.js'
import { createAppWithUser, jwtSecretConfig } from '../support/accounts.js'
import { NwcTestClient } from '../support/nwc-client.js'
import { ok } from '../support/money.js'
import { until } from '../support/until.js'
import { connectWire } from '../relay/wire-client.js'

const jwtSecret = 'reload-relays-secret-0123456789abcdef'
const test = suite('SIGHUP moves the daemon to other relays')
const relays: RunningRelay[] = []
const closers: { close(): void }[] = []
let daemon: TestDaemon


const logLines = () =>
  daemon
    .logs()
    .split('\n')
    .filter(line => line.startsWith('{'))
    .map(line => JSON.parse(line))

const configFor = (urls: string[]) => `${jwtSecretConfig(jwtSecret)}\n[nostr]\nrelays = [${urls.map(url => `"${url}"`).join(', ')}]\n`

test.before(async () => {
  const { verify } = await createEventVerifier()
  for (let i = 0; i < 2; i++) relays.push(await startRelay({ host: '127.0.0.1', port: 0, dataDir: tempDataDir(), verifyEvent: verify }))
  daemon = await startDaemon({ dataDir: path.join(tempDataDir(), 'data'), config: configFor([relays[0]!.url]) })
})
test.after(async () => {
  closers.forEach(client => client.close())
  await daemon?.stop()
  for (const relay of relays) await relay.close()
})

test('after a SIGHUP the daemon serves on the new relay only, and says so', async () => {
  const [first, second] = relays as [RunningRelay, RunningRelay]
  const user = await createAppWithUser(daemon, { jwtSecret, identifier: 'mover' })
  await until(() => first.stats().connections > 0, 'the daemon on the first relay')
  assert.is(second.stats().connections, 0)

  const before = logLines().length
  fs.writeFileSync(path.join(daemon.dataDir, 'relaypay.toml'), configFor([second.url]))
  daemon.process.kill('SIGHUP')
  // One relay pool serves kind 21000, CLINK and NIP-47: its line says the move is done.
  await until(() => logLines().slice(before).some(line => line.msg === 'relay transport now serves on these relays'), 'the move')
  const line = logLines().slice(before).find(line => String(line.msg).startsWith('config reloaded'))
  assert.equal(line.applied, ['nostr.relays'])
  assert.equal(line.needs_restart, [])

  // The old relay is left, the new one holds the daemon's links; the files name the new relay.
  await until(() => first.stats().connections === 0, 'the daemon leaving the first relay')
  assert.ok(second.stats().connections > 0)
  const profile = appProfile(daemon.dataDir)
  assert.equal(profile.relays, [second.url])
  assert.equal(JSON.parse(fs.readFileSync(path.join(daemon.dataDir, 'daemon.json'), 'utf8')).relays, [second.url])

  // Both service beacons are on the new relay at once (not a minute later), the clink-node one naming it.
  const wire = await connectWire(second.url)
  closers.push(wire)
  const beacons = async () => {
    const events = await wire.query(`beacons-${Date.now()}`, { kinds: [30078], authors: [profile.pubkey] })
    return new Map(events.map(event => [event.tags.find(tag => tag[0] === 'd')?.[1], event]))
  }
  await until(async () => (await beacons()).size === 2, 'both beacons on the new relay')
  const clinkNode = (await beacons()).get('clink-node')!
  assert.equal(JSON.parse(clinkNode.content).relays, [second.url])
  assert.ok((await beacons()).has('Lightning.Pub'))

  // Kind 21000 on the new relay is answered.
  const client = await PubClient.connect({ relays: [second.url], appPubkey: profile.pubkey, timeoutMs: 10_000 })
  closers.push(client)
  const info = await client.ok('GetUserInfo')
  assert.type(info.userId, 'string')

  // A new NWC connection names the new relay, and its requests are answered there.
  const { connection_uri: uri } = await ok(daemon, '/api/user/nwc/create', user.userToken, { name: 'after-move' })
  assert.equal(new URL(uri).searchParams.getAll('relay'), [second.url])
  const nwc = await NwcTestClient.connect(uri, second.url)
  closers.push(nwc)
  const balance = await nwc.send(nwc.buildRequest('get_balance', {}))
  assert.is(balance.error, null)
  assert.equal((await daemon.request('GET', '/readyz')).status, 200)
})

test('moving to the embedded relay (an empty list) is named as needing a restart and changes nothing', async () => {
  const before = logLines().length
  fs.writeFileSync(path.join(daemon.dataDir, 'relaypay.toml'), configFor([]))
  daemon.process.kill('SIGHUP')
  await until(() => logLines().slice(before).some(line => String(line.msg).startsWith('config reloaded')), 'the reload line')
  const line = logLines().slice(before).find(line => String(line.msg).startsWith('config reloaded'))
  assert.equal(line.applied, [])
  assert.equal(line.needs_restart, ['nostr.relays'])
  assert.equal(appProfile(daemon.dataDir).relays, [relays[1]!.url])
  assert.ok(relays[1]!.stats().connections > 0)
})

test.run()
