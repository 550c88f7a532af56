// The transport half of CLINK (kinds 21001–21003), its codec on the one inbound pipeline: a signed, NIP-44 v2
// encrypted request reaches the room once,
// its answer goes back on the same kind tagged p/e (and clink_version), a redelivery re-sends the stored
// answer without running the room again, a request taken by a run that died is answered "Temporary Failure"
// instead of being run twice, a parked request is answered later through the outbox.
import { suite } from '../../support/suite.js'
import * as assert from 'uvu/assert'
import { pino } from 'pino'
import { finalizeEvent, generateSecretKey, getPublicKey, verifyEvent, type Event } from 'nostr-tools/pure'
import * as nip44 from 'nostr-tools/nip44'
import { bytesToHex } from '@noble/hashes/utils.js'
import { openStore } from '../../../src/store/index.js'
import { appKeyring } from '../../../src/transports/nostr/app-keys.js'
import { conversationKeys } from '../../../src/nostr-codecs/index.js'
import { processedRequests } from '../../../src/transports/nostr/processed-requests.js'
import { createEventSigner } from '../../../src/transports/nostr/sign.js'
import { createEventVerifier } from '../../../src/transports/nostr/verify.js'
import { clinkCodec } from '../../../src/clink/nostr-codec.js'
import { claimStage, inboundPipeline } from '../../../src/transports/nostr/inbound.js'
import type { ClinkAnswer, ClinkKind, ClinkRequest, ClinkServer } from '../../../src/clink/index.js'
import type { Call } from '../../../src/bus/dispatcher.js'
import { from } from '../../../src/vendor/rxjs.js'
import { tempDataDir } from '../../support/daemon.js'
import { until } from '../../support/until.js'

const log = pino({ level: process.env.TEST_LOG ?? 'silent' })
const clock = { now: () => Date.now() }
const appSecret = generateSecretKey()
const appPubkey = getPublicKey(appSecret)
const apps = await appKeyring(async () => [{ id: 'app-1', name: 'shop', nostr_public_key: appPubkey, nostr_private_key: bytesToHex(appSecret) }])
const client = generateSecretKey()
const clientPubkey = getPublicKey(client)
const key = nip44.v2.utils.getConversationKey(client, appPubkey)

function request(kind: number, body: unknown): Event {
  const content = nip44.v2.encrypt(JSON.stringify(body), key)
  return finalizeEvent({ kind, created_at: Math.floor(Date.now() / 1000), tags: [['p', appPubkey], ['clink_version', '1']], content }, client)
}

/** The room as this test plays it: answers a request, or parks it (undefined). */
interface Room extends ClinkServer {
  handle(request: ClinkRequest): Promise<ClinkAnswer | undefined>
}

/**
 * The dispatcher's side as the codec sees it (CLINK requests are catalogue calls): the call becomes the
 * room's request again, and its answer the operation's output.
 */
function dispatcherFor(room: Room) {
  return {
    // The CLINK operations only write: none is a repeatable read.
    resolve: (_op: string) => undefined,
    call(call: Call) {
      const input = call.input as { body: unknown; created_at: number; clink_version?: string }
      const kind = ({ ClinkOfferRequest: 21001, ClinkDebitRequest: 21002, ClinkManageRequest: 21003 } as Record<string, number>)[call.op]
      const request: ClinkRequest = {
        kind: kind as ClinkKind,
        id: call.requestId,
        requester: call.credentials.nostr!.pubkey,
        appId: call.credentials.nostr!.appId,
        createdAt: input.created_at,
        tags: input.clink_version ? [['clink_version', input.clink_version]] : [],
        body: input.body,
      }
      return room.handle(request).then(answer => (answer ? { payload: answer.payload, clink_version: answer.clinkVersion ?? false } : { parked: true }))
    },
    dispatch(call: Call) {
      return from(this.call(call))
    },
  }
}

/** `storing: 'never'`: storing an answer never completes, as in a daemon killed before the commit. */
async function setup(room: Room, dataDir = tempDataDir(), storing: 'commits' | 'never' = 'commits', claimFaults: Error[] = []) {
  const store = openStore({ dataDir })
  const signer = await createEventSigner()
  const verifier = await createEventVerifier()
  const published: Event[] = []
  const stored = processedRequests({ sql: store.sql, local: store.db })
  const answering = storing === 'commits' ? stored : { ...stored, answer: () => new Promise<void>(() => {}) }
  // `claimFaults`: the next claims fail with these, in turn, before any claim is recorded.
  const processed = { ...answering, claim: (rows: Parameters<typeof stored.claim>[0]) => (claimFaults.length > 0 ? Promise.reject(claimFaults.shift()) : stored.claim(rows)) }
  const codec = clinkCodec({
    server: room,
    apps,
    keys: conversationKeys(),
    send: (template, key) => void published.push(signer.sign(template, key)),
    clock,
    log,
  })
  const inbound = inboundPipeline({
    codecs: [codec],
    stage: claimStage({ processed, verify: verifier.verify, clock, log }),
    processed,
    dispatcher: dispatcherFor(room),
    log,
  })
  const transport = {
    receive: (event: Event, app: { pubkey: string }) => inbound.receive(event, app.pubkey),
    deliver: codec.deliver,
    idle: inbound.idle,
  }
  return { store, transport, published, dataDir }
}

const open = (event: Event) => JSON.parse(nip44.v2.decrypt(event.content, key)) as Record<string, unknown>
const tag = (event: Event, name: string) => event.tags.find(t => t[0] === name)?.[1]

const test = suite('CLINK transport')

test('an offer request reaches the room once and is answered on its kind, tagged p, e and clink_version', async () => {
  const seen: ClinkRequest[] = []
  const { store, transport, published } = await setup({
    handle: async req => (seen.push(req), { payload: { bolt11: 'lnbc1…' }, clinkVersion: true }),
  })
  const event = request(21001, { offer: 'abc', amount_sats: 21 })
  transport.receive(event, apps.byAppId('app-1')!)
  transport.receive(event, apps.byAppId('app-1')!) // a second relay's copy while the first runs
  await transport.idle()
  assert.is(seen.length, 1)
  assert.equal(seen[0]!.body, { offer: 'abc', amount_sats: 21 })
  assert.is(seen[0]!.requester, clientPubkey)
  assert.is(seen[0]!.appId, 'app-1')
  assert.is(published.length, 1)
  const answer = published[0]!
  assert.ok(verifyEvent(answer))
  assert.is(answer.kind, 21001)
  assert.is(answer.pubkey, appPubkey)
  assert.is(tag(answer, 'p'), clientPubkey)
  assert.is(tag(answer, 'e'), event.id)
  assert.is(tag(answer, 'clink_version'), '1')
  assert.equal(open(answer), { bolt11: 'lnbc1…' })

  // Redelivered later (another relay, a resubscription): the stored answer again, the room not asked again.
  transport.receive(event, apps.byAppId('app-1')!)
  await transport.idle()
  assert.is(seen.length, 1)
  assert.is(published.length, 2)
  assert.is(published[1]!.content, answer.content)
  assert.is(tag(published[1]!, 'clink_version'), '1')
  assert.ok(published[1]!.created_at > answer.created_at, 'a re-send is dated later so it gets a new id')
  store.close()
})

test('bad signatures and undecryptable content never reach the room', async () => {
  let calls = 0
  const { store, transport, published } = await setup({ handle: async () => (calls++, { payload: { res: 'ok' } }) })
  // A relay delivers JSON: no cached verification flag travels with the event.
  const forged = { ...JSON.parse(JSON.stringify(request(21002, { pointer: 'x' }))), content: nip44.v2.encrypt('{"pointer":"y"}', key) }
  transport.receive(forged, apps.byAppId('app-1')!)
  const garbage = finalizeEvent({ kind: 21002, created_at: Math.floor(Date.now() / 1000), tags: [['p', appPubkey]], content: 'not encrypted' }, client)
  transport.receive(garbage, apps.byAppId('app-1')!)
  await transport.idle()
  assert.is(calls, 0)
  assert.is(published.length, 0)
  store.close()
})

test('a parked request is answered later by the room\'s message; debit answers carry clink_version too', async () => {
  const { store, transport, published } = await setup({ handle: async () => undefined })
  // The room's later answer (its clink.answer domain event) is delivered by the transport.
  const outbox = { send: transport.deliver }
  const event = request(21002, { pointer: 'user', amount_sats: 5, frequency: { number: 1, unit: 'day' } })
  transport.receive(event, apps.byAppId('app-1')!)
  await transport.idle()
  assert.is(published.length, 0, 'parked: no answer yet')
  assert.ok(outbox.send({ appId: 'app-1', to: clientPubkey, kind: 21002, replyTo: event.id, payload: { res: 'ok' } }))
  assert.is(published.length, 1)
  assert.is(tag(published[0]!, 'e'), event.id)
  assert.is(tag(published[0]!, 'clink_version'), '1')
  assert.equal(open(published[0]!), { res: 'ok' })
  assert.not.ok(outbox.send({ appId: 'no-such-app', to: clientPubkey, kind: 21002, replyTo: event.id, payload: { res: 'ok' } }))
  store.close()
})

test('a request taken by a run that died is answered "Temporary Failure", never run again', async () => {
  const dataDir = tempDataDir()
  const event = request(21002, { pointer: 'user', bolt11: 'lnbc…' })
  // The first run claims the request and dies inside the room (the handler never returns).
  const first = await setup({ handle: () => new Promise(() => {}) }, dataDir)
  first.transport.receive(event, apps.byAppId('app-1')!)
  await new Promise(resolve => setTimeout(resolve, 50))
  first.store.close()
  let calls = 0
  const second = await setup({ handle: async () => (calls++, { payload: { res: 'ok', preimage: 'aa' } }) }, dataDir)
  second.transport.receive(event, apps.byAppId('app-1')!)
  await second.transport.idle()
  assert.is(calls, 0)
  assert.is(second.published.length, 1)
  assert.equal(open(second.published[0]!), { res: 'GFY', code: 2, error: 'Temporary Failure' })
  second.store.close()
})

test('an answer leaves only once it is stored: a run killed before that sent nothing, and the next run\'s is the only answer', async () => {
  const dataDir = tempDataDir()
  const event = request(21002, { pointer: 'user', bolt11: 'lnbc…' })
  let calls = 0
  const first = await setup({ handle: async () => (calls++, { payload: { res: 'ok', preimage: 'aa' } }) }, dataDir, 'never')
  first.transport.receive(event, apps.byAppId('app-1')!)
  await until(() => calls === 1, 'the room to answer')
  assert.is(first.published.length, 0, 'not stored, so not sent')
  first.store.close()
  const second = await setup({ handle: async () => (calls++, { payload: { res: 'ok', preimage: 'aa' } }) }, dataDir)
  second.transport.receive(event, apps.byAppId('app-1')!)
  await second.transport.idle()
  assert.is(calls, 1, 'never run twice')
  assert.equal(second.published.map(open), [{ res: 'GFY', code: 2, error: 'Temporary Failure' }])
  second.store.close()
})

/** As node-postgres reports a session the server ended (57P01). */
const sessionEnded = () => Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' })

test('a claim that meets a database fault is tried again (a relay sends an event once): run once, answered once', async () => {
  let calls = 0
  const faults = [sessionEnded(), sessionEnded()]
  const { store, transport, published } = await setup({ handle: async () => (calls++, { payload: { res: 'ok', preimage: 'aa' } }) }, tempDataDir(), 'commits', faults)
  transport.receive(request(21002, { pointer: 'user', bolt11: 'lnbc…' }), apps.byAppId('app-1')!)
  await transport.idle()
  assert.is(faults.length, 0, 'both faults met')
  assert.is(calls, 1)
  assert.equal(published.map(open), [{ res: 'ok', preimage: 'aa' }])
  store.close()
})

test('a claim that fails for another reason is dropped, not run', async () => {
  let calls = 0
  const faults = [new Error('a bug')]
  const { store, transport, published } = await setup({ handle: async () => (calls++, { payload: { res: 'ok', preimage: 'aa' } }) }, tempDataDir(), 'commits', faults)
  transport.receive(request(21002, { pointer: 'user', bolt11: 'lnbc…' }), apps.byAppId('app-1')!)
  await transport.idle()
  assert.is(calls, 0)
  assert.is(published.length, 0)
  store.close()
})

test('an interrupted request is answered the way the room says it ended, or not at all when the room answers it', async () => {
  for (const [resumed, expected] of [
    [{ payload: { res: 'ok', preimage: 'bb' } }, { res: 'ok', preimage: 'bb' }],
    ['later', undefined],
  ] as const) {
    const dataDir = tempDataDir()
    const event = request(21002, { pointer: 'user', bolt11: 'lnbc…' })
    const first = await setup({ handle: () => new Promise(() => {}) }, dataDir)
    first.transport.receive(event, apps.byAppId('app-1')!)
    await new Promise(resolve => setTimeout(resolve, 50))
    first.store.close()
    const asked: string[] = []
    const second = await setup(
      { handle: async () => (assert.unreachable('never run twice'), undefined), resume: req => (asked.push(req.id), resumed) },
      dataDir,
    )
    second.transport.receive(event, apps.byAppId('app-1')!)
    await second.transport.idle()
    assert.equal(asked, [event.id])
    assert.equal(second.published.map(open), expected ? [expected] : [])
    second.store.close()
  }
})

test.run()
