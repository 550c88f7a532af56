// The linking room's storage on both engines: the same cases on SQLite and on a real PostgreSQL 15,
// through LinkingStore. What callers race on — a token, an invite, the admin seat — is taken by exactly one of
// many concurrent callers.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { linkingStore, type LinkingStore } from '../../src/linking/linking-store.js'
import type { SqlStore } from '../../src/store/index.js'
import { logPostgresSkipped, openEngines } from '../support/sql-engines.js'

const both = await openEngines()
logPostgresSkipped(both.postgresSkipped)

const now = 1_750_000_000_000
const token = (n: number) => n.toString(16).padStart(64, '0')
const wins = (results: boolean[]) => results.filter(Boolean).length

for (const engine of both.engines) {
  const test = suite(`linking store on ${engine.engine}`)
  let sql: SqlStore
  let store: LinkingStore
  let close: () => Promise<void>
  test.before(async () => {
    ;({ store: sql, close } = await engine.open())
    store = linkingStore(sql)
  })
  test.after(async () => {
    await close?.()
    if (engine === both.engines.at(-1)) await both.close()
  })

  test('a pending token is found until it expires; expired ones are deleted on the way', async () => {
    assert.is(await store.pendingToken('alice', now), undefined)
    await store.putToken({ token: token(1), identifier: 'alice', appId: 'app1', expiresAt: now + 1000 })
    assert.equal(await store.pendingToken('alice', now), {
      token: token(1), app_user_identifier: 'alice', app_id: 'app1', expires_at: now + 1000,
    })
    assert.is(await store.pendingToken('alice', now + 1000), undefined)
    const left = await sql.one<{ n: number }>("SELECT count(*) AS n FROM npub_linking_tokens WHERE app_user_identifier = 'alice'")
    assert.is(Number(left!.n), 0, 'the expired token was deleted')
  })

  test('putToken replaces the user\'s token; issueToken refuses while one is pending', async () => {
    await store.putToken({ token: token(2), identifier: 'bob', appId: 'app1', expiresAt: now + 1000 })
    await store.putToken({ token: token(3), identifier: 'bob', appId: 'app1', expiresAt: now + 2000 })
    assert.is((await store.pendingToken('bob', now))!.token, token(3))
    assert.is(await store.issueToken({ token: token(4), identifier: 'bob', appId: 'app1', expiresAt: now + 3000 }, now), false)
    assert.is((await store.pendingToken('bob', now))!.token, token(3))
    // Once it expired, a new one is issued in its place.
    assert.is(await store.issueToken({ token: token(5), identifier: 'bob', appId: 'app1', expiresAt: now + 9000 }, now + 2000), true)
    assert.is((await store.pendingToken('bob', now + 2000))!.token, token(5))
  })

  test('of 20 concurrent token requests for one user exactly one issues its token', async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        store.issueToken({ token: token(100 + i), identifier: 'carol', appId: 'app1', expiresAt: now + 1000 }, now),
      ),
    )
    assert.is(wins(results), 1)
    assert.is((await store.pendingToken('carol', now))!.token, token(100 + results.indexOf(true)))
  })

  test('a token is taken once, only by its app and only unexpired; a restore puts it back', async () => {
    const row = { token: token(6), identifier: 'dave', appId: 'app1', expiresAt: now + 1000 }
    await store.putToken(row)
    assert.is(await store.takeToken(token(6), 'app2', now), undefined, 'another app cannot take it')
    assert.is(await store.takeToken(token(6), 'app1', now + 1000), undefined, 'an expired token is not taken')
    const taken = await store.takeToken(token(6), 'app1', now)
    assert.equal(taken, { token: token(6), app_user_identifier: 'dave', app_id: 'app1', expires_at: now + 1000 })
    assert.is(await store.takeToken(token(6), 'app1', now), undefined, 'taken once')
    await store.restoreToken(taken!)
    assert.equal(await store.takeToken(token(6), 'app1', now), taken)
  })

  test('a restore leaves a newer token of the same user in place', async () => {
    await store.putToken({ token: token(7), identifier: 'erin', appId: 'app1', expiresAt: now + 1000 })
    const taken = (await store.takeToken(token(7), 'app1', now))!
    await store.putToken({ token: token(8), identifier: 'erin', appId: 'app1', expiresAt: now + 5000 })
    await store.restoreToken(taken)
    assert.is((await store.pendingToken('erin', now))!.token, token(8))
    assert.is(await store.takeToken(token(7), 'app1', now), undefined)
  })

  test('of 20 concurrent takes of one token exactly one gets it', async () => {
    await store.putToken({ token: token(9), identifier: 'frank', appId: 'app1', expiresAt: now + 1000 })
    const taken = await Promise.all(Array.from({ length: 20 }, () => store.takeToken(token(9), 'app1', now)))
    assert.is(taken.filter(row => row !== undefined).length, 1)
  })

  test('invites: stored with or without sats, used once by its app, given back only by its user', async () => {
    await store.insertInvite({ token: token(10), appId: 'app1', sats: 500, createdAt: now })
    await store.insertInvite({ token: token(11), appId: 'app1', sats: null, createdAt: now })
    assert.equal(await store.invite(token(10)), {
      token: token(10), app_id: 'app1', sats: 500, used_by: null, created_at: now, used_at: null,
    })
    assert.is((await store.invite(token(11)))!.sats, null)
    assert.is(await store.invite(token(12)), undefined)
    assert.is(await store.useInvite(token(10), 'app2', 'pk1', now + 1), false, 'another app cannot use it')
    assert.is(await store.useInvite(token(12), 'app1', 'pk1', now + 1), false, 'an unknown token')
    assert.is(await store.useInvite(token(10), 'app1', 'pk1', now + 1), true)
    assert.is(await store.useInvite(token(10), 'app1', 'pk2', now + 2), false, 'used once')
    assert.equal(await store.invite(token(10)), {
      token: token(10), app_id: 'app1', sats: 500, used_by: 'pk1', created_at: now, used_at: now + 1,
    })
    await store.releaseInvite(token(10), 'pk2')
    assert.is((await store.invite(token(10)))!.used_by, 'pk1', 'only the key that used it gives it back')
    await store.releaseInvite(token(10), 'pk1')
    assert.equal(await store.invite(token(10)), {
      token: token(10), app_id: 'app1', sats: 500, used_by: null, created_at: now, used_at: null,
    })
  })

  test('invites are listed newest first, used or not', async () => {
    const listed = await store.invites()
    assert.equal(listed.map(invite => invite.token), [token(10), token(11)], 'made at the same time: by token')
    await store.insertInvite({ token: token(14), appId: 'app2', sats: null, createdAt: now + 5 })
    assert.equal((await store.invites()).map(invite => [invite.token, invite.app_id]), [[token(14), 'app2'], [token(10), 'app1'], [token(11), 'app1']])
  })

  test('of 20 keys using one invite at once exactly one wins, and the row names it', async () => {
    await store.insertInvite({ token: token(13), appId: 'app1', sats: null, createdAt: now })
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => store.useInvite(token(13), 'app1', `pk${i}`, now)))
    assert.is(wins(results), 1)
    assert.is((await store.invite(token(13)))!.used_by, `pk${results.indexOf(true)}`)
  })

  test('devices and their keys are kept one per device, the latest winning', async () => {
    await store.putDevice({ identifier: 'alice', deviceId: 'd1', token: 'fcm1', now })
    await store.putDevice({ identifier: 'alice', deviceId: 'd1', token: 'fcm2', now: now + 1 })
    await store.putDevice({ identifier: 'alice', deviceId: 'd2', token: 'fcm3', now })
    const devices = await sql.many(
      "SELECT device_id, firebase_messaging_token, updated_at FROM messaging_devices WHERE app_user_identifier = 'alice' ORDER BY device_id",
    )
    assert.equal(devices, [
      { device_id: 'd1', firebase_messaging_token: 'fcm2', updated_at: now + 1 },
      { device_id: 'd2', firebase_messaging_token: 'fcm3', updated_at: now },
    ])
    await store.putDeviceKey('d1', 'key1', now)
    await store.putDeviceKey('d1', 'key2', now + 1)
    assert.equal(await sql.many('SELECT device_id, public_key, updated_at FROM device_encryption_keys'), [
      { device_id: 'd1', public_key: 'key2', updated_at: now + 1 },
    ])
  })

  test('the admin seat: none at first, then exactly one of 10 concurrent enrollments, never replaced', async () => {
    assert.is(await store.adminPubkey(), undefined)
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => store.enrollAdmin(`admin${i}`, now)))
    assert.is(wins(results), 1)
    assert.is(await store.adminPubkey(), `admin${results.indexOf(true)}`)
    assert.is(await store.enrollAdmin('late', now), false)
    assert.is(await store.adminPubkey(), `admin${results.indexOf(true)}`)
  })

  test.run()
}
