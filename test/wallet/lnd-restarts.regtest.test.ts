// Restarts on a real Lightning network: the daemon and LND node A going down and coming back while B pays users
// and users pay B. A keeps its invoices in LND's native SQL tables (SQLite), whose replay of missed settlements
// comes in the order the invoices were added, not the order they were paid. Every settled invoice must be credited
// once, every payment end as LND decided, and the books audit clean.
// Runs on the newest LND version of the run only.
import { createHash, randomBytes } from 'node:crypto'
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { startDaemon, type TestDaemon } from '../support/daemon.js'
import { createAppWithUser, jwtSecretConfig, type TestAppUser } from '../support/accounts.js'
import { assertAuditClean, balanceOf, call, ok } from '../support/money.js'
import { onRegtestNetworks, type Regtest } from '../support/regtest/index.js'

const jwtSecret = 'lnd-restarts-regtest-secret-0123456789ab'
const sha256 = (hex: string) => createHash('sha256').update(Buffer.from(hex, 'hex')).digest('hex')

function restarts(net: Regtest): void {
  const test = suite(`restarts on a real LND ${net.lndVersion} (invoices in native SQL tables)`)
  let daemon: TestDaemon
  let user: TestAppUser
  const config = jwtSecretConfig(jwtSecret) + net.nodeConfig()
  const bearer = () => `Bearer ${user.userToken}`
  const balance = () => balanceOf(daemon, user.appToken, user.identifier)
  const invoiceOf = async (amountSats: number) =>
    (await ok(daemon, '/api/user/invoice/new', bearer(), { amountSats, memo: 'regtest' })).invoice as string
  const credited = (sats: number, what: string) => net.waitFor(what, async () => ((await balance()) === sats ? true : undefined))
  /** Waits a little longer for a balance that must not move further; then it is read once more. */
  const settledAt = async (sats: number) => {
    await net.mine(1)
    assert.is(await balance(), sats)
  }

  test.before(async () => {
    daemon = await startDaemon({ config, mock: false })
    user = await createAppWithUser(daemon, { jwtSecret, identifier: 'restarts' })
    const first = await invoiceOf(1_000)
    assert.is((await net.pay('B', first)).status, 'SUCCEEDED')
    await credited(1_000, 'the first credit (the stored settle index)')
  })
  test.after(async () => {
    await daemon?.stop()
  })

  test('invoices paid while the daemon is down, against the order they were made, are credited once each at its start', async () => {
    const before = await balance()
    const invoices = [await invoiceOf(2_000), await invoiceOf(3_000), await invoiceOf(4_000)]
    await daemon.stop()
    for (const invoice of [...invoices].reverse()) assert.is((await net.pay('B', invoice)).status, 'SUCCEEDED')
    daemon = await startDaemon({ config, dataDir: daemon.dataDir, mock: false })
    await credited(before + 9_000, 'the three credits')
    // Started again: nothing is credited twice.
    await daemon.stop()
    daemon = await startDaemon({ config, dataDir: daemon.dataDir, mock: false })
    const later = await invoiceOf(500)
    assert.is((await net.pay('B', later)).status, 'SUCCEEDED')
    await credited(before + 9_500, 'the credit after the restart')
    await settledAt(before + 9_500)
    await assertAuditClean(daemon.dataDir)
  })

  for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
    test(`A stopped (${signal}) and started between settlements: each credited once, the stream resumes by itself`, async () => {
      const before = await balance()
      const a = await invoiceOf(1_100)
      assert.is((await net.pay('B', a)).status, 'SUCCEEDED')
      await credited(before + 1_100, 'the credit before the restart')
      const b = await invoiceOf(1_200)
      await net.restart('A', signal)
      assert.is((await net.pay('B', b)).status, 'SUCCEEDED')
      await credited(before + 2_300, 'the credit after the restart')
      const c = await invoiceOf(1_300)
      assert.is((await net.pay('B', c)).status, 'SUCCEEDED')
      await credited(before + 3_600, 'the next credit')
      await settledAt(before + 3_600)
      await assertAuditClean(daemon.dataDir)
    })
  }

  test("invoices paid while A is down and the daemon with it: credited once each when both are back", async () => {
    const before = await balance()
    const invoices = [await invoiceOf(600), await invoiceOf(700)]
    await daemon.kill()
    await net.stop('A', 'SIGKILL')
    await net.start('A')
    for (const invoice of [...invoices].reverse()) assert.is((await net.pay('B', invoice)).status, 'SUCCEEDED')
    daemon = await startDaemon({ config, dataDir: daemon.dataDir, mock: false })
    await credited(before + 1_300, 'both credits')
    await settledAt(before + 1_300)
    await assertAuditClean(daemon.dataDir)
  })

  test('a hold invoice of B paid by the user stays pending across a daemon crash and an LND restart, then ends as B decides', async () => {
    // The user's balance pays both holds; the service fee is taken with each.
    for (const end of ['settle', 'cancel'] as const) {
      const before = await balance()
      const preimage = randomBytes(32).toString('hex')
      const hash = sha256(preimage)
      const hold = await net.lncli<{ payment_request: string }>('B', ['addholdinvoice', hash, '--amt=1000'])
      void call(daemon, '/api/user/invoice/pay', bearer(), { invoice: hold.payment_request, amount: 0 }).catch(() => undefined)
      await net.waitFor('B to hold the HTLC', async () =>
        (await net.lncli<{ state: string }>('B', ['lookupinvoice', hash])).state === 'ACCEPTED' || undefined,
      )
      const debited = before - (await balance())
      assert.ok(debited > 1_000, `debited amount and fee while pending (${debited})`)
      await daemon.kill()
      await net.restart('A')
      daemon = await startDaemon({ config, dataDir: daemon.dataDir, mock: false })
      const pending = await ok(daemon, '/api/user/payment/state', bearer(), { invoice: hold.payment_request })
      assert.is(pending.paid_at_unix, 0, `still pending after the restarts: ${JSON.stringify(pending)}`)
      assert.is(before - (await balance()), debited, 'neither refunded nor debited again')
      if (end === 'settle') await net.lncli('B', ['settleinvoice', preimage])
      else await net.lncli('B', ['cancelinvoice', hash])
      await net.waitFor(`the payment to end (${end})`, async () => {
        const state = await ok(daemon, '/api/user/payment/state', bearer(), { invoice: hold.payment_request })
        return (end === 'settle' ? state.paid_at_unix > 0 : state.paid_at_unix === -1) || undefined
      })
      assert.is(await balance(), end === 'settle' ? before - debited : before)
    }
    await assertAuditClean(daemon.dataDir)
  })

  test.run()
}

await onRegtestNetworks('wallet/lnd-restarts.regtest', restarts, { aDatabase: 'sqlite' })
