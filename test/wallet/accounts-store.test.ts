// The wallet's accounts on SqlStore: accounts, wallets, apps, app users, Nostr keys, the directory
// authentication reads and the fee collectors, the same cases on SQLite and on a real PostgreSQL 15. The racing
// cases are the ones where a read once decided a write inside one synchronous call: two creations of one app, one
// app user identifier or one key's account at once, of which exactly one may win.
import { randomBytes } from 'node:crypto'
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import type { SqlStore } from '../../src/store/index.js'
import { OperationError } from '../../src/bus/index.js'
import { accountStore, type AccountStore } from '../../src/wallet/accounts.js'
import { nostrAccounts, type NostrAccounts } from '../../src/wallet/nostr-accounts.js'
import { feeCollectors } from '../../src/wallet/fee-collectors.js'
import { appUserOf, appUserOrCreate } from '../../src/wallet/app-users.js'
import { logPostgresSkipped, openEngines } from '../support/sql-engines.js'

const both = await openEngines()
logPostgresSkipped(both.postgresSkipped)

const key = (n: number) => n.toString(16).padStart(64, '0')
const countOf = async (store: SqlStore, sql: string, params: unknown[] = []) =>
  Number((await store.one<{ n: number }>(sql, params))!.n)
const refusal = async (work: Promise<unknown>): Promise<OperationError> => {
  try {
    await work
  } catch (err) {
    if (err instanceof OperationError) return err
    throw err
  }
  throw new Error('expected a refusal')
}

for (const engine of both.engines) {
  const test = suite(`wallet accounts on ${engine.engine}`)
  let store: SqlStore
  let close: () => Promise<void>
  let accounts: AccountStore
  let nostr: NostrAccounts
  test.before(async () => {
    ;({ store, close } = await engine.open())
    accounts = accountStore({ sql: store, random: bytes => randomBytes(bytes), now: () => 1_000 })
    nostr = nostrAccounts({ sql: store, accounts, random: bytes => randomBytes(bytes), now: () => 1_000 })
  })
  test.after(async () => {
    await close?.()
    if (engine === both.engines.at(-1)) await both.close() // suites run after this loop: the last one closes
  })

  test('the default app: made once, also when two starts race for it; found by name and id, listed', async () => {
    const [a, b] = await Promise.all([accounts.ensureDefaultApp('wallet'), accounts.ensureDefaultApp('wallet')])
    assert.is(a.id, b.id)
    assert.is((await accounts.ensureDefaultApp('wallet')).id, a.id)
    assert.is(await countOf(store, "SELECT count(*) AS n FROM apps WHERE name = 'wallet'"), 1)
    assert.is(a.allow_user_creation, 1)
    assert.match(a.nostr_public_key, /^[0-9a-f]{64}$/)
    assert.is((await accounts.appById(a.id))!.name, 'wallet')
    assert.is((await accounts.appByName('wallet'))!.id, a.id)
    assert.is(await accounts.appByName('nope'), undefined)
    const owner = await accounts.userById(a.owner_user_id)
    assert.is(owner!.name, 'wallet (app owner)')
    assert.is(owner!.balance_msat, 0)
    const shop = await accounts.createApp('shop', false)
    assert.equal((await accounts.apps()).map(app => app.name).sort(), ['shop', 'wallet'])
    await accounts.setAllowUserCreation(shop.id, true)
    assert.is((await accounts.appById(shop.id))!.allow_user_creation, 1)
  })

  test('an app of a taken name is refused and leaves no owner wallet behind', async () => {
    const users = await countOf(store, 'SELECT count(*) AS n FROM users')
    await accounts.createApp('taken', false)
    const err = await accounts.createApp('taken', false).then(() => undefined, (e: unknown) => e)
    assert.ok(err, 'a second app of the same name was made')
    assert.is(await countOf(store, 'SELECT count(*) AS n FROM users'), users + 1) // the first app's owner only
  })

  test('wallets: account with its first wallet, another wallet, keys rotated, found by key with its type', async () => {
    const { accountId, userId } = await accounts.createAccountWithWallet('first')
    const first = (await accounts.userById(userId))!
    assert.is(first.account_id, accountId)
    const second = await accounts.addWallet(accountId, 'second')
    assert.is(second.account_id, accountId)
    assert.is(second.name, 'second')
    const directory = accounts.directory()
    assert.equal(await directory.walletByKey(first.admin_key), { walletId: userId, accountId, keyType: 'admin' })
    assert.equal(await directory.walletByKey(first.invoice_key), { walletId: userId, accountId, keyType: 'invoice' })
    assert.is(await directory.walletByKey('unknown'), undefined)
    const rotated = await accounts.rotateKeys(userId)
    assert.is.not(rotated.admin_key, first.admin_key)
    assert.is(await directory.walletByKey(first.admin_key), undefined)
    assert.equal(await directory.walletByKey(rotated.invoice_key), { walletId: userId, accountId, keyType: 'invoice' })
    assert.is(await accounts.userById('missing'), undefined)
  })

  test('extensions per account: enabled twice is once, disabled is gone', async () => {
    const { accountId } = await accounts.createAccountWithWallet('ext')
    const directory = accounts.directory()
    assert.is(await directory.extensionEnabled(accountId, 'payroll'), false)
    await accounts.setExtension(accountId, 'payroll', true)
    await accounts.setExtension(accountId, 'payroll', true)
    assert.is(await directory.extensionEnabled(accountId, 'payroll'), true)
    await accounts.setExtension(accountId, 'payroll', false)
    assert.is(await directory.extensionEnabled(accountId, 'payroll'), false)
  })

  test('app tokens: the generation moves on rotation and the directory reads the new one', async () => {
    const app = await accounts.createApp('rotating', false)
    const directory = accounts.directory()
    assert.is(await directory.appTokenGeneration(app.id), app.token_generation)
    assert.is(await directory.appTokenGeneration(app.id), app.token_generation) // kept
    const next = await accounts.rotateAppToken(app.id)
    assert.is(next, app.token_generation + 1)
    assert.is(await directory.appTokenGeneration(app.id), next)
    assert.is(await directory.appTokenGeneration('no-such-app'), undefined)
  })

  test('app users: made with their own wallet, found by identifier and by wallet, user tokens checked', async () => {
    const app = await accounts.createApp('users', false)
    const alice = await accounts.createAppUser(app.id, 'alice')
    assert.is(alice.app_id, app.id)
    assert.is((await accounts.appUser('alice'))!.user_id, alice.user_id)
    assert.is((await accounts.appUserOf(alice.user_id))!.identifier, 'alice')
    assert.is((await appUserOf(accounts, app.id, 'alice')).user_id, alice.user_id)
    assert.is((await refusal(appUserOf(accounts, 'other-app', 'alice'))).code, 'not_found')
    const directory = accounts.directory()
    const claims = { app_user_id: 'alice', user_id: alice.user_id, app_id: app.id }
    assert.is(await directory.userTokenValid(claims), true)
    assert.is(await directory.userTokenValid(claims), true) // kept
    assert.is(await directory.userTokenValid({ ...claims, app_id: 'other' }), false)
    assert.is(await accounts.appUserOf('no-wallet'), undefined)
  })

  test('ten get-or-create calls of one identifier at once: one app user, all ten get it; another app is refused', async () => {
    const app = await accounts.createApp('racing users', false)
    const users = await countOf(store, 'SELECT count(*) AS n FROM users')
    const got = await Promise.all(Array.from({ length: 10 }, () => appUserOrCreate(accounts, app.id, 'bob')))
    assert.is(new Set(got.map(row => row.user_id)).size, 1)
    assert.is(await countOf(store, "SELECT count(*) AS n FROM app_users WHERE identifier = 'bob'"), 1)
    assert.is(await countOf(store, 'SELECT count(*) AS n FROM users'), users + 1) // the losers' wallets rolled back
    const other = await accounts.createApp('other app', false)
    assert.is((await refusal(appUserOrCreate(accounts, other.id, 'bob'))).code, 'conflict')
  })

  test("a key's account: ten first requests at once make one user, all answered with it; a linked key is refused", async () => {
    const app = await accounts.ensureDefaultApp('wallet')
    const users = await countOf(store, 'SELECT count(*) AS n FROM users')
    const callers = await Promise.all(Array.from({ length: 10 }, () => nostr.userForPubkey(key(1), app.id)))
    assert.is(new Set(callers.map(c => c.userId)).size, 1)
    assert.is(await countOf(store, 'SELECT count(*) AS n FROM app_users WHERE nostr_public_key = ?', [key(1)]), 1)
    assert.is(await countOf(store, 'SELECT count(*) AS n FROM users'), users + 1)
    assert.is((await nostr.appUserByPubkey(key(1)))!.identifier, callers[0]!.appUserId)
    assert.is((await refusal(nostr.createForPubkey(app.id, key(1)))).code, 'conflict')
    // An app that does not let clients open accounts refuses an unknown key.
    const closed = await accounts.createApp('closed', false)
    assert.is((await refusal(nostr.userForPubkey(key(2), closed.id))).code, 'forbidden')
    // A key linked in one app is the same user when it talks to another (upstream).
    const there = await nostr.userForPubkey(key(1), closed.id)
    assert.equal(there, { kind: 'user', userId: callers[0]!.userId, appId: closed.id, appUserId: callers[0]!.appUserId })
  })

  test('accounts opened by keys are bounded node wide: refused with 429 and Retry-After over the budget; known keys pass', async () => {
    let now = 5_000_000
    const bounded = nostrAccounts({ sql: store, accounts, random: bytes => randomBytes(bytes), now: () => now, newAccounts: { perMinute: 2, burst: 3 } })
    const app = await accounts.ensureDefaultApp('wallet')
    const users = await countOf(store, 'SELECT count(*) AS n FROM users')
    const opened = []
    for (let i = 0; i < 3; i++) opened.push(await bounded.userForPubkey(key(40 + i), app.id))
    const refused = await refusal(bounded.userForPubkey(key(43), app.id))
    assert.is(refused.code, 'limit_exceeded')
    assert.is(refused.status, 429)
    assert.is(refused.retryAfterSeconds, 30) // two a minute: the next in 30 s
    assert.is(refused.message, "too many requests: new accounts on this node (the operator's [apps] new_accounts_per_minute); try again in 30 s")
    assert.is(await countOf(store, 'SELECT count(*) AS n FROM users'), users + 3, 'the refused key opened nothing')
    // A key that has its account is answered whatever the budget.
    assert.equal(await bounded.userForPubkey(key(40), app.id), opened[0])
    now += 30_000
    assert.ok((await bounded.userForPubkey(key(43), app.id)).userId, 'the next account once a token is back')
  })

  test('linking a key: the wallet lookup sees the new key at once; a key linked elsewhere is refused, twice at once too', async () => {
    const app = await accounts.createApp('linking', false)
    const carol = await accounts.createAppUser(app.id, 'carol')
    const dave = await accounts.createAppUser(app.id, 'dave')
    assert.is((await accounts.appUserOf(carol.user_id))!.nostr_public_key, null) // now kept in memory
    await nostr.linkPubkey('carol', key(3))
    assert.is((await accounts.appUserOf(carol.user_id))!.nostr_public_key, key(3))
    await nostr.linkPubkey('carol', key(3)) // again: the same link
    assert.is((await refusal(nostr.linkPubkey('dave', key(3)))).code, 'conflict')
    const outcomes = await Promise.allSettled([nostr.linkPubkey('carol', key(4)), nostr.linkPubkey('dave', key(4))])
    assert.is(outcomes.filter(o => o.status === 'fulfilled').length, 1)
    const refused = outcomes.find(o => o.status === 'rejected') as PromiseRejectedResult
    assert.is((refused.reason as OperationError).code, 'conflict')
    assert.is(await countOf(store, 'SELECT count(*) AS n FROM app_users WHERE nostr_public_key = ?', [key(4)]), 1)
    assert.is((await nostr.appUserByPubkey(key(4)))!.app_id, app.id)
    assert.ok([carol.user_id, dave.user_id].includes((await nostr.appUserByPubkey(key(4)))!.user_id))
  })

  test('fee collectors: an app owner pays none, a managed user pays its app owner, a lone wallet the default app', async () => {
    const defaultApp = await accounts.ensureDefaultApp('wallet')
    const app = await accounts.createApp('fees', false)
    const erin = await accounts.createAppUser(app.id, 'erin')
    const lone = await accounts.createAccountWithWallet('lone')
    const collectors = feeCollectors(store, defaultApp.owner_user_id)
    assert.is(await collectors.isAppOwner(app.owner_user_id), true)
    assert.is(await collectors.isAppOwner(erin.user_id), false)
    assert.is(await collectors.collectorFor(erin.user_id), app.owner_user_id)
    assert.is(await collectors.collectorFor(lone.userId), defaultApp.owner_user_id)
    // Read on a transaction's connection as well (a transfer asks inside its own).
    const fresh = feeCollectors(store, defaultApp.owner_user_id)
    assert.is(await store.transaction(tx => fresh.collectorFor(erin.user_id, tx)), app.owner_user_id)
    assert.is(await store.transaction(tx => fresh.isAppOwner(app.owner_user_id, tx)), true)
  })

  test('the users balance sums every wallet', async () => {
    const before = await accounts.usersBalanceMsat()
    const { userId } = await accounts.createAccountWithWallet('rich')
    // Straight into the row: the journal is not what this sum reads.
    await store.run('UPDATE users SET balance_msat = 5000 WHERE id = ?', [userId])
    assert.is(await accounts.usersBalanceMsat(), before + 5000)
  })

  test.run()
}
