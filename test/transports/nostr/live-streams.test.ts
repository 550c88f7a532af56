// A stream subscription over the relay goes through the real dispatcher (auth, validation, the call's outcome) and
// stays open: the wallet room's GetLiveUserOperations Observable feeds it, each item leaves as a push with
// requestId = the stream's name, and the linked-key pushes skip a key while it holds the subscription.
import { suite } from '../../support/suite.js'
import * as assert from 'uvu/assert'
import { pino } from 'pino'
import { generateSecretKey, getPublicKey } from 'nostr-tools/pure'
import { catalogue } from '../../../schema/catalogue.js'
import { createRegistry } from '../../../src/bus/registry.js'
import { createDispatcher, type CallOutcome } from '../../../src/bus/dispatcher.js'
import { createEventBus, type EventOf } from '../../../src/bus/events.js'
import { OperationError } from '../../../src/bus/errors.js'
import { Subject } from '../../../src/vendor/rxjs.js'
import { liveStreamHandlers } from '../../../src/wallet/handlers/live-streams.js'
import { liveStreams } from '../../../src/transports/nostr/live-streams.js'
import { pushLiveUserOperations } from '../../../src/transports/nostr/pushes.js'
import type { ReplySender } from '../../../src/transports/nostr/reply-sender.js'
import type { AppKey } from '../../../src/nostr-codecs/index.js'

const log = pino({ level: 'silent' })
const secret = generateSecretKey()
const app: AppKey = { appId: 'app-1', name: 'shop', pubkey: getPublicKey(secret), secretKey: secret }
const alice = getPublicKey(generateSecretKey())
const bob = getPublicKey(generateSecretKey())
const stranger = getPublicKey(generateSecretKey())
const operation = { type: 'INCOMING_INVOICE', amount: 2100 }

function setup(max?: number) {
  const operations = new Subject<EventOf<'user.operation'>>()
  const registry = createRegistry(catalogue)
  registry.register(liveStreamHandlers(operations), 'wallet')
  registry.seal()
  const dispatcher = createDispatcher({
    registry,
    // Alice is user-1, Bob user-2; any other key is refused, as a banned key would be.
    authenticate: async (_entry, creds) => {
      const user = { [alice]: 'user-1', [bob]: 'user-2' }[creds.nostr?.pubkey ?? '']
      if (!user) throw new OperationError('forbidden', 'this key is banned')
      return { kind: 'user', userId: user, appId: 'app-1', appUserId: `au-${user}` }
    },
    log,
    clock: { now: () => 0 },
  })
  const outcomes: CallOutcome[] = []
  dispatcher.outcomes$.subscribe(outcome => outcomes.push(outcome))
  const sent: { peer: string; payload: Record<string, unknown> }[] = []
  const sealed: { peer: string; payload: Record<string, unknown> }[] = []
  const sender: ReplySender = {
    send: (_app, peer, _scheme, payload) => (sent.push({ peer, payload }), { sentAt: 0, contents: ['…'] }),
    seal: (_app, peer, _scheme, payload) => (sealed.push({ peer, payload }), { sentAt: 0, contents: ['…'] }),
    publish: () => {},
    resend: (_app, _peer, reply) => reply,
    rememberScheme: () => {},
    schemeFor: () => 'nip44v2',
  }
  const streams = liveStreams({ dispatcher, sender, log, max })
  return { operations, dispatcher, outcomes, sent, sealed, sender, streams }
}

const subscribe = (streams: ReturnType<typeof setup>['streams'], peer: string, requestId = 'GetLiveUserOperations') =>
  streams.open({ stream: 'GetLiveUserOperations', app, peer, scheme: 'nip44v2', requestId, input: {} })

const live = suite('stream subscriptions through the dispatcher')

live('an accepted subscription stays open and pushes each of the caller\'s operations under the stream\'s name', async () => {
  const { operations, sent, streams, outcomes, dispatcher } = setup()
  assert.is(await subscribe(streams, alice), undefined, 'a subscription answers nothing')
  assert.ok(streams.has('app-1', alice, 'GetLiveUserOperations'))
  operations.next({ type: 'user.operation', userId: 'user-2', operation: { ...operation, amount: 1 }, latestBalanceSats: 1 })
  operations.next({ type: 'user.operation', userId: 'user-1', operation, latestBalanceSats: 5100 })
  operations.next({ type: 'user.operation', userId: 'user-1', operation: { ...operation, amount: 5 }, latestBalanceSats: 5105 })
  assert.equal(sent.map(s => s.peer), [alice, alice], 'only user-1\'s operations')
  assert.equal(JSON.stringify(sent[0]!.payload), JSON.stringify({ status: 'OK', operation, latest_balance: 5100, requestId: 'GetLiveUserOperations' }))
  assert.is(outcomes.length, 0, 'the call is still open')
  streams.close()
  assert.is(streams.size(), 0)
  assert.equal(outcomes.map(o => [o.op, o.caller?.kind, o.ok]), [['GetLiveUserOperations', 'user', true]])
  await dispatcher.drain() // nothing left in flight: the daemon's stop does not hang on an open stream
})

live('subscribing again replaces the subscription: one push per item', async () => {
  const { operations, sent, streams, outcomes } = setup()
  await subscribe(streams, alice, 'first')
  await subscribe(streams, alice, 'second')
  assert.is(streams.size(), 1)
  assert.is(outcomes.length, 1, 'the first call ended when the second took its place')
  operations.next({ type: 'user.operation', userId: 'user-1', operation, latestBalanceSats: 2100 })
  assert.is(sent.length, 1)
  streams.close()
})

live('a refused subscription is answered with an ERROR under its requestId and holds nothing', async () => {
  const { sent, sealed, streams, outcomes } = setup()
  const reply = await subscribe(streams, stranger, 'req-7')
  assert.ok(reply, 'the refusal is the stored reply')
  // Sealed for the pipeline, which stores it and then sends it: nothing leaves from here.
  assert.equal(sealed, [{ peer: stranger, payload: { status: 'ERROR', reason: 'this key is banned', requestId: 'req-7' } }])
  assert.equal(sent, [])
  assert.not.ok(streams.has('app-1', stranger, 'GetLiveUserOperations'))
  assert.equal(outcomes.map(o => [o.op, o.errorCode]), [['GetLiveUserOperations', 'forbidden']])
})

live('past the cap the oldest subscription closes and its key falls back to the linked-key pushes', async () => {
  const { streams, outcomes } = setup(1)
  await subscribe(streams, alice)
  await subscribe(streams, bob)
  assert.is(streams.size(), 1)
  assert.not.ok(streams.has('app-1', alice, 'GetLiveUserOperations'), 'Alice\'s, the oldest, was closed')
  assert.ok(streams.has('app-1', bob, 'GetLiveUserOperations'))
  assert.equal(outcomes.map(o => o.caller), [{ kind: 'user', userId: 'user-1', appId: 'app-1', appUserId: 'au-user-1' }])
  streams.close()
})

live('the linked-key pushes skip a key that holds the subscription, and reach it again once it is closed', async () => {
  const { operations, sent, sender, streams } = setup()
  const events = createEventBus()
  // Both paths see each operation, as in the daemon: the wallet's stream and the bus.
  // The linked-key push looks the app user up first (async): an emit is done once the next turn has come.
  const emit = async (event: EventOf<'user.operation'>) => {
    events.emit(event)
    operations.next(event)
    await new Promise(resolve => setImmediate(resolve))
  }
  const apps = { byAppId: (id: string) => (id === 'app-1' ? app : undefined), byPubkey: () => undefined, all: () => [app], refresh: async () => false }
  const linked = pushLiveUserOperations({
    events$: events.events$,
    users: { appUserOf: async () => ({ app_id: 'app-1', nostr_public_key: alice }) },
    apps,
    sender,
    log,
    streams,
  })
  await emit({ type: 'user.operation', userId: 'user-1', operation, latestBalanceSats: 1 })
  assert.is(sent.length, 1, 'unsubscribed: the linked-key push')
  await subscribe(streams, alice)
  await emit({ type: 'user.operation', userId: 'user-1', operation, latestBalanceSats: 2 })
  assert.is(sent.length, 2, 'subscribed: once, from the subscription')
  streams.close()
  await emit({ type: 'user.operation', userId: 'user-1', operation, latestBalanceSats: 3 })
  assert.is(sent.length, 3, 'closed: the linked-key push again')
  assert.equal(sent.map(s => JSON.stringify(s.payload)), [1, 2, 3].map(b => JSON.stringify({ status: 'OK', operation, latest_balance: b, requestId: 'GetLiveUserOperations' })))
  linked.unsubscribe()
})

live.run()
