// The LNURL room's storage on both engines: the same cases on SQLite and on a real PostgreSQL 15,
// through LnurlKeysStore. The key claims are what make a link pay (or open a channel) at most once: over HTTP the
// daemon may finish one callback before it reads the next, so the races are run here, many callers at once.
import { randomBytes } from 'node:crypto'
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { lnurlKeysStore, type LnurlKeysStore } from '../../src/lnurl/keys-store.js'
import { sqlErrorKind, type SqlStore } from '../../src/store/index.js'
import { logPostgresSkipped, openEngines } from '../support/sql-engines.js'

const both = await openEngines()
logPostgresSkipped(both.postgresSkipped)

const users = Array.from({ length: 12 }, (_, i) => i.toString(16).padStart(64, 'a'))
const [alice, bob] = users as [string, string]
const appId = 'app'
const wins = (results: boolean[]) => results.filter(Boolean).length

/** The wallet's rows the LNURL tables refer to (written here directly: the test stands in for the wallet). */
async function seedWallets(sql: SqlStore): Promise<void> {
  await sql.run("INSERT INTO accounts (id, created_at) VALUES ('acct', 0)")
  for (const [i, id] of users.entries()) {
    await sql.run("INSERT INTO users (id, account_id, admin_key, invoice_key, created_at) VALUES (?, 'acct', ?, ?, 0)", [id, `ak${i}`, `ik${i}`])
  }
  await sql.run(
    "INSERT INTO apps (id, name, owner_user_id, nostr_private_key, nostr_public_key, created_at) VALUES (?, 'app', ?, 'sk', 'pk', 0)",
    [appId, alice],
  )
}

for (const engine of both.engines) {
  const test = suite(`lnurl keys store on ${engine.engine}`)
  let sql: SqlStore
  let keys: LnurlKeysStore
  let close: () => Promise<void>
  test.before(async () => {
    ;({ store: sql, close } = await engine.open())
    await seedWallets(sql)
    keys = lnurlKeysStore(sql, bytes => randomBytes(bytes), () => 1000)
  })
  test.after(async () => {
    await close?.()
    if (engine === both.engines.at(-1)) await both.close()
  })

  test('a withdraw key is claimed once; a refused attempt releases it for one more claim', async () => {
    const k1 = await keys.issueWithdrawKey(alice, 5000)
    assert.match(k1, /^[0-9a-f]{62}$/)
    assert.equal(await keys.withdrawKey(k1), {
      k1, user_id: alice, max_msat: 5000, created_at: 1000, used_at: null, payment_request: null, outcome: null,
    })
    assert.is(await keys.claimWithdrawKey(k1, 'lnbc-first'), true)
    assert.is(await keys.claimWithdrawKey(k1, 'lnbc-second'), false)
    assert.equal(await keys.withdrawKey(k1), {
      k1, user_id: alice, max_msat: 5000, created_at: 1000, used_at: 1000, payment_request: 'lnbc-first', outcome: 'pending',
    })
    await keys.releaseWithdrawKey(k1)
    assert.equal(await keys.withdrawKey(k1), {
      k1, user_id: alice, max_msat: 5000, created_at: 1000, used_at: null, payment_request: null, outcome: 'refused',
    })
    assert.is(await keys.claimWithdrawKey(k1, 'lnbc-third'), true)
    await keys.settleWithdraw(k1, 'in_flight')
    assert.is((await keys.withdrawKey(k1))!.outcome, 'in_flight')
    await keys.settleWithdraw(k1, 'paid')
    assert.is(await keys.claimWithdrawKey(k1, 'lnbc-fourth'), false)
    assert.is((await keys.withdrawKey(k1))!.outcome, 'paid')
    assert.is(await keys.withdrawKey('f'.repeat(62)), undefined)
    assert.is(await keys.claimWithdrawKey('f'.repeat(62), 'lnbc'), false)
  })

  test('a withdraw key with a negative maximum is refused by the CHECK both engines keep', async () => {
    assert.is(sqlErrorKind(await keys.issueWithdrawKey(alice, -1).catch(e => e)), 'check')
  })

  test('of 20 concurrent callbacks with one withdraw key exactly one claims it, and its invoice is kept', async () => {
    const k1 = await keys.issueWithdrawKey(alice, 5000)
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => keys.claimWithdrawKey(k1, `lnbc-${i}`)))
    assert.is(wins(results), 1)
    assert.is((await keys.withdrawKey(k1))!.payment_request, `lnbc-${results.indexOf(true)}`)
  })

  test('pay keys persist per wallet, app and address name; concurrent first uses share one key', async () => {
    const plain = await keys.payKeyFor(alice, appId)
    assert.equal(plain, { k1: plain.k1, user_id: alice, app_id: appId, identifier: '', created_at: 1000 })
    assert.is(plain.k1.length, 62)
    assert.is((await keys.payKeyFor(alice, appId)).k1, plain.k1)
    const named = await keys.payKeyFor(alice, appId, 'alice')
    assert.is.not(named.k1, plain.k1)
    assert.equal(await keys.payKey(named.k1), named)
    assert.is(await keys.payKey('0'.repeat(62)), undefined)
    const first = await Promise.all(Array.from({ length: 20 }, () => keys.payKeyFor(bob, appId, 'bob')))
    assert.is(new Set(first.map(key => key.k1)).size, 1)
    const rows = await sql.one<{ n: number }>('SELECT count(*) AS n FROM lnurl_pay_keys WHERE user_id = ?', [bob])
    assert.is(rows!.n, 1)
  })

  test('a channel key is claimed once, released on a failed open, and a user gets one channel', async () => {
    const k1 = await keys.issueChannelKey(alice)
    assert.equal(await keys.channelKey(k1), { k1, user_id: alice, created_at: 1000, used_at: null, remote_id: null })
    assert.is(await keys.channelOpenedFor(alice), false)
    assert.is(await keys.claimChannelKey(k1, '02'.padEnd(66, '1')), true)
    assert.equal(await keys.channelKey(k1), { k1, user_id: alice, created_at: 1000, used_at: 1000, remote_id: '02'.padEnd(66, '1') })
    assert.is(await keys.channelOpenedFor(alice), true)
    assert.is(await keys.claimChannelKey(k1, '03'.padEnd(66, '1')), false, 'used once')
    const second = await keys.issueChannelKey(alice)
    assert.is(await keys.claimChannelKey(second, '03'.padEnd(66, '1')), false, 'one channel per user')
    await keys.releaseChannelKey(k1)
    assert.equal(await keys.channelKey(k1), { k1, user_id: alice, created_at: 1000, used_at: null, remote_id: null })
    assert.is(await keys.channelOpenedFor(alice), false)
    assert.is(await keys.claimChannelKey(second, '03'.padEnd(66, '1')), true, 'free again once released')
    assert.is(await keys.channelKey('0'.repeat(62)), undefined)
  })

  test('of 10 keys of one user claimed at once exactly one wins; another user is not held back', async () => {
    const user = users[2]!
    const k1s = await Promise.all(Array.from({ length: 10 }, () => keys.issueChannelKey(user)))
    const results = await Promise.all(k1s.map(k1 => keys.claimChannelKey(k1, '02'.padEnd(66, '2'))))
    assert.is(wins(results), 1)
    const used = await sql.one<{ n: number }>('SELECT count(*) AS n FROM lnurl_channel_keys WHERE user_id = ? AND used_at IS NOT NULL', [user])
    assert.is(used!.n, 1)
    assert.is(await keys.claimChannelKey(await keys.issueChannelKey(users[3]!), '02'.padEnd(66, '3')), true)
  })

  test('an address name belongs to one wallet; a new name replaces the wallet\'s old one', async () => {
    assert.is(await keys.userForAddress('alice'), undefined)
    assert.is(await keys.claimAddress('alice', alice), true)
    assert.is(await keys.claimAddress('alice', alice), true, 'claiming your own name again is fine')
    assert.is(await keys.claimAddress('alice', bob), false)
    assert.is(await keys.userForAddress('alice'), alice)
    assert.is(await keys.claimAddress('bob', bob), true)
    assert.is(await keys.claimAddress('alice2', alice), true)
    assert.is(await keys.userForAddress('alice'), undefined, 'the old name is free')
    assert.is(await keys.userForAddress('alice2'), alice)
    assert.is(await keys.claimAddress('alice2', bob), false)
    assert.is(await keys.userForAddress('bob'), bob, 'a refused claim keeps the old name')
  })

  test('of 10 wallets claiming one free name at once exactly one gets it', async () => {
    const contenders = users.slice(2, 12)
    const results = await Promise.all(contenders.map(user => keys.claimAddress('popular', user)))
    assert.is(wins(results), 1)
    assert.is(await keys.userForAddress('popular'), contenders[results.indexOf(true)])
  })

  test('a zap receipt is recorded once; the first event id stays', async () => {
    assert.is(await keys.zapReceiptFor('h1'), undefined)
    await keys.recordZapReceipt('h1', 'e1')
    await keys.recordZapReceipt('h1', 'e2')
    assert.is(await keys.zapReceiptFor('h1'), 'e1')
  })

  test.run()
}
