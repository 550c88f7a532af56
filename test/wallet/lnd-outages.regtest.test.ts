// LND going away and coming back changed, under a daemon that keeps running: a TLS certificate LND generated anew
// at a restart, macaroons rotated while LND runs, a wallet left locked after a restart. While LND cannot be used,
// users are refused in words that name the cause and keep their money; a payment under way is not marked failed;
// once LND is usable again the daemon serves by itself, with nobody restarting it. The daemon reaches A with a
// macaroon baked as docs/lnd.md says, as an operator's would.
// Runs on the newest LND version of the run only.
import { createHash, randomBytes } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { startDaemon, type TestDaemon } from '../support/daemon.js'
import { createAppWithUser, jwtSecretConfig, type TestAppUser } from '../support/accounts.js'
import { assertAuditClean, balanceOf, call, ok } from '../support/money.js'
import { onRegtestNetworks, type Regtest } from '../support/regtest/index.js'

const jwtSecret = 'lnd-outages-regtest-secret-0123456789abcd'
const sha256 = (hex: string) => createHash('sha256').update(Buffer.from(hex, 'hex')).digest('hex')
/** The permissions docs/lnd.md bakes relaypay's macaroon with. */
const permissions = 'info:read invoices:read invoices:write offchain:read offchain:write onchain:read onchain:write address:read address:write peers:read peers:write'.split(' ')

function outages(net: Regtest): void {
  const test = suite(`LND changed under a running daemon, on LND ${net.lndVersion}`)
  const a = net.node('A')
  const macaroonPath = path.join(a.dir, 'relaypay.macaroon')
  const bake = (rootKeyId: number, to: string) => net.lncli('A', ['bakemacaroon', ...permissions, `--root_key_id=${rootKeyId}`, `--save_to=${to}`], { raw: true })
  let daemon: TestDaemon
  let user: TestAppUser
  const bearer = () => `Bearer ${user.userToken}`
  const balance = () => balanceOf(daemon, user.appToken, user.identifier)
  const newInvoice = (amountSats: number) => call(daemon, '/api/user/invoice/new', bearer(), { amountSats, memo: 'outages' })
  /** B pays a new invoice of the user; answers once the daemon has credited it. */
  const creditedFromB = async (amountSats: number) => {
    const before = await balance()
    const invoice = await newInvoice(amountSats)
    assert.is(invoice.status, 'OK', `an invoice once LND is back: ${JSON.stringify(invoice)}`)
    assert.is((await net.pay('B', invoice.invoice)).status, 'SUCCEEDED')
    await net.waitFor('the credit of B’s payment', async () => ((await balance()) === before + amountSats ? true : undefined))
  }
  /** The user pays a new invoice of B through R; answers the payment's fee as booked. */
  const paysB = async (amountSats: number) => {
    const before = await balance()
    const { paymentRequest } = await net.addInvoice('B', amountSats)
    const paid = await ok(daemon, '/api/user/invoice/pay', bearer(), { invoice: paymentRequest, amount: 0 })
    assert.ok(before - (await balance()) >= amountSats, `debited: ${JSON.stringify(paid)}`)
  }
  /** While LND cannot be used: an invoice and a payment are refused in words naming `cause`, the balance untouched. */
  const refusedWhile = async (cause: RegExp) => {
    const before = await balance()
    const invoice = await newInvoice(1_000)
    assert.is(invoice.status, 'ERROR', `no invoice without LND: ${JSON.stringify(invoice)}`)
    assert.match(invoice.reason, cause)
    const { paymentRequest } = await net.addInvoice('B', 500)
    const payment = await call(daemon, '/api/user/invoice/pay', bearer(), { invoice: paymentRequest, amount: 0 })
    assert.is(payment.status, 'ERROR', `no payment without LND: ${JSON.stringify(payment)}`)
    assert.match(payment.reason, cause)
    assert.is(await balance(), before, 'the refused payment is not debited, or is refunded at once')
  }

  test.before(async () => {
    await bake(1, macaroonPath)
    const config = `${jwtSecretConfig(jwtSecret)}${net.nodeConfig().replace(a.macaroon, macaroonPath)}`
    daemon = await startDaemon({ config, mock: false })
    user = await createAppWithUser(daemon, { jwtSecret, identifier: 'outages' })
    await creditedFromB(20_000)
  })
  test.after(async () => {
    await daemon?.stop()
  })

  test('a TLS certificate LND generates anew at a restart: a payment under way ends as B decides, and the daemon serves again', async () => {
    const before = await balance()
    const preimage = randomBytes(32).toString('hex')
    const hash = sha256(preimage)
    const hold = await net.lncli<{ payment_request: string }>('B', ['addholdinvoice', hash, '--amt=1000'])
    void call(daemon, '/api/user/invoice/pay', bearer(), { invoice: hold.payment_request, amount: 0 }).catch(() => undefined)
    await net.waitFor('B to hold the HTLC', async () => ((await net.lncli<{ state: string }>('B', ['lookupinvoice', hash])).state === 'ACCEPTED') || undefined)
    const debited = before - (await balance())
    const oldCert = fs.readFileSync(a.cert)

    await net.stop('A')
    fs.rmSync(a.cert)
    fs.rmSync(path.join(a.dir, 'tls.key'))
    await refusedWhile(/LND/)
    await net.start('A')
    assert.not.ok(fs.readFileSync(a.cert).equals(oldCert), 'LND wrote a new certificate')

    const pending = await ok(daemon, '/api/user/payment/state', bearer(), { invoice: hold.payment_request })
    assert.is(pending.paid_at_unix, 0, `the payment is still pending, not failed: ${JSON.stringify(pending)}`)
    await net.lncli('B', ['settleinvoice', preimage])
    await net.waitFor('the held payment to end settled', async () => {
      const state = await ok(daemon, '/api/user/payment/state', bearer(), { invoice: hold.payment_request })
      return state.paid_at_unix > 0 || undefined
    })
    assert.is(await balance(), before - debited, 'debited once, not refunded')
    await creditedFromB(700)
    await paysB(300)
  })

  test('macaroons rotated while LND runs: the daemon takes up the new file at its next call, and nobody sees the old one refused', async () => {
    const staleCopy = `${macaroonPath}.old`
    fs.copyFileSync(macaroonPath, staleCopy)
    // The operator's rotation: a macaroon of a new root key replaces the file in one rename, the old key is deleted.
    await bake(2, `${macaroonPath}.new`)
    fs.renameSync(`${macaroonPath}.new`, macaroonPath)
    await net.lncli('A', ['deletemacaroonid', '1'], { raw: true })
    const stale = await net.lncli('A', [`--macaroonpath=${staleCopy}`, 'getinfo'], { raw: true }).then(
      () => 'accepted',
      (err: Error) => err.message,
    )
    assert.match(stale, /verification failed|cannot get macaroon|root key/i, 'LND refuses the old macaroon now')

    await creditedFromB(800)
    await paysB(400)
  })

  test('a wallet left locked after a restart: refused in words that say so, and served again once unlocked', async () => {
    await net.stop('A')
    await net.startLocked('A')
    await refusedWhile(/locked/i)
    await net.waitFor('the daemon to log that LND is locked', async () => (/locked/i.test(daemon.logs()) ? true : undefined))
    await net.unlock('A', 'relaypay-regtest-wallet')
    await creditedFromB(900)
    await paysB(500)
    await assertAuditClean(daemon.dataDir)
  })

  test.run()
}

await onRegtestNetworks('wallet/lnd-outages.regtest', outages)
