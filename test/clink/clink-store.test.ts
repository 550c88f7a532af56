// The CLINK room's storage on both engines: offers, receipts, manage grants and parked requests, debit
// grants, parked debits, k1 ids and debit payments — the same cases on SQLite and on a real PostgreSQL 15, through
// the room's storage interfaces. The decisions two callers may race for (unpark, an answer's move, a receipt's
// claim, a k1 seen first, one parked manage request per key) are run concurrently: exactly one wins on each engine.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { offerStore } from '../../src/clink/offer-store.js'
import { manageStore } from '../../src/clink/manage-store.js'
import { receiptStore } from '../../src/clink/receipt-store.js'
import { debitStatements, debitStore, k1MemoryMs, type ParkedRequest } from '../../src/clink/debit-store.js'
import type { SqlStore } from '../../src/store/index.js'
import { logPostgresSkipped, openEngines } from '../support/sql-engines.js'

const both = await openEngines()
logPostgresSkipped(both.postgresSkipped)

const hex = (n: number) => n.toString(16).padStart(64, '0')
let next = 1
const now = 1_760_000_000_000
const fields = { label: 'Coffee', priceSats: 2100, callbackUrl: 'https://shop.example/paid', payerData: ['email'] }

/** A wallet and an app owned by it (the room's tables reference users and apps). */
async function walletAndApp(sql: SqlStore): Promise<{ userId: string; appId: string }> {
  const userId = hex(next++)
  const appId = hex(next++)
  await sql.run('INSERT INTO accounts (id, created_at) VALUES (?, 0)', [userId])
  await sql.run('INSERT INTO users (id, account_id, admin_key, invoice_key, created_at) VALUES (?, ?, ?, ?, 0)', [userId, userId, `a${userId}`, `i${userId}`])
  await sql.run(
    'INSERT INTO apps (id, name, owner_user_id, nostr_private_key, nostr_public_key, created_at) VALUES (?, ?, ?, ?, ?, 0)',
    [appId, `app ${appId}`, userId, `s${appId}`, `p${appId}`],
  )
  return { userId, appId }
}

const parkedDebit = (userId: string, appId: string, fields: Partial<ParkedRequest> = {}): ParkedRequest => ({
  requestId: hex(next++),
  userId,
  appId,
  requester: 'r'.repeat(64),
  debit: { type: 'frequency', frequency: { number_of_intervals: 1, interval: 'WEEK', amount: 500 } },
  k1: null,
  createdAt: now,
  expiresAt: now + 600_000,
  ...fields,
})

const exactlyOne = async (attempts: Promise<boolean>[]) => assert.is((await Promise.all(attempts)).filter(Boolean).length, 1)

for (const engine of both.engines) {
  const test = suite(`CLINK stores on ${engine.engine}`)
  let sql: SqlStore
  let close: () => Promise<void>
  let clock = now
  test.before(async () => {
    ;({ store: sql, close } = await engine.open())
  })
  test.after(async () => {
    await close?.()
    if (engine === both.engines.at(-1)) await both.close() // suites run after this loop: the last one closes
  })
  const offers = () => offerStore({ sql, now: () => clock, random: n => Buffer.from(hex(next++).slice(0, n * 2).padStart(n * 2, '0'), 'hex') })

  test('offers: added with defaults, read live by user and by manager; update keeps what it is not given', async () => {
    const { userId } = await walletAndApp(sql)
    const store = offers()
    const a = await store.add(userId, fields)
    clock++
    const b = await store.add(userId, { ...fields, label: 'Tea', token: 't', rejectUnauthorized: false, blind: true }, 'm'.repeat(64))
    assert.equal(
      [a.label, a.price_sats, a.payer_data, a.token, a.reject_unauthorized, a.blind, a.management_pubkey, a.deleted_at],
      ['Coffee', 2100, '["email"]', '', 1, 0, null, null],
    )
    assert.equal([b.token, b.reject_unauthorized, b.blind, b.management_pubkey], ['t', 0, 1, 'm'.repeat(64)])
    assert.equal(await store.byId(a.offer_id), a)
    assert.equal((await store.ofUser(userId)).map(r => r.offer_id), [a.offer_id, b.offer_id])
    assert.equal((await store.managedBy(userId, 'm'.repeat(64))).map(r => r.offer_id), [b.offer_id])
    assert.ok(await store.update(b.offer_id, { ...fields, label: 'Green tea', payerData: [] }))
    const updated = (await store.byId(b.offer_id))!
    assert.equal([updated.label, updated.payer_data, updated.token, updated.reject_unauthorized, updated.blind], ['Green tea', '[]', 't', 0, 1])
    assert.ok(await store.update(b.offer_id, { ...fields, token: '', rejectUnauthorized: true, blind: false }))
    assert.equal((({ token, reject_unauthorized, blind }) => [token, reject_unauthorized, blind])((await store.byId(b.offer_id))!), ['', 1, 0])
    assert.is(await store.update(hex(0), fields), false)
  })

  test('offers: a removed offer keeps its row but leaves every live read; the default offer is revived fresh', async () => {
    const { userId } = await walletAndApp(sql)
    const other = await walletAndApp(sql)
    const store = offers()
    const a = await store.add(userId, fields)
    assert.ok(await store.remove(a.offer_id))
    assert.is(await store.remove(a.offer_id), false)
    assert.is((await store.byId(a.offer_id))!.deleted_at, clock)
    assert.equal(await store.ofUser(userId), [])
    assert.is(await store.update(a.offer_id, fields), false, 'a deleted offer is not updated')
    const identifier = hex(next++)
    const made = await store.ensureDefault(userId, identifier)
    assert.equal([made.offer_id, made.label, made.price_sats, made.deleted_at], [identifier, 'Default CLINK Offer', 0, null])
    await store.update(identifier, { ...fields, priceSats: 0 })
    assert.is((await store.ensureDefault(userId, identifier)).label, 'Coffee', 'a live default offer is left as it is')
    await store.remove(identifier)
    const revived = await store.ensureDefault(userId, identifier)
    assert.equal([revived.label, revived.callback_url, revived.payer_data, revived.deleted_at], ['Default CLINK Offer', '', '[]', null])
    await store.remove(identifier)
    assert.is((await store.ensureDefault(other.userId, identifier)).user_id, userId, "another user's offer id is never taken over")
  })

  test('receipts: owed once per invoice, claimed by exactly one of many, forgotten only while unsent', async () => {
    const { appId } = await walletAndApp(sql)
    const store = receiptStore(sql)
    const owe = (paymentHash: string, expiresAt: number) => store.owe({ paymentHash, appId, requester: 'q'.repeat(64), requestId: paymentHash, expiresAt })
    const [x, y, z] = [hex(next++), hex(next++), hex(next++)]
    await owe(x, now + 2)
    await owe(y, now + 1)
    await owe(z, now + 3)
    await store.owe({ paymentHash: x, appId, requester: 'other', requestId: 'other', expiresAt: 0 })
    assert.equal(await store.owed(x), { payment_hash: x, app_id: appId, requester: 'q'.repeat(64), request_id: x, expires_at: now + 2 })
    assert.equal((await store.allOwed()).filter(r => [x, y, z].includes(r.payment_hash)).map(r => r.payment_hash), [y, x, z])
    await exactlyOne(Array.from({ length: 10 }, () => store.claim(x, now)))
    assert.is(await store.owed(x), undefined)
    await store.forget(x) // sent: stays
    assert.is((await sql.one<{ n: number }>('SELECT count(*) AS n FROM clink_receipts WHERE payment_hash = ?', [x]))!.n, 1)
    await store.forget(y)
    assert.is(await store.owed(y), undefined)
    assert.is(await store.claim(y, now), false)
  })

  test('manage: grants replace earlier decisions and are listed in order; one parked request per key', async () => {
    const { userId, appId } = await walletAndApp(sql)
    const store = manageStore(sql, () => clock)
    const [k1, k2] = [hex(next++), hex(next++)]
    const granted = await store.upsertGrant(userId, k1, false)
    assert.equal([granted.user_id, granted.npub, granted.banned, granted.expires_at, granted.created_at], [userId, k1, 0, 0, clock])
    const banned = await store.upsertGrant(userId, k1, true)
    assert.equal([banned.serial, banned.banned], [granted.serial, 1])
    await store.upsertGrant(userId, k2, false)
    assert.equal((await store.grantsOf(userId)).map(g => g.npub), [k1, k2])
    assert.equal(await store.grant(userId, k1), banned)
    assert.ok(await store.removeGrant(userId, k1))
    assert.is(await store.removeGrant(userId, k1), false)
    assert.is(await store.grant(userId, k1), undefined)

    const requester = hex(next++)
    const park = (requestId: string) => store.park({ requester, requestId, appId, userId, body: { resource: 'offer', action: 'list' }, createdAt: 1_760_000_000 })
    const results = await Promise.all(['e1', 'e2', 'e3', 'e4'].map(park))
    assert.is(results.filter(Boolean).length, 1)
    const waiting = (await store.parked(requester))!
    assert.equal(JSON.parse(waiting.body), { resource: 'offer', action: 'list' })
    assert.equal([waiting.app_id, waiting.user_id, waiting.parked_at, waiting.created_at], [appId, userId, clock, 1_760_000_000])
    assert.ok((await store.allParked()).some(p => p.requester === requester))
    assert.is(await store.unpark(requester, 'other id'), false)
    await exactlyOne(Array.from({ length: 5 }, () => store.unpark(requester, waiting.request_id)))
    assert.is(await store.parked(requester), undefined)
  })

  test('manage: a grant read with its lock inside a transaction holds off a reset until that transaction ends', async () => {
    const { userId } = await walletAndApp(sql)
    const npub = hex(next++)
    await manageStore(sql, () => clock).upsertGrant(userId, npub, false)
    let removedWhileOpen: boolean | undefined
    let removal!: Promise<boolean>
    await sql.transaction(async tx => {
      assert.ok(await manageStore(tx, () => clock).grant(userId, npub, { lock: true }))
      removal = manageStore(sql, () => clock).removeGrant(userId, npub)
      let removed = false
      void removal.then(() => (removed = true))
      // PostgreSQL: the reset runs on another session while this one works on; SQLite: it waits for the one
      // connection, and this transaction may not wait on timers (the store refuses), so only the end is checked.
      if (tx.engine === 'postgres') await tx.one('SELECT pg_sleep(0.3) AS slept')
      removedWhileOpen = removed
    })
    assert.is(removedWhileOpen, false)
    assert.ok(await removal)
  })

  test('debits: grants, bans and rules; an expired grant is forgotten only while it is still the expired one', async () => {
    const { userId } = await walletAndApp(sql)
    const store = debitStore(sql)
    const key = hex(next++)
    const rules = { expiresAtUnix: 1_760_000_100, frequency: { number_of_intervals: 2, interval: 'DAY' as const, amount: 1000 } }
    const row = await store.grant(userId, key, rules, now)
    assert.equal(
      [row.authorized, row.expires_at_unix, row.frequency_intervals, row.frequency_interval, row.frequency_amount_sats, row.created_at],
      [1, 1_760_000_100, 2, 'DAY', 1000, now],
    )
    assert.equal(await store.access(userId, key), row)
    assert.is(await store.resetExpired(userId, key, 1_760_000_099_999), false, 'not expired yet')
    assert.ok(await store.editRules(userId, key, { expiresAtUnix: null, frequency: null }, now + 1))
    assert.is(await store.editRules(userId, hex(0), rules, now), false)
    assert.equal((await store.access(userId, key))!.frequency_intervals, null)
    assert.is(await store.resetExpired(userId, key, now * 10), false, 'no expiration rule')
    await store.grant(userId, key, rules, now + 2)
    assert.ok(await store.resetExpired(userId, key, 1_760_000_100_000), 'expired at its second')
    assert.is(await store.access(userId, key), undefined)
    await store.ban(userId, key, now)
    await store.ban(userId, hex(next++), now)
    assert.is((await store.access(userId, key))!.authorized, 0)
    assert.is(await store.resetExpired(userId, key, now * 10), false, 'a ban is never an expired grant')
    assert.equal((await store.accessOfUser(userId)).map(r => r.authorized), [0, 0])
    assert.ok(await store.reset(userId, key))
    assert.is(await store.reset(userId, key), false)
  })

  test('debits: parked requests are read back whole, expire in order and are taken by exactly one caller', async () => {
    const { userId, appId } = await walletAndApp(sql)
    const store = debitStore(sql)
    const late = parkedDebit(userId, appId, { expiresAt: now + 2, k1: 'k' })
    const early = parkedDebit(userId, appId, { expiresAt: now + 1, debit: { type: 'invoice', invoice: 'lnbc1' } })
    const otherKey = parkedDebit(userId, appId, { requester: 's'.repeat(64), expiresAt: now + 3, debit: { type: 'full_access', full_access: {} } })
    for (const p of [late, early, otherKey]) assert.ok(await store.park(p))
    assert.is(await store.park({ ...late, k1: 'again' }), false)
    assert.equal(await store.parked(late.requestId, userId), late)
    assert.is(await store.parked(late.requestId, hex(0)), undefined)
    assert.equal((await store.parkedFrom(userId, 'r'.repeat(64))).map(p => p.requestId).sort(), [late.requestId, early.requestId].sort())
    assert.ok(await store.isParked(early.requestId))
    const mine = (list: ParkedRequest[]) => list.filter(p => p.userId === userId).map(p => p.requestId)
    assert.equal(mine(await store.expiredBy(now + 2, 100)), [early.requestId, late.requestId])
    assert.equal(mine(await store.expiredBy(now, 100)), [])
    await exactlyOne(Array.from({ length: 8 }, () => store.unpark(early.requestId)))
    assert.is(await store.isParked(early.requestId), false)
    assert.equal(mine(await store.expiredBy(now + 3, 100)), [late.requestId, otherKey.requestId])
  })

  test('debits: a k1 is first once within its window, also when many arrive together, and again after it', async () => {
    const { userId } = await walletAndApp(sql)
    const store = debitStore(sql)
    await exactlyOne(Array.from({ length: 10 }, () => store.firstK1(userId, 'session', now)))
    assert.is(await store.firstK1(userId, 'session', now + k1MemoryMs - 1), false)
    assert.ok(await store.firstK1(userId, 'other', now))
    assert.ok(await store.firstK1(hex(0), 'session', now), 'per user')
    assert.ok(await store.firstK1(userId, 'session', now + k1MemoryMs), 'remembered five minutes')
    assert.is(await store.firstK1(userId, 'session', now + k1MemoryMs + 1), false)
  })

  test("debits: payments recorded by the limit's statements; each answer moves once, interrupted runs are adopted", async () => {
    const { userId, appId } = await walletAndApp(sql)
    const store = debitStore(sql)
    const key = hex(next++)
    const record = async (paymentHash: string, requestId: string, answer: 'paying' | 'answered', at: number) =>
      (await sql.run(debitStatements.recordPayment, { paymentHash, userId, requester: key, appId, requestId, answer, at })).changes > 0
    const [p1, p2, p3] = [hex(next++), hex(next++), hex(next++)]
    assert.ok(await record(p1, 'req1', 'paying', now))
    assert.ok(await record(p2, 'req1', 'paying', now + 1))
    assert.ok(await record(p3, '', 'answered', now))
    assert.is(await record(p1, 'req9', 'paying', now + 2), false, 'an attempt still to be answered keeps its row')
    assert.equal(
      (await sql.many<{ payment_hash: string }>(debitStatements.paymentHashes, [userId, key])).map(r => r.payment_hash).sort(),
      [p1, p2, p3].sort(),
    )
    assert.is((await sql.one<{ authorized: number }>(debitStatements.access, [userId, key])), undefined)
    assert.is((await store.paymentForRequest('req1'))!.payment_hash, p2, 'the newest payment of the request')
    assert.equal((await store.unansweredPayments()).filter(r => r.user_id === userId).map(r => r.payment_hash), [p1, p2])
    assert.ok((await store.adoptInterruptedRuns()) >= 2)
    assert.is((await store.debitPayment(p1))!.answer, 'awaiting')
    await exactlyOne(Array.from({ length: 10 }, () => store.moveAnswer(p1, 'awaiting', 'answered')))
    assert.is(await store.moveAnswer(p1, 'paying', 'answered'), false)
    assert.ok(await record(p1, 'req9', 'paying', now + 3), 'answered: a retried payment of the invoice takes the row over')
    assert.equal(((r) => [r.request_id, r.answer, r.created_at])((await store.debitPayment(p1))!), ['req9', 'paying', now + 3])
    assert.is(await store.debitPayment(hex(0)), undefined)
  })

  test.run()
}
