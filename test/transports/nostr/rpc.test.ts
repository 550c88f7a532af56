// Requests over the relay, from an independent client, through the daemon's embedded relay.
import { suite } from '../../support/suite.js'
import * as assert from 'uvu/assert'
import { startDaemon, type TestDaemon } from '../../support/daemon.js'
import { appProfile, PubClient, sleep } from '../../support/pub-client.js'
import { WebSocket } from 'ws'
import { AbstractRelay } from 'nostr-tools/abstract-relay'
import { verifyEvent, type Event } from 'nostr-tools/pure'

const rpc = suite('kind-21000 calls through the relay')
let daemon: TestDaemon
let connect: (o?: { scheme?: 'nip44v1' | 'nip44v2' }) => Promise<PubClient>
const clients: PubClient[] = []

rpc.before(async () => {
  // A small shard threshold, so a batch reply has to travel in pieces.
  daemon = await startDaemon({ config: '[nostr]\nmax_content_length = 1000\n' })
  const profile = appProfile(daemon.dataDir)
  connect = async (o = {}) => {
    const client = await PubClient.connect({ relays: profile.relays, appPubkey: profile.pubkey, ...o })
    clients.push(client)
    return client
  }
})
rpc.after(async () => {
  clients.forEach(client => client.close())
  await daemon.stop()
})

for (const scheme of ['nip44v1', 'nip44v2'] as const) {
  rpc(`a new key calling in ${scheme} gets an account and a reply in ${scheme}`, async () => {
    const client = await connect({ scheme })
    const keys = await client.call('GetWalletKeys')
    assert.is(keys.status, 'OK')
    assert.match(keys.admin_key, /^[0-9a-f]{64}$/)
    assert.is(client.schemes.get(keys.requestId), scheme)
    // The same key is the same account on the next call.
    assert.is((await client.ok('GetWalletKeys')).wallet_id, keys.wallet_id)
  })
}

rpc('a request with a bad body is answered with an ERROR carrying its requestId', async () => {
  const client = await connect()
  const reply = await client.call('CreateWallet', { name: 42 })
  assert.is(reply.status, 'ERROR')
  assert.match(reply.reason, /^invalid request body/)
})

rpc('an rpc answer longer than max_content_length arrives in shards and is reassembled', async () => {
  const client = await connect()
  const requests = Array.from({ length: 10 }, () => ({ rpcName: 'GetWalletKeys', req: {} }))
  const reply = await client.ok('BatchUser', { requests })
  assert.is(reply.responses.length, 10)
  assert.ok(reply.shardCount > 1, `expected shards, got ${reply.shardCount}`)
  assert.ok(reply.responses.every((r: any) => r.status === 'OK' && r.admin_key))
})

for (const c of [
  { because: 'an unknown rpcName', rpcName: 'NoSuchOperation', body: {}, reason: 'unknown rpcName: "NoSuchOperation"' },
  { because: 'an HTTP-only operation', rpcName: 'GetApp', body: {}, reason: 'GetApp is not served over the relay: call it over HTTP' },
  { because: 'a body that is an array', rpcName: 'CreateWallet', body: [{ name: 'x' }], reason: 'invalid request body: the body must be a JSON object, not an array' },
  { because: 'a body that is a string', rpcName: 'GetWalletKeys', body: 'x', reason: 'invalid request body: the body must be a JSON object, not a string' },
  { because: 'a body that is a number', rpcName: 'BatchUser', body: 7, reason: 'invalid request body: the body must be a JSON object, not a number' },
  { because: 'a query that is a list', rpcName: 'GetWalletKeys', body: {}, query: ['id'], reason: 'invalid request body: the query must be a JSON object, not an array' },
  { because: 'an envelope without rpcName', rpcName: undefined, body: {}, reason: 'rpcName is missing: name the operation to call' },
  { because: 'an rpcName that is a number', rpcName: 42, body: {}, reason: 'rpcName must be a string naming the operation, not a number' },
]) {
  rpc(`${c.because} is answered with an ERROR in its own envelope, requestId kept`, async () => {
    const client = await connect()
    const query = c.query as Record<string, unknown> | undefined
    const { event, requestId } = client.request(c.rpcName as string, c.body as Record<string, unknown>, { query })
    const reply = client.waitFor(requestId)
    await client.publish(event)
    assert.equal(await reply, { status: 'ERROR', reason: c.reason, requestId })
  })
}

rpc('a BatchUser entry whose req is not an object gets its own ERROR; the other entries run', async () => {
  const client = await connect()
  const reply = await client.ok('BatchUser', {
    requests: [
      { rpcName: 'GetWalletKeys', req: 'x' },
      { rpcName: 'GetWalletKeys', req: [1] },
      { rpcName: 'GetWalletKeys', req: {} },
      { rpcName: 'GetWalletKeys' },
      { rpcName: 'NoSuchOperation', req: {} },
    ],
  })
  const reasons = reply.responses.map((r: any) => r.reason)
  assert.equal(reasons, [
    'invalid request body: the body must be a JSON object, not a string',
    'invalid request body: the body must be a JSON object, not an array',
    undefined,
    undefined,
    'unkown rpcName',
  ])
  assert.ok(reply.responses[2].admin_key && reply.responses[3].admin_key)
})

rpc('an unknown rpcName is quoted back at most 64 characters long', async () => {
  const client = await connect()
  const reply = await client.call('N'.repeat(5000))
  assert.is(reply.reason, `unknown rpcName: "${'N'.repeat(64)}"`)
})

for (const c of [
  { because: 'an authIdentifier that is not the author', rpcName: 'GetWalletKeys', o: { authIdentifier: 'f'.repeat(64) } },
  { because: 'a request dated older than max_event_age_seconds', rpcName: 'GetWalletKeys', o: { createdAt: Math.floor(Date.now() / 1000) - 700 } },
  { because: 'a request dated more than 60 s ahead', rpcName: 'GetWalletKeys', o: { createdAt: Math.floor(Date.now() / 1000) + 120 } },
]) {
  rpc(`no reply at all to ${c.because}`, async () => {
    const client = await connect()
    const { event, requestId } = client.request(c.rpcName, {}, c.o)
    await client.publish(event)
    // A request sent after it is answered, so the daemon had every chance to answer the first one too.
    await client.ok('GetWalletKeys')
    await sleep(200)
    assert.equal(client.messages(requestId), [])
  })
}

rpc('admin operations over the relay need the enrolled key', async () => {
  const client = await connect()
  const reply = await client.call('NodeGetInfo', {})
  assert.is(reply.status, 'ERROR')
  assert.is(reply.reason, 'admin access not configured')
  // Aliases route too (upstream clients send the Lnd* names).
  assert.is((await client.call('LndGetInfo', {})).reason, 'admin access not configured')
})

rpc('GetHttpCreds is refused while [http] allow_upgrade is off', async () => {
  const client = await connect()
  const reply = await client.call('GetHttpCreds')
  assert.is(reply.status, 'ERROR')
  assert.is(reply.reason, 'http upgrade is not allowed on this service: the operator allows it with [http] allow_upgrade = true')
})

rpc('the default app announces itself with a kind-30078 beacon on the service relay', async () => {
  const { relays, pubkey } = appProfile(daemon.dataDir)
  const reader = await AbstractRelay.connect(relays[0]!, { verifyEvent, websocketImplementation: WebSocket as unknown as typeof globalThis.WebSocket })
  const beacons = await new Promise<Event[]>(resolve => {
    const seen: Event[] = []
    reader.subscribe([{ kinds: [30078], '#d': ['Lightning.Pub'], authors: [pubkey] }], { onevent: e => seen.push(e), oneose: () => resolve(seen) })
  })
  reader.close()
  assert.is(beacons.length, 1)
  assert.equal(JSON.parse(beacons[0]!.content), { type: 'service', name: 'wallet', fees: { serviceFeeFloor: 10, serviceFeeBps: 60 } })
})

rpc.run()
