// AddAppUser with a balance (upstream ALLOW_BALANCE_MIGRATION): refused by default; when allowed, the balance
// enters through the ledger from `system:migration`, so the audit stays clean.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { startDaemon } from '../support/daemon.js'
import { assertAuditClean, call, ok } from '../support/money.js'

const s = suite('balance migration')

const addApp = async (daemon: Awaited<ReturnType<typeof startDaemon>>) =>
  (await ok(daemon, '/api/admin/app/add', daemon.adminToken, { name: 'migrating', allow_user_creation: false })).auth_token as string

s('refused unless the operator allows it', async () => {
  const daemon = await startDaemon()
  try {
    const appToken = await addApp(daemon)
    const refused = await call(daemon, '/api/app/user/add', appToken, { identifier: 'old-user', fail_if_exists: true, balance: 100 })
    assert.equal(refused, { status: 'ERROR', reason: 'balance must be 0 (balance migration is disabled: [apps] allow_balance_migration = false)' })
  } finally {
    await daemon.stop()
  }
})

s('allowed: the user starts with the balance, recorded in the ledger', async () => {
  const daemon = await startDaemon({ config: '[apps]\nallow_balance_migration = true\n' })
  try {
    const appToken = await addApp(daemon)
    const added = await ok(daemon, '/api/app/user/add', appToken, { identifier: 'old-user', fail_if_exists: true, balance: 1234 })
    assert.is(added.info.balance, 1234)
    const negative = await call(daemon, '/api/app/user/add', appToken, { identifier: 'bad', fail_if_exists: true, balance: -5 })
    assert.is(negative.status, 'ERROR')
    const report = await assertAuditClean(daemon.dataDir)
    assert.is((report as unknown as { systemAccounts: Record<string, number> }).systemAccounts['system:migration'], -1_234_000)
  } finally {
    await daemon.stop()
  }
})

s.run()
