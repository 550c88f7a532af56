// Internal transfers, payments to the service's own addresses, bans and test-mode balances over HTTP, on a daemon
// whose internal transfer fee is 1% (so the fee path is visible).
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { startDaemon, type TestDaemon } from '../support/daemon.js'
import { addAppUser, createAppWithUser, jwtSecretConfig, type TestAppUser } from '../support/accounts.js'
import { appBalance, assertAuditClean, audit, balanceOf, call, ok } from '../support/money.js'

const jwtSecret = 'wallet-transfers-test-secret-0123456789'
const test = suite('transfers, addresses, bans and mock balances')
let daemon: TestDaemon
let app: TestAppUser

test.before(async () => {
  daemon = await startDaemon({ config: `${jwtSecretConfig(jwtSecret)}\n[fees]\ninternal_user_fee_bps = 100\n` })
  app = await createAppWithUser(daemon, { jwtSecret, identifier: 'sender' })
})
test.after(async () => {
  await daemon?.stop()
})
test.after.each(async () => {
  await assertAuditClean(daemon.dataDir)
})

const fund = (identifier: string, amount: number) =>
  ok(daemon, '/api/app/mock/user/blance/set', app.appToken, { user_identifier: identifier, amount })

test('a transfer to a new app user creates it and moves amount + 1% fee', async () => {
  await fund('sender', 5000)
  const appBefore = await appBalance(daemon, app.appToken)
  await ok(daemon, '/api/app/user/internal/pay', app.appToken, {
    from_user_identifier: 'sender', to_user_identifier: 'new-friend', amount: 1200,
  })
  assert.is(await balanceOf(daemon, app.appToken, 'sender'), 5000 - 1212)
  assert.is(await balanceOf(daemon, app.appToken, 'new-friend'), 1200)
  assert.is(await appBalance(daemon, app.appToken), appBefore + 12)
})

test('a transfer to the app credits the app owner', async () => {
  await fund('sender', 1000)
  const appBefore = await appBalance(daemon, app.appToken)
  await ok(daemon, '/api/app/internal/pay', app.appToken, { from_user_identifier: 'sender', amount: 300 })
  assert.is(await balanceOf(daemon, app.appToken, 'sender'), 697)
  assert.is(await appBalance(daemon, app.appToken), appBefore + 303)
})

for (const c of [
  { because: 'a zero amount', body: { from_user_identifier: 'sender', to_user_identifier: 'x1', amount: 0 }, reason: 'amount must be greater than 0' },
  { because: 'a negative amount', body: { from_user_identifier: 'sender', to_user_identifier: 'x1', amount: -3 }, reason: 'amount must be greater than 0' },
  { because: 'a fractional amount', body: { from_user_identifier: 'sender', to_user_identifier: 'x1', amount: 2.5 }, reason: /^invalid request body/ },
  { because: 'more than the balance', body: { from_user_identifier: 'sender', to_user_identifier: 'x1', amount: 10_000 }, reason: /^not enough balance to decrement: the wallet holds 1,000 sats, this needs 10,\d{3} sats$/ },
  { because: 'an unknown sender', body: { from_user_identifier: 'ghost', to_user_identifier: 'x1', amount: 1 }, reason: 'user not found' },
]) {
  test(`a transfer is refused for ${c.because} and moves nothing`, async () => {
    await fund('sender', 1000)
    const appBefore = await appBalance(daemon, app.appToken)
    const reply = await call(daemon, '/api/app/user/internal/pay', app.appToken, c.body)
    assert.is(reply.status, 'ERROR')
    if (typeof c.reason === 'string') assert.is(reply.reason, c.reason)
    else assert.match(reply.reason, c.reason)
    assert.is(await balanceOf(daemon, app.appToken, 'sender'), 1000)
    assert.is(await appBalance(daemon, app.appToken), appBefore)
  })
}

test('an address is issued once per type and paying it is an instant transfer', async () => {
  const receiver = await addAppUser(daemon, { appToken: app.appToken, appId: app.appId, jwtSecret, identifier: 'addr-receiver' })
  const sender = await addAppUser(daemon, { appToken: app.appToken, appId: app.appId, jwtSecret, identifier: 'addr-sender' })
  const first = await ok(daemon, '/api/user/chain/new', receiver.userToken, { addressType: 'WITNESS_PUBKEY_HASH' })
  const again = await ok(daemon, '/api/user/chain/new', receiver.userToken, { addressType: 'WITNESS_PUBKEY_HASH' })
  const taproot = await ok(daemon, '/api/user/chain/new', receiver.userToken, { addressType: 'TAPROOT_PUBKEY' })
  assert.is(again.address, first.address)
  assert.is.not(taproot.address, first.address)

  await fund('addr-sender', 2000)
  const paid = await ok(daemon, '/api/user/chain/pay', sender.userToken, { address: first.address, amountSats: 500, satsPerVByte: 0 })
  assert.match(paid.txId, /^[0-9a-f]{64}$/)
  assert.match(paid.operation_id, /^OUTGOING_TX-\d+$/)
  assert.is(paid.service_fee, 5)
  assert.is(await balanceOf(daemon, app.appToken, 'addr-receiver'), 500)
  assert.is(await balanceOf(daemon, app.appToken, 'addr-sender'), 1495)

  const outside = await call(daemon, '/api/user/chain/pay', sender.userToken, {
    address: 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080', amountSats: 100, satsPerVByte: 0,
  })
  assert.is(outside.status, 'ERROR')
  assert.match(outside.reason, /swap quote/)
  assert.is(await balanceOf(daemon, app.appToken, 'addr-sender'), 1495)
})

test('a ban seizes the balance, reports it and the app identities, and locks the user out', async () => {
  const victim = await addAppUser(daemon, { appToken: app.appToken, appId: app.appId, jwtSecret, identifier: 'to-be-banned' })
  await fund('to-be-banned', 4321)
  const seizedBefore = (await audit(daemon.dataDir)).systemAccounts['system:seized'] ?? 0
  const ban = await ok(daemon, '/api/admin/user/ban', daemon.adminToken, { user_id: victim.userId })
  assert.is(ban.balance_sats, 4321)
  assert.equal(ban.banned_app_users, [{ app_name: (await ok(daemon, '/api/app/get', app.appToken)).name, app_id: app.appId, user_identifier: 'to-be-banned', nostr_pub: '' }])
  assert.is(await balanceOf(daemon, app.appToken, 'to-be-banned'), 0)
  assert.is((await audit(daemon.dataDir)).systemAccounts['system:seized'], seizedBefore + 4_321_000)

  const out = await call(daemon, '/api/app/user/internal/pay', app.appToken, { from_user_identifier: 'to-be-banned', to_user_identifier: 'sender', amount: 1 })
  assert.is(out.reason, 'user is locked')
  const into = await call(daemon, '/api/app/user/internal/pay', app.appToken, { from_user_identifier: 'sender', to_user_identifier: 'to-be-banned', amount: 1 })
  assert.is(into.reason, 'the receiving user is locked')
  const unknown = await call(daemon, '/api/admin/user/ban', daemon.adminToken, { user_id: 'f'.repeat(64) })
  assert.is(unknown.status, 'ERROR')
})

test('mock balances set exact balances, creating the app user if needed', async () => {
  await ok(daemon, '/api/app/mock/user/blance/set', app.appToken, { user_identifier: 'mocked-new', amount: 900 })
  assert.is(await balanceOf(daemon, app.appToken, 'mocked-new'), 900)
  await ok(daemon, '/api/app/mock/user/blance/set', app.appToken, { user_identifier: 'mocked-new', amount: 100 })
  assert.is(await balanceOf(daemon, app.appToken, 'mocked-new'), 100)
  await ok(daemon, '/api/app/mock/blance/set', app.appToken, { amount: 5555 })
  assert.is(await appBalance(daemon, app.appToken), 5555)
  const negative = await call(daemon, '/api/app/mock/user/blance/set', app.appToken, { user_identifier: 'mocked-new', amount: -1 })
  assert.is(negative.status, 'ERROR')
  assert.is(await balanceOf(daemon, app.appToken, 'mocked-new'), 100)
})

test.run()
