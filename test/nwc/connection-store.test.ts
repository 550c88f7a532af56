// The NWC room's storage on both engines: connections and their budget spends, the same cases on SQLite
// and on a real PostgreSQL 15, through the room's storage interface and its in-memory directory.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { nwcConnectionStore, type ConnectionRow, type NewConnection } from '../../src/nwc/connection-store.js'
import { loadConnectionDirectory } from '../../src/nwc/connection-directory.js'
import type { SqlStore } from '../../src/store/index.js'
import { logPostgresSkipped, openEngines } from '../support/sql-engines.js'

const both = await openEngines()
logPostgresSkipped(both.postgresSkipped)

const hex = (n: number, width = 64) => n.toString(16).padStart(width, '0')
let next = 1

/** A wallet row the connections may belong to (nwc_connections.user_id references users). */
async function wallet(sql: SqlStore): Promise<string> {
  const id = hex(next++)
  await sql.run('INSERT INTO accounts (id, created_at) VALUES (?, 0)', [id])
  await sql.run('INSERT INTO users (id, account_id, admin_key, invoice_key, created_at) VALUES (?, ?, ?, ?, 0)', [id, id, `a${id}`, `i${id}`])
  return id
}

function connection(userId: string, fields: Partial<NewConnection> = {}): NewConnection {
  const n = next++
  return {
    id: hex(n, 32),
    user_id: userId,
    name: `app ${n}`,
    service_pubkey: hex(n + 1_000_000),
    service_secret: hex(n + 2_000_000),
    client_pubkey: hex(n + 3_000_000),
    methods: 'pay_invoice get_balance',
    budget_msat: null,
    budget_interval: null,
    expires_at: null,
    created_at: 1_750_000_000_000 + n,
    ...fields,
  }
}

/** A new connection as the store keeps it: not revoked, made by no wallet link (unless it names one). */
const stored = (row: NewConnection, fields: Partial<ConnectionRow> = {}): ConnectionRow => ({
  ...row, revoked_at: null, wallet_link_id: row.wallet_link_id ?? null, link_ended_at: null, ...fields,
})

const day = 86_400_000
const now = 1_760_000_000_000
const spend = (requestId: string, amountMsat: number, at = now) => ({ requestId, paymentHash: requestId.padEnd(64, '0'), amountMsat, at })

for (const engine of both.engines) {
  const test = suite(`NWC connection store on ${engine.engine}`)
  let sql: SqlStore
  let close: () => Promise<void>
  test.before(async () => {
    ;({ store: sql, close } = await engine.open())
  })
  test.after(async () => {
    await close?.()
    if (engine === both.engines.at(-1)) await both.close() // suites run after this loop: the last one closes
  })

  test('a connection comes back whole by id and among its wallet\'s, newest first; unknown ids are not found', async () => {
    const store = nwcConnectionStore(sql)
    const userId = await wallet(sql)
    const older = connection(userId, { budget_msat: 21_000, budget_interval: 'WEEK', expires_at: now + day })
    const newer = connection(userId)
    await store.insert(older)
    await store.insert(newer)
    assert.equal(await store.byId(older.id), stored(older))
    assert.equal((await store.ofUser(userId)).map(c => c.id), [newer.id, older.id])
    assert.ok((await store.all()).some(c => c.id === newer.id))
    assert.is(await store.byId(hex(0, 32)), undefined)
    assert.equal(await store.ofUser(await wallet(sql)), [])
  })

  test("update applies a change to the user's live connection as it is now; another user's or a revoked one is refused", async () => {
    const store = nwcConnectionStore(sql)
    const userId = await wallet(sql)
    const row = connection(userId)
    await store.insert(row)
    const change = { name: 'renamed', methods: 'get_info', budget_msat: 5000, budget_interval: 'DAY' as const, expires_at: now }
    const expected = stored(row, change)
    assert.equal(await store.update(row.id, userId, change), { status: 'updated', row: expected })
    assert.equal(await store.byId(row.id), expected)
    // What the change leaves out stays; null clears.
    const cleared = await store.update(row.id, userId, { budget_msat: null, budget_interval: null, expires_at: null })
    assert.equal(cleared, { status: 'updated', row: { ...expected, budget_msat: null, budget_interval: null, expires_at: null } })
    assert.equal(await store.update(row.id, await wallet(sql), { name: 'theirs' }), { status: 'not_found' })
    assert.equal(await store.update(hex(0, 32), userId, { name: 'nobody' }), { status: 'not_found' })
    // The schema's pairing of budget and interval holds on both engines.
    assert.is(await store.update(row.id, userId, { budget_msat: 1 }).then(() => 'stored', () => 'refused'), 'refused')
    await store.revoke(row.id, now)
    assert.equal(await store.update(row.id, userId, { name: 'too late' }), { status: 'revoked' })
    assert.is((await store.byId(row.id))!.name, 'renamed')
  })

  test('two updates at once each change their own field: neither overwrites the other', async () => {
    const store = nwcConnectionStore(sql)
    const userId = await wallet(sql)
    const row = connection(userId)
    await store.insert(row)
    await Promise.all([
      store.update(row.id, userId, { name: 'second name' }),
      store.update(row.id, userId, { methods: 'get_balance' }),
      store.update(row.id, userId, { expires_at: now + day }),
    ])
    const stored = (await store.byId(row.id))!
    assert.equal([stored.name, stored.methods, stored.expires_at], ['second name', 'get_balance', now + day])
  })

  test('revoke returns the revoked row once; a second revoke changes nothing', async () => {
    const store = nwcConnectionStore(sql)
    const row = connection(await wallet(sql))
    await store.insert(row)
    assert.equal(await store.revoke(row.id, now), stored(row, { revoked_at: now }))
    assert.is(await store.revoke(row.id, now + 1), undefined)
    assert.is((await store.byId(row.id))!.revoked_at, now)
    assert.is(await store.revoke(hex(0, 32), now), undefined)
  })

  test("a wallet link's end ends the live connections it made, and they leave the wallet's list; others stay", async () => {
    const store = nwcConnectionStore(sql)
    const userId = await wallet(sql)
    const link = hex(next++, 16)
    const made = connection(userId, { wallet_link_id: link })
    const revokedBefore = connection(userId, { wallet_link_id: link })
    const otherLink = connection(userId, { wallet_link_id: hex(next++, 16) })
    const byToken = connection(userId)
    for (const row of [made, revokedBefore, otherLink, byToken]) await store.insert(row)
    await store.revoke(revokedBefore.id, now - 1)
    assert.equal(await store.endWithLink(link, now), [stored(made, { revoked_at: now, link_ended_at: now })])
    assert.equal(await store.endWithLink(link, now + 1), [], 'ended once')
    assert.equal((await store.byId(revokedBefore.id))!.revoked_at, now - 1, 'a connection revoked before keeps its revocation')
    assert.equal((await store.ofUser(userId)).map(c => c.id).sort(), [revokedBefore.id, otherLink.id, byToken.id].sort())
  })

  test('assertLive passes a live connection on the transaction and refuses a revoked or expired one in NIP-47 words', async () => {
    const store = nwcConnectionStore(sql)
    const userId = await wallet(sql)
    const live = connection(userId, { expires_at: now + 1 })
    const revoked = connection(userId)
    for (const row of [live, revoked]) await store.insert(row)
    await store.revoke(revoked.id, now)
    const outcome = (id: string, at: number) =>
      sql.transaction(tx => store.assertLive(tx, id, at)).then(
        () => 'live',
        (err: { wireCode?: string; message: string }) => `${err.wireCode}: ${err.message}`,
      )
    assert.is(await outcome(live.id, now), 'live')
    assert.is(await outcome(live.id, now + 1), 'UNAUTHORIZED: the connection expired')
    assert.is(await outcome(revoked.id, now), 'UNAUTHORIZED: the connection was revoked')
    assert.is(await outcome(hex(0, 32), now), 'UNAUTHORIZED: the connection was revoked')
  })

  test('the window sums reserved and spent amounts since its start; released ones and older ones do not count', async () => {
    const store = nwcConnectionStore(sql)
    const row = connection(await wallet(sql), { budget_msat: 1_000_000, budget_interval: 'DAY' })
    await store.insert(row)
    const id = row.id.slice(0, 8)
    assert.equal(await store.reserve(row.id, spend(`${id}old`, 400, now - day - 1)), { ok: true })
    assert.equal(await store.reserve(row.id, spend(`${id}a`, 1000)), { ok: true })
    assert.equal(await store.reserve(row.id, spend(`${id}b`, 2000)), { ok: true })
    assert.equal(await store.reserve(row.id, spend(`${id}c`, 4000)), { ok: true })
    await store.settleSpend(`${id}a`, 1100) // fees included
    await store.releaseSpend(`${id}b`)
    assert.is(await store.spentMsat(row, now), 1100 + 4000)
    // Settling or releasing twice, or a released spend settled, changes nothing.
    await store.settleSpend(`${id}b`, 9999)
    await store.releaseSpend(`${id}a`)
    await store.settleSpend(`${id}a`, 9999)
    assert.is(await store.spentMsat(row, now), 1100 + 4000)
    // Without an interval the window is all time.
    assert.is(await store.spentMsat({ id: row.id, budget_interval: null }, now), 1100 + 4000 + 400)
  })

  test('reserve refuses past the budget read from the row, and says how much was spent; no budget: no limit', async () => {
    const store = nwcConnectionStore(sql)
    const userId = await wallet(sql)
    const row = connection(userId, { budget_msat: 10_000, budget_interval: 'MONTH' })
    await store.insert(row)
    const id = row.id.slice(0, 8)
    assert.equal(await store.reserve(row.id, spend(`${id}1`, 6000)), { ok: true })
    assert.equal(await store.reserve(row.id, spend(`${id}2`, 5000)), { ok: false, spentMsat: 6000, budgetMsat: 10_000 })
    assert.equal(await store.reserve(row.id, spend(`${id}3`, 4000)), { ok: true })
    // A lowered budget counts at once; a removed one lets anything through.
    await store.update(row.id, userId, { budget_msat: 9000 })
    assert.equal(await store.reserve(row.id, spend(`${id}4`, 1)), { ok: false, spentMsat: 10_000, budgetMsat: 9000 })
    await store.update(row.id, userId, { budget_msat: null, budget_interval: null })
    assert.equal(await store.reserve(row.id, spend(`${id}5`, 1_000_000)), { ok: true })
    // One reservation per request: the same request id again is refused by the table.
    assert.ok(await store.reserve(row.id, spend(`${id}5`, 1)).then(() => false, () => true))
  })

  test('50 reservations of one connection at once: exactly as many as fit into its budget are taken', async () => {
    const store = nwcConnectionStore(sql)
    const row = connection(await wallet(sql), { budget_msat: 10_000, budget_interval: 'DAY' })
    await store.insert(row)
    const id = row.id.slice(0, 8)
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => store.reserve(row.id, spend(`${id}race${i}`, 1000))))
    assert.is(results.filter(r => r.ok).length, 10)
    assert.is(await store.spentMsat(row, now), 10_000)
  })

  test('the directory loads every connection and follows the writes made through it', async () => {
    const store = nwcConnectionStore(sql)
    const userId = await wallet(sql)
    const before = connection(userId)
    await store.insert(before)
    const directory = await loadConnectionDirectory(store)
    assert.equal(directory.byServicePubkey(before.service_pubkey), stored(before))
    const expiring = connection(userId, { expires_at: now + 1000 })
    await directory.insert(expiring)
    assert.equal(directory.liveOfUser(userId, now).map(c => c.id).sort(), [before.id, expiring.id].sort())
    assert.equal(directory.liveOfUser(userId, now + 1000).map(c => c.id), [before.id], 'expired at its expiry')
    // Concurrent writes of one connection: the copy ends as the database does.
    await Promise.all([
      directory.update(before.id, userId, { name: 'x' }),
      directory.revoke(before.id, now),
      directory.update(before.id, userId, { methods: 'get_info' }),
    ])
    assert.equal(directory.byServicePubkey(before.service_pubkey), await store.byId(before.id))
    assert.is(directory.byServicePubkey(before.service_pubkey)!.revoked_at, now)
    assert.equal(directory.liveOfUser(userId, now).map(c => c.id), [expiring.id])
    assert.is(await directory.revoke(before.id, now), false)
    assert.ok(directory.all().length >= 2)
    assert.equal(directory.liveOfUser(await wallet(sql), now), [])
    assert.is(directory.byServicePubkey('0'.repeat(64)), undefined)
    // A wallet link's end reaches the copy as well.
    const link = hex(next++, 16)
    const madeByLink = connection(userId, { wallet_link_id: link })
    await directory.insert(madeByLink)
    assert.equal((await directory.endWithLink(link, now)).map(c => c.id), [madeByLink.id])
    assert.is(directory.byServicePubkey(madeByLink.service_pubkey)!.revoked_at, now)
  })

  test.run()
}
