// One way in: NIP-47 methods (kind 23194) and CLINK requests (21001–21003) are catalogue operations like
// every other request. They reach the dispatcher (so the metrics count them under their catalogue names, transport
// nostr) and only their own kind's codec serves them: as a kind-21000 rpcName they are refused, naming the kind.
import { suite } from '../../support/suite.js'
import * as assert from 'uvu/assert'
import { startDaemon, type TestDaemon } from '../../support/daemon.js'
import { createAppWithUser, jwtSecretConfig, type TestAppUser } from '../../support/accounts.js'
import { NwcTestClient } from '../../support/nwc-client.js'
import { PubClient, appProfile } from '../../support/pub-client.js'
import { ClinkClient } from '../../clink/clink-client.js'
import { decodeNoffer } from '../../../src/nostr-codecs/index.js'
import { ok } from '../../support/money.js'

const jwtSecret = 'one-way-in-secret-0123456789abcdef'
const test = suite('one way in for every Nostr kind')
let daemon: TestDaemon
let user: TestAppUser
const closers: { close(): void }[] = []

test.before(async () => {
  daemon = await startDaemon({ config: jwtSecretConfig(jwtSecret) })
  user = await createAppWithUser(daemon, { jwtSecret, identifier: 'one-way-in' })
})
test.after(async () => {
  closers.forEach(client => client.close())
  await daemon?.stop()
})

/** The value of a Prometheus sample; 0 when the series is absent. */
async function sample(series: string): Promise<number> {
  const res = await daemon.request('GET', '/metrics', { headers: { authorization: daemon.adminToken } })
  assert.is(res.status, 200, res.text)
  const line = res.text.split('\n').find((l: string) => l.startsWith(`${series} `))
  return line ? Number(line.slice(series.length + 1)) : 0
}

const calls = (operation: string) => `relaypay_operations_total{operation="${operation}",transport="nostr",outcome="ok"}`

test('an NWC request and a CLINK offer request are dispatched as catalogue operations', async () => {
  const { connection_uri: uri } = await ok(daemon, '/api/user/nwc/create', user.userToken, { name: 'one-way-in' })
  const nwc = await NwcTestClient.connect(uri)
  closers.push(nwc)
  const balance = await nwc.call('get_balance')
  assert.type(balance.balance, 'number')
  assert.is(await sample(calls('NwcGetBalance')), 1)

  // An offer request naming no offer of ours: the room answers it in the spec's words, through the dispatcher.
  const pointer = decodeNoffer((await ok(daemon, '/api/user/info', user.userToken)).noffer)
  const clink = await ClinkClient.connect(pointer.relay, pointer.pubkey)
  closers.push(clink)
  const answer = await clink.ask(21001, { offer: 'no-such-offer', amount_sats: 50 })
  assert.is(answer.payload.code, 1)
  assert.is(await sample(calls('ClinkOfferRequest')), 1)
})

test('as a kind-21000 rpcName they are refused, naming the kind that carries them', async () => {
  const profile = appProfile(daemon.dataDir)
  const client = await PubClient.connect({ relays: profile.relays, appPubkey: profile.pubkey })
  closers.push(client)
  for (const [op, kind] of [['NwcPayInvoice', 23194], ['ClinkDebitRequest', 21002]] as const) {
    const reply = await client.call(op, {})
    assert.is(reply.status, 'ERROR')
    assert.match(String(reply.reason), `served on Nostr kind ${kind}`)
  }
})

test('a NIP-47 method not served is NOT_IMPLEMENTED for its client, UNAUTHORIZED once the connection is revoked', async () => {
  const created = await ok(daemon, '/api/user/nwc/create', user.userToken, { name: 'unknown-method' })
  const nwc = await NwcTestClient.connect(created.connection_uri)
  closers.push(nwc)
  assert.is((await nwc.request('pay_keysend', { amount: 1000 })).error?.code, 'NOT_IMPLEMENTED')
  await ok(daemon, '/api/user/nwc/revoke', user.userToken, { connection_id: created.connection.connection_id })
  const refused = await nwc.request('pay_keysend', { amount: 1000 })
  assert.is(refused.error?.code, 'UNAUTHORIZED')
  assert.is(refused.error?.message, 'the connection was revoked')
})

test.run()
