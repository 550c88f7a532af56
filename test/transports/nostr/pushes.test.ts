// Pushes and beacons leave through a real relay and are read by the independent client: a `user.operation` domain
// event becomes a GetLiveUserOperations push to the user's linked key; every app announces itself on kind 30078.
import { suite } from '../../support/suite.js'
import * as assert from 'uvu/assert'
import { pino } from 'pino'
import { WebSocket } from 'ws'
import { AbstractRelay } from 'nostr-tools/abstract-relay'
import { generateSecretKey, getPublicKey, verifyEvent, type Event } from 'nostr-tools/pure'
import { bytesToHex } from '@noble/hashes/utils.js'
import { createEventBus } from '../../../src/bus/events.js'
import { startRelay, type RunningRelay } from '../../../src/relay/index.js'
import { appKeyring } from '../../../src/transports/nostr/app-keys.js'
import { conversationKeys } from '../../../src/nostr-codecs/index.js'
import { replySender } from '../../../src/transports/nostr/reply-sender.js'
import { createRelayPool, type RelayPool } from '../../../src/transports/nostr/relay-pool.js'
import { createEventSigner } from '../../../src/transports/nostr/sign.js'
import { pushLiveUserOperations } from '../../../src/transports/nostr/pushes.js'
import { serviceBeacon } from '../../../src/transports/nostr/beacon.js'
import { tempDataDir } from '../../support/daemon.js'
import { PubClient, sleep } from '../../support/pub-client.js'

const log = pino({ level: process.env.TEST_LOG ?? 'silent' })
// A fixed instant (a few seconds ago, in whole seconds): the beacon's date comes from it, not from the system clock.
const fixedNow = Math.floor(Date.now() / 1000) * 1000 - 5000
const clock = { now: () => fixedNow }
const appSecret = generateSecretKey()
const apps = await appKeyring(async () => [
  { id: 'app-1', name: 'corner shop', nostr_public_key: getPublicKey(appSecret), nostr_private_key: bytesToHex(appSecret) },
])
let relay: RunningRelay
let pool: RelayPool
const clients: PubClient[] = []

const pushes = suite('live operations are pushed to the linked key')

pushes.before(async () => {
  relay = await startRelay({ host: '127.0.0.1', port: 0, dataDir: tempDataDir() })
  pool = createRelayPool({ urls: [relay.url], filter: () => ({ kinds: [1], limit: 0 }), onEvent: () => {}, log, clock: { now: () => Date.now() }, outboxMaxAgeSeconds: 600 })
  await pool.ready(5000)
})
pushes.after(async () => {
  clients.forEach(c => c.close())
  await pool.close()
  await relay.close()
})

pushes('a user.operation reaches the linked key with the operation and the balance after it', async () => {
  const { sign } = await createEventSigner()
  const user = await PubClient.connect({ relays: [relay.url], appPubkey: apps.all()[0]!.pubkey })
  const unlinked = await PubClient.connect({ relays: [relay.url], appPubkey: apps.all()[0]!.pubkey })
  clients.push(user, unlinked)
  const events = createEventBus()
  const sender = replySender({ keys: conversationKeys(), send: (template, key) => pool.publish(sign(template, key)), clock: { now: () => Date.now() }, maxContentLength: 40_000 })
  const linked: Record<string, { app_id: string; nostr_public_key: string | null }> = {
    'user-1': { app_id: 'app-1', nostr_public_key: user.pubkey },
    'user-2': { app_id: 'app-1', nostr_public_key: null },
  }
  const subscription = pushLiveUserOperations({ events$: events.events$, users: { appUserOf: async id => linked[id] }, apps, sender, log })
  const operation = { paidAtUnix: 1_755_700_000, type: 'INCOMING_INVOICE', inbound: true, amount: 2100, identifier: 'lnbc…', operationId: 'INCOMING_INVOICE-57', service_fee: 0, network_fee: 0, confirmed: true, tx_hash: '', internal: false }
  const push = user.waitFor('GetLiveUserOperations', 5000)
  events.emit({ type: 'user.operation', userId: 'user-2', operation: { ...operation, amount: 1 }, latestBalanceSats: 1 })
  events.emit({ type: 'user.operation', userId: 'user-1', operation, latestBalanceSats: 5100 })
  assert.equal(await push, { status: 'OK', operation, latest_balance: 5100, requestId: 'GetLiveUserOperations' })
  await sleep(200)
  assert.is(user.messages('GetLiveUserOperations').length, 1, 'the unlinked user\'s operation went nowhere')
  assert.is(unlinked.received.length, 0)
  subscription.unsubscribe()
})

pushes('each app publishes a kind-30078 beacon with its name and fees, signed by its key', async () => {
  const { sign } = await createEventSigner()
  const beacon = serviceBeacon({ apps: apps.all, fees: { serviceFeeFloor: 10, serviceFeeBps: 60 }, send: (template, key) => pool.publish(sign(template, key)), clock, relays: () => [relay.url], enrollDifficulty: 0 })
  beacon.announce()
  await sleep(300)
  const reader = await AbstractRelay.connect(relay.url, { verifyEvent, websocketImplementation: WebSocket as unknown as typeof globalThis.WebSocket })
  const found = await new Promise<Event[]>(resolve => {
    const seen: Event[] = []
    reader.subscribe([{ kinds: [30078], '#d': ['Lightning.Pub'], authors: [apps.all()[0]!.pubkey] }], {
      onevent: e => seen.push(e),
      oneose: () => resolve(seen),
    })
  })
  reader.close()
  assert.is(found.length, 1)
  assert.is(found[0]!.created_at, clock.now() / 1000, 'dated by the injected clock')
  assert.equal(JSON.parse(found[0]!.content), { type: 'service', name: 'corner shop', fees: { serviceFeeFloor: 10, serviceFeeBps: 60 } })
  assert.equal(found[0]!.tags, [['d', 'Lightning.Pub']])
})

pushes('the beacon timer runs every interval until stopped', async () => {
  const { sign } = await createEventSigner()
  let published = 0
  // Counted by the legacy beacon: each announcement publishes the clink-node one after it.
  const beacon = serviceBeacon({
    apps: apps.all, fees: { serviceFeeFloor: 10, serviceFeeBps: 60 }, clock, intervalMs: 20, relays: () => [], enrollDifficulty: 0,
    send: template => void (template.tags[0]?.[1] === 'Lightning.Pub' && published++),
  })
  beacon.start()
  assert.is(published, 1, 'one at start')
  await sleep(110)
  beacon.stop()
  const atStop = published
  assert.ok(atStop >= 3, `expected several beacons, got ${atStop}`)
  await sleep(80)
  assert.is(published, atStop, 'nothing after stop()')
})

pushes.run()
