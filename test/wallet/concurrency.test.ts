// Many payments at once over HTTP: a balance that covers only some of them pays exactly those, no balance ever
// goes below zero, and an invoice two wallets race to pay is paid once.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { startDaemon, type TestDaemon } from '../support/daemon.js'
import { addAppUser, createAppWithUser, jwtSecretConfig, type TestAppUser } from '../support/accounts.js'
import { appBalance, assertAuditClean, balanceOf, call, newInvoice, ok } from '../support/money.js'

const jwtSecret = 'wallet-concurrency-test-secret-01234567'
const test = suite('concurrent payments')
let daemon: TestDaemon
let app: TestAppUser
let payee: { userToken: string; identifier: string }

test.before(async () => {
  daemon = await startDaemon({ config: jwtSecretConfig(jwtSecret) })
  app = await createAppWithUser(daemon, { jwtSecret, identifier: 'spender' })
  payee = await addAppUser(daemon, { appToken: app.appToken, appId: app.appId, jwtSecret, identifier: 'shop' })
})
test.after(async () => {
  await daemon?.stop()
})

/** Runs `task` for 0..count-1 with at most `width` in flight. */
async function inBatches<T>(count: number, width: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array(count)
  let next = 0
  await Promise.all(
    Array.from({ length: width }, async () => {
      for (let i = next++; i < count; i = next++) results[i] = await task(i)
    }),
  )
  return results
}

test('1,000 concurrent payments from a balance that covers 300 of them: exactly 300 succeed', async () => {
  const affordable = 300
  await ok(daemon, '/api/app/mock/user/blance/set', app.appToken, { user_identifier: 'spender', amount: affordable * 1010 + 500 })
  const invoices = await inBatches(1000, 16, () => newInvoice(daemon, payee.userToken, 1000))
  const appBefore = await appBalance(daemon, app.appToken)

  const replies = await Promise.all(
    invoices.map(invoice => call(daemon, '/api/user/invoice/pay', app.userToken, { invoice, amount: 0 })),
  )
  const succeeded = replies.filter(r => r.status === 'OK')
  const refused = replies.filter(r => r.status === 'ERROR')
  assert.is(succeeded.length, affordable)
  assert.is(refused.length, 1000 - affordable)
  // Each refusal says what the wallet held then and what the payment needed.
  for (const r of refused) assert.match(r.reason, /^not enough balance to decrement: the wallet holds \d{1,3}(,\d{3})? sats?, this needs 1,010 sats$/)
  // Each success saw its own balance after it; none is below zero and together they count down by 1010.
  const seen = succeeded.map(r => r.latest_balance).sort((a, b) => a - b)
  assert.is(seen[0], 500)
  for (let i = 1; i < seen.length; i++) assert.is(seen[i]! - seen[i - 1]!, 1010)

  assert.is(await balanceOf(daemon, app.appToken, 'spender'), 500)
  assert.is(await balanceOf(daemon, app.appToken, 'shop'), affordable * 1000)
  assert.is(await appBalance(daemon, app.appToken), appBefore + affordable * 10)
  await assertAuditClean(daemon.dataDir)
})

test('an invoice two wallets pay at the same moment is paid once', async () => {
  const rival = await addAppUser(daemon, { appToken: app.appToken, appId: app.appId, jwtSecret, identifier: 'rival' })
  await ok(daemon, '/api/app/mock/user/blance/set', app.appToken, { user_identifier: 'spender', amount: 100_000 })
  await ok(daemon, '/api/app/mock/user/blance/set', app.appToken, { user_identifier: 'rival', amount: 100_000 })
  const shopBefore = await balanceOf(daemon, app.appToken, 'shop')
  const rounds = 50
  const invoices = await inBatches(rounds, 8, () => newInvoice(daemon, payee.userToken, 100))

  const outcomes = await Promise.all(
    invoices.map(async invoice => {
      const [a, b] = await Promise.all([
        call(daemon, '/api/user/invoice/pay', app.userToken, { invoice, amount: 0 }),
        call(daemon, '/api/user/invoice/pay', rival.userToken, { invoice, amount: 0 }),
      ])
      return [a, b]
    }),
  )
  let spenderPaid = 0
  for (const [a, b] of outcomes) {
    assert.is([a, b].filter(r => r.status === 'OK').length, 1, JSON.stringify([a, b]))
    const loser = a.status === 'OK' ? b : a
    assert.is(loser.reason, 'this invoice was already paid')
    if (a.status === 'OK') spenderPaid++
  }
  assert.is(await balanceOf(daemon, app.appToken, 'shop'), shopBefore + rounds * 100)
  assert.is(await balanceOf(daemon, app.appToken, 'spender'), 100_000 - spenderPaid * 110)
  assert.is(await balanceOf(daemon, app.appToken, 'rival'), 100_000 - (rounds - spenderPaid) * 110)
  await assertAuditClean(daemon.dataDir)
})

test.run()
