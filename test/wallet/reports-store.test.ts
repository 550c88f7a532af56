// The wallet's reports and audit on SqlStore, the same cases on SQLite and on a real PostgreSQL 15:
// GetAppsMetrics, the operator views (apps, wallet search, the user token, payments across wallets), the users'
// balance reader, and the start audit (foreground and background, clean and failing books).
import fs from 'node:fs'
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { openStore, type SqlStore } from '../../src/store/index.js'
import { createTokenSigner } from '../../src/auth/index.js'
import { createLedger } from '../../src/wallet/ledger.js'
import { appsReport } from '../../src/wallet/apps-report.js'
import { operatorViews } from '../../src/wallet/handlers/operator-views.js'
import { openBalanceReader } from '../../src/wallet/balance-reader.js'
import { startAudit } from '../../src/wallet/start-audit.js'
import { tempDataDir } from '../support/daemon.js'
import { logPostgresSkipped, openEngines, type EngineUnderTest } from '../support/sql-engines.js'

const both = await openEngines()
logPostgresSkipped(both.postgresSkipped)

/** A store on a fresh database; on SQLite also its file (the audit and the balance reader open it themselves). */
async function open(engine: EngineUnderTest): Promise<{ store: SqlStore; file?: string; close(): Promise<void> }> {
  if (engine.engine !== 'sqlite') return engine.open()
  const dataDir = tempDataDir()
  const opened = openStore({ dataDir })
  return {
    store: opened.sql,
    file: opened.file,
    async close() {
      await opened.sql.close()
      opened.close()
      fs.rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

const hex = (text: string) => Buffer.from(text).toString('hex').padEnd(64, '0').slice(0, 64)

async function wallet(store: SqlStore, id: string, opts: { balanceMsat?: number; name?: string; at?: number } = {}) {
  await store.run('INSERT INTO accounts (id, created_at) VALUES (?, ?)', [`acct-${id}`, 1])
  await store.run(
    `INSERT INTO users (id, account_id, name, balance_msat, admin_key, invoice_key, created_at)
     VALUES (@id, @account, @name, 0, @admin, @invoice, @at)`,
    { id, account: `acct-${id}`, name: opts.name ?? '', admin: `a-${id}`, invoice: `i-${id}`, at: opts.at ?? 1000 },
  )
  const amount = opts.balanceMsat ?? 0
  // Funded through the journal, so the audit balances.
  if (amount > 0) {
    await store.transaction(tx =>
      createLedger().post(tx, {
        kind: 'mock_balance',
        ref: `fund-${id}`,
        legs: [
          { account: `user:${id}`, amountMsat: amount },
          { account: 'system:mock', amountMsat: -amount },
        ],
        at: 1,
      }),
    )
  }
}

async function app(store: SqlStore, id: string, name: string, owner: string, at: number) {
  await store.run(
    `INSERT INTO apps (id, name, owner_user_id, allow_user_creation, nostr_private_key, nostr_public_key, created_at)
     VALUES (?, ?, ?, 1, ?, ?, ?)`,
    [id, name, owner, `priv-${id}`, hex(`pub-${id}`), at],
  )
}

async function appUser(store: SqlStore, appId: string, userId: string, identifier: string) {
  await store.run(
    `INSERT INTO app_users (identifier, user_id, app_id, nostr_public_key, topic_id, created_at) VALUES (?, ?, ?, ?, ?, 1)`,
    [identifier, userId, appId, hex(`npub-${identifier}`), `topic-${identifier}`],
  )
}

/** Two apps (shop: owner + alice, bob; cafe: owner only), a wallet of no app, and money moved among them. */
async function books(store: SqlStore) {
  await wallet(store, 'shop-owner', { balanceMsat: 9_000 })
  await wallet(store, 'alice', { balanceMsat: 5_000, name: 'Alice Liddell', at: 2_000 })
  await wallet(store, 'bob', { at: 3_000 })
  await wallet(store, 'cafe-owner', { balanceMsat: 1_000 })
  await wallet(store, 'loner', { balanceMsat: 2_500 })
  await app(store, 'shop', 'Shop', 'shop-owner', 10)
  await app(store, 'cafe', 'Cafe', 'cafe-owner', 20)
  await appUser(store, 'shop', 'alice', 'Alice-1')
  await appUser(store, 'shop', 'bob', 'bob-2')
  // alice received 4,000 msat (paid at 5 s), bob has an unpaid invoice, loner one paid over Lightning.
  await store.run(
    `INSERT INTO invoices (payment_hash, payment_request, user_id, amount_msat, memo, created_at, expires_at, paid_at, paid_msat, paid_internally)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [hex('inv-alice'), 'lnbcrt-inv-alice', 'alice', 4_000, 'tea', 4_000, 99_000, 5_000, 4_000, 1],
  )
  await store.run(
    `INSERT INTO invoices (payment_hash, payment_request, user_id, amount_msat, memo, created_at, expires_at)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
    [hex('inv-bob'), 'lnbcrt-inv-bob', 'bob', 3_000, 'unpaid', 6_000, 7_000],
  )
  await store.run(
    `INSERT INTO invoices (payment_hash, payment_request, user_id, amount_msat, memo, created_at, expires_at, paid_at, paid_msat, paid_internally)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [hex('inv-loner'), 'lnbcrt-inv-loner', 'loner', 2_000, 'gift', 6_500, 99_000, 6_600, 2_000, 0],
  )
  // alice paid 2,000 msat + 1,000 fee (succeeded at 8 s); a failed one of hers.
  await store.run(
    `INSERT INTO payments (payment_hash, payment_request, user_id, amount_msat, service_fee_msat, max_routing_fee_msat,
       routing_fee_msat, internal, status, failure_reason, created_at, resolved_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [hex('pay-alice'), 'lnbcrt-pay-alice', 'alice', 2_000, 1_000, 500, 0, 0, 'succeeded', null, 7_000, 8_000],
  )
  await store.run(
    `INSERT INTO payments (payment_hash, payment_request, user_id, amount_msat, service_fee_msat, max_routing_fee_msat,
       internal, status, failure_reason, created_at, resolved_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [hex('pay-fail'), 'lnbcrt-pay-fail', 'alice', 1_000, 0, 500, 0, 'failed', 'no route', 7_500, 7_600],
  )
  // alice → bob, 1,000 msat with a 200 msat fee.
  await store.run(
    `INSERT INTO transfers (kind, from_user_id, to_user_id, amount_msat, fee_msat, created_at) VALUES ('user', ?, ?, ?, ?, ?)`,
    ['alice', 'bob', 1_000, 200, 9_000],
  )
}

const tokens = createTokenSigner('reports-store-test-secret-0123456789abcdef')
const call = (handler: unknown, input: unknown = {}) => (handler as (i: unknown, c: unknown) => Promise<any>)(input, {})

for (const engine of both.engines) {
  const test = suite(`wallet reports and audit on ${engine.engine}`)
  let opened: Awaited<ReturnType<typeof open>>
  test.before(async () => {
    opened = await open(engine)
    await books(opened.store)
  })
  test.after(async () => {
    await opened?.close()
    if (engine === both.engines.at(-1)) await both.close() // suites run after this loop: the last one closes
  })

  test('GetAppsMetrics: per app its users, received, spent, fees and invoices; the unlinked wallets last', async () => {
    const report = await appsReport(opened.store)({ include_operations: true } as never)
    assert.equal(report.apps.map(a => a.app.id), ['shop', 'cafe', 'unlinked'])
    const [shop, cafe, unlinked] = report.apps
    assert.equal(shop!.app, { name: 'Shop', id: 'shop', balance: 9, npub: hex('pub-shop') })
    assert.equal(shop!.users, { total: 2, no_balance: 1, negative_balance: 0, always_been_inactive: 1, balance_avg: 5, balance_median: 5 })
    assert.is(shop!.received, 4)
    assert.is(shop!.spent, 2)
    assert.is(shop!.fees, 1) // 1,000 msat service fee + 200 msat transfer fee, rounded down
    assert.is(shop!.total_fees, 1)
    assert.is(shop!.invoices, 2)
    assert.is(shop!.available, 5)
    const types = shop!.operations.map(o => o.type).sort()
    assert.equal(types, ['INCOMING_INVOICE', 'INCOMING_USER_TO_USER', 'OUTGOING_INVOICE', 'OUTGOING_INVOICE', 'OUTGOING_USER_TO_USER'])
    assert.is(shop!.operations.find(o => o.type === 'INCOMING_INVOICE')!.internal, true)
    assert.is(shop!.operations.find(o => o.operationId.startsWith('OUTGOING_INVOICE') && o.paidAtUnix === -1)!.amount, 1)
    assert.is(cafe!.users.total, 0)
    assert.is(cafe!.app.balance, 1)
    assert.is(unlinked!.received, 2)
    assert.is(unlinked!.users.total, 1)
    assert.is(unlinked!.operations[0]!.internal, false)
    // A window: only what happened in it (seconds; the invoice paid at 5 s is in, the payment resolved at 8 s out).
    const window = await appsReport(opened.store)({ from_unix: 5, to_unix: 6 } as never)
    assert.is(window.apps[0]!.received, 4)
    assert.is(window.apps[0]!.spent, 0)
    assert.is(window.apps[0]!.invoices, 1) // bob's, created at 6 s
    assert.equal(window.apps[0]!.operations, [])
  })

  test('operator views: apps, a wallet search without regard to case, a user token, payments across wallets', async () => {
    const views = operatorViews({ sql: opened.store, ...(opened.file ? { file: opened.file } : {}), tokens, now: () => 8_000 })
    const apps = (await call(views.handlers.OperatorListApps)).apps
    assert.equal(apps.map((a: { id: string; users: number; owner_balance_sats: number }) => [a.id, a.users, a.owner_balance_sats]), [['shop', 2, 9], ['cafe', 0, 1]])
    assert.is(apps[0].allow_user_creation, true)
    const found = async (query: string) => (await call(views.handlers.OperatorSearchUsers, { query })).users.map((u: { user_id: string }) => u.user_id)
    assert.equal(await found('alice-1'), ['alice']) // identifier, other case
    assert.equal(await found('LIDDELL'), ['alice']) // name, other case
    assert.equal(await found('%'), []) // taken literally
    assert.equal(await found('shop-own'), ['shop-owner'])
    const all = (await call(views.handlers.OperatorSearchUsers, { limit: 3 })).users
    assert.is(all.length, 3)
    assert.equal(all[0], {
      user_id: 'loner', identifier: '', app_name: '', app_id: '', nostr_pub: '', balance_sats: 2, locked: false, created_at: 1,
    })
    const token = await call(views.handlers.OperatorUserToken, { identifier: ' bob-2 ' })
    assert.equal([token.user_id, token.app_id], ['bob', 'shop'])
    assert.ok(token.token.length > 20)
    await call(views.handlers.OperatorUserToken, { identifier: 'nobody' }).then(
      () => assert.unreachable('a token for no user'),
      (err: { code: string }) => assert.is(err.code, 'not_found'),
    )
    const listed = async (input: Record<string, unknown>) =>
      (await call(views.handlers.OperatorListPayments, input)).payments.map((p: { direction: string; status: string; user_id: string }) => `${p.direction}:${p.status}:${p.user_id}`)
    assert.equal(await listed({}), ['outgoing:failed:alice', 'outgoing:succeeded:alice', 'incoming:paid:loner', 'incoming:expired:bob', 'incoming:paid:alice'])
    assert.equal(await listed({ status: 'expired' }), ['incoming:expired:bob'])
    assert.equal(await listed({ status: 'succeeded' }), ['outgoing:succeeded:alice'])
    assert.equal(await listed({ query: 'Alice-1' }), ['outgoing:failed:alice', 'outgoing:succeeded:alice', 'incoming:paid:alice'])
    assert.equal(await listed({ query: hex('inv-loner').slice(0, 10).toUpperCase() }), ['incoming:paid:loner'])
    assert.equal(await listed({ since: 6, until: 7 }), ['incoming:paid:loner', 'incoming:expired:bob'])
    assert.equal(await listed({ limit: 1 }), ['outgoing:failed:alice'])
  })

  test('the balance reader sums every wallet', async () => {
    const reader = openBalanceReader(opened.store, opened.file)
    try {
      assert.is(await reader.usersBalanceMsat(), 17_500)
    } finally {
      reader.close()
    }
  })

  test('the start audit: clean books at once and in the background; a balance edited behind the journal fails it', async () => {
    // Books of their own: the report's rows above were written without their postings.
    const own = await open(engine)
    try {
      await wallet(own.store, 'w1', { balanceMsat: 7_000 })
      await wallet(own.store, 'bob', { balanceMsat: 3_000 })
      await auditCases(own.store, own.file)
    } finally {
      await own.close()
    }
  })

  test.run()
}

async function auditCases(store: SqlStore, sqliteFile: string | undefined) {
  {
    const file = sqliteFile === undefined ? {} : { file: sqliteFile }
    const opened = { store }
    const small = await startAudit({ sql: opened.store, ...file })
    assert.not.ok(small.background)
    const clean = await small.report
    assert.ok(clean.ok, JSON.stringify(clean))
    assert.is(clean.walletsTotalMsat, 10_000)
    let serving!: () => void
    const later = await startAudit({ sql: opened.store, ...file, backgroundAboveEntries: 0, backgroundAfter: new Promise<void>(r => (serving = r)) })
    assert.ok(later.background)
    let verdict = false
    void later.report.then(() => (verdict = true))
    await new Promise(resolve => setTimeout(resolve, 50))
    assert.not.ok(verdict, 'the background audit waits for the daemon to serve')
    serving()
    assert.ok((await later.report).ok)
    // A balance edited behind the journal (still within the CHECK).
    await opened.store.run("UPDATE users SET balance_msat = balance_msat + 700 WHERE id = 'bob'")
    const edited = await (await startAudit({ sql: opened.store, ...file, backgroundAboveEntries: 0 })).report
    assert.not.ok(edited.ok)
    assert.equal(edited.balanceMismatches, [{ userId: 'bob', storedMsat: 3_700, journalMsat: 3_000 }])
    // Cancelled before the daemon served: no verdict.
    let serve!: () => void
    const cancelled = await startAudit({ sql: opened.store, ...file, backgroundAboveEntries: 0, backgroundAfter: new Promise<void>(r => (serve = r)) })
    cancelled.cancel()
    serve()
    assert.match(String(await cancelled.report.catch((err: Error) => err.message)), /cancelled before it started/)
  }
}
