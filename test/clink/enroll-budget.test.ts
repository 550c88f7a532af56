// The node's bound on new accounts opened by CLINK enroll (kind 21004), as upstream counts them: a sliding window of
// `[clink] enroll_accounts_per_minute` new accounts in any 60 s, node wide, apart from the budget of accounts keys
// open by their first Nostr call (`[apps] new_accounts_*`). Beyond it a new key hears code 4 "Rate limited" with
// `retry_after`, the unix second the oldest counted account leaves the window; one more fits then, and only one.
// Real signed requests with real (cheap) proof of work, over the daemon's embedded relay.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { generateSecretKey, type Event } from 'nostr-tools/pure'
import { startDaemon, type TestDaemon } from '../support/daemon.js'
import { appProfile, PubClient } from '../support/pub-client.js'
import { until } from '../support/until.js'
import { ClinkClient, type EnrollOptions } from './clink-client.js'

const powBits = 4
const perMinute = 3
const test = suite('CLINK enroll: the window of new accounts')
let daemon: TestDaemon
let appPubkey: string
let relayUrl: string
const clients: { close(): void }[] = []

test.before(async () => {
  daemon = await startDaemon({
    config: `[clink]\nenroll_pow_bits = ${powBits}\nenroll_accounts_per_minute = ${perMinute}\n[apps]\nnew_accounts_per_minute = 1\nnew_accounts_burst = 1\n`,
  })
  ;({ pubkey: appPubkey, relays: [relayUrl] } = appProfile(daemon.dataDir) as { pubkey: string; relays: [string] })
})
test.after(async () => {
  for (const client of clients) client.close()
  await daemon?.stop()
})

/** An enroll request of `secretKey` (a fresh key unless given) mined to the node's difficulty, and its answer. */
async function enroll(secretKey = generateSecretKey(), opts: EnrollOptions = { pow: powBits }): Promise<{ request: Event; payload: any }> {
  const client = await ClinkClient.connect(relayUrl, appPubkey, secretKey)
  clients.push(client)
  return client.enroll(opts)
}

/** Enrolls a fresh key, expecting a new account: when it was sent and when its answer was heard (ms). */
async function opens(secretKey = generateSecretKey()): Promise<{ sent: number; heard: number }> {
  const sent = Date.now()
  const { payload } = await enroll(secretKey)
  assert.is(payload.res, 'ok', JSON.stringify(payload))
  return { sent, heard: Date.now() }
}

/** A fresh key refused for the window, told to come back when the account opened at `oldest` is 60 s old. */
async function refusedUntil(oldest: { sent: number; heard: number }): Promise<number> {
  const { payload } = await enroll()
  assert.equal(Object.keys(payload), ['res', 'code', 'error', 'retry_after'], JSON.stringify(payload))
  assert.equal({ ...payload, retry_after: 0 }, { res: 'GFY', code: 4, error: 'Rate limited', retry_after: 0 })
  const earliest = Math.ceil((oldest.sent + 60_000) / 1000)
  const latest = Math.ceil((oldest.heard + 60_000) / 1000)
  assert.ok(payload.retry_after >= earliest && payload.retry_after <= latest, `retry_after ${payload.retry_after}, not within [${earliest}, ${latest}]`)
  return payload.retry_after as number
}

test('the window of new accounts slides: full at three, then one more each time the oldest is a minute old', async () => {
  // A key's first Nostr call opens its account under the other budget, one account a minute: it is spent now (the
  // next fresh key's call is refused), and enroll's window is untouched by it.
  const rpc = await PubClient.connect({ relays: [relayUrl], appPubkey })
  const other = await PubClient.connect({ relays: [relayUrl], appPubkey })
  clients.push(rpc, other)
  await rpc.ok('GetUserInfo')
  assert.match((await other.call('GetUserInfo')).reason, /^too many requests: new accounts on this node/)

  const firstKey = generateSecretKey()
  const first = await opens(firstKey)
  // The second 10 s later, so that when the first has left the window the second is still in it for a while.
  await until(() => Date.now() >= first.heard + 10_000, 'ten seconds after the first account')
  const second = await opens()
  await opens()
  // Full: a bucket would have a burst to give here, or tell the key to come back in 20 s (three a minute).
  const retryAt = await refusedUntil(first)
  // Checked before the window: proof of work (code 5); not counted: a key that has its account.
  assert.is((await enroll(generateSecretKey(), {})).payload.code, 5)
  assert.is((await enroll(firstKey, {})).payload.res, 'ok', 'a key with its account is never held back')

  // Once the first is a minute old one more fits, and only one: the refused requests were not counted, and the
  // window frees its slots one at a time, not all at once at the turn of a minute.
  await until(() => Date.now() >= retryAt * 1000, 'the first account to leave the window', 90_000)
  await opens()
  await refusedUntil(second)
})

test.run()
