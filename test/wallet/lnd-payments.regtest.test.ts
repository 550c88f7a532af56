// Users' money on a real Lightning network: the daemon on LND node A of a regtest network, B (the outside world)
// paying users and being paid by them through R. Every case ends with the books audited by `relaypay audit`.
import { createHash, randomBytes } from 'node:crypto'
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { startDaemon, type TestDaemon } from '../support/daemon.js'
import { addAppUser, createAppWithUser, jwtSecretConfig, type TestAppUser } from '../support/accounts.js'
import { assertAuditClean, balanceOf, call, ok } from '../support/money.js'
import { onRegtestNetworks, type Regtest } from '../support/regtest/index.js'
import { startCuttingProxy } from '../support/regtest/cutting-proxy.js'

const jwtSecret = 'lnd-payments-regtest-secret-0123456789ab'
const sha256 = (hex: string) => createHash('sha256').update(Buffer.from(hex, 'hex')).digest('hex')

interface LndPayment {
  payment_hash: string
  status: string
  fee_msat: string
}

function payments(net: Regtest): void {
  const test = suite(`users' money on a real LND ${net.lndVersion}`)
  let daemon: TestDaemon
  let payer: TestAppUser
  let payee: { userToken: string; identifier: string }
  const bearer = (token: string) => `Bearer ${token}`
  const balance = (identifier: string) => balanceOf(daemon, payer.appToken, identifier)
  // Failed and in-flight payments too: a send LND tried and failed is still a send.
  const lndPayments = async () => (await net.lncli<{ payments: LndPayment[] }>('A', ['listpayments', '--include_incomplete'])).payments
  const invoiceOf = async (token: string, amountSats: number) =>
    (await ok(daemon, '/api/user/invoice/new', bearer(token), { amountSats, memo: 'regtest' })).invoice as string
  const pay = (token: string, invoice: string) => call(daemon, '/api/user/invoice/pay', bearer(token), { invoice, amount: 0 })

  test.before(async () => {
    daemon = await startDaemon({ config: jwtSecretConfig(jwtSecret) + net.nodeConfig(), mock: false })
    payer = await createAppWithUser(daemon, { jwtSecret, identifier: 'payer' })
    payee = await addAppUser(daemon, { appToken: payer.appToken, appId: payer.appId, jwtSecret, identifier: 'payee' })
  })
  test.after(async () => {
    await daemon?.stop()
  })

  test("B pays a user's invoice: the user is credited what B paid, once", async () => {
    const invoice = await invoiceOf(payer.userToken, 50_000)
    const paid = await net.pay('B', invoice)
    assert.is(paid.status, 'SUCCEEDED')
    await net.waitFor('the credit', async () => ((await balance('payer')) === 50_000 ? true : undefined))
    await assertAuditClean(daemon.dataDir)
  })

  test('a user pays B through R: debited amount and service fee once; LND paid it once with the fee R charged', async () => {
    const before = await balance('payer')
    const { paymentRequest, paymentHash } = await net.addInvoice('B', 10_000)
    const paid = await pay(payer.userToken, paymentRequest)
    assert.is(paid.status, 'OK', JSON.stringify(paid))
    const debited = before - (await balance('payer'))
    assert.is(debited, 10_000 + paid.service_fee)
    const atLnd = (await lndPayments()).filter(p => p.payment_hash === paymentHash)
    assert.is(atLnd.length, 1)
    assert.is(atLnd[0].status, 'SUCCEEDED')
    assert.is(Number(atLnd[0].fee_msat), 1000 + Math.floor(10_000_000 / 1_000_000), "R's base fee and rate")
    const state = await ok(daemon, '/api/user/payment/state', bearer(payer.userToken), { invoice: paymentRequest })
    assert.ok(state.paid_at_unix > 0)
    await assertAuditClean(daemon.dataDir)
  })

  test('paying the same invoice of B again is refused with no second debit and nothing sent', async () => {
    const { paymentRequest, paymentHash } = await net.addInvoice('B', 2_000)
    assert.is((await pay(payer.userToken, paymentRequest)).status, 'OK')
    const before = await balance('payer')
    const again = await pay(payer.userToken, paymentRequest)
    assert.is(again.status, 'ERROR')
    assert.is(await balance('payer'), before)
    assert.is((await lndPayments()).filter(p => p.payment_hash === paymentHash).length, 1)
    // B paid by someone else first (B's own invoice paid by R): a user paying it is refused by LND, and refunded.
    const { paymentRequest: taken } = await net.addInvoice('B', 1_500)
    assert.is((await net.pay('R', taken)).status, 'SUCCEEDED')
    const refused = await pay(payer.userToken, taken)
    assert.is(refused.status, 'ERROR')
    await net.waitFor('the refund of the refused payment', async () => ((await balance('payer')) === before ? true : undefined))
    await assertAuditClean(daemon.dataDir)
  })

  test("a user pays another user's invoice inside the daemon: LND sends nothing", async () => {
    const sentBefore = (await lndPayments()).length
    const invoice = await invoiceOf(payee.userToken, 3_000)
    const payerBefore = await balance('payer')
    const paid = await pay(payer.userToken, invoice)
    assert.is(paid.status, 'OK', JSON.stringify(paid))
    assert.is(await balance('payee'), 3_000)
    assert.is(payerBefore - (await balance('payer')), 3_000 + paid.service_fee)
    assert.is((await lndPayments()).length, sentBefore)
    await assertAuditClean(daemon.dataDir)
  })

  test("R's fee above the routing fee limit: no route and a full refund; once R lowers it the same invoice is paid", async () => {
    // 1,000 sats may spend 5 sats on routing (routing_fee_floor_sats); R asks 10 sats, then 1 again.
    const setRFee = async (baseFeeMsat: number) => {
      await net.lncli('R', ['updatechanpolicy', `--base_fee_msat=${baseFeeMsat}`, '--fee_rate_ppm=1', '--time_lock_delta=80'])
      await net.waitFor(`A to learn R's fee of ${baseFeeMsat} msat`, async () => {
        type Policy = { fee_base_msat: string } | null
        const { edges } = await net.lncli<{ edges: { node1_pub: string; node2_pub: string; node1_policy: Policy; node2_policy: Policy }[] }>('A', ['describegraph'])
        const r = net.node('R').pubkey
        const policiesOfR = edges.filter(e => e.node1_pub === r || e.node2_pub === r).map(e => (e.node1_pub === r ? e.node1_policy : e.node2_policy))
        return policiesOfR.length === 2 && policiesOfR.every(p => Number(p?.fee_base_msat) === baseFeeMsat) ? true : undefined
      })
    }
    const { paymentRequest, paymentHash } = await net.addInvoice('B', 1_000)
    const before = await balance('payer')
    await setRFee(10_000)
    const failed = await pay(payer.userToken, paymentRequest)
    assert.is(failed.status, 'ERROR', JSON.stringify(failed))
    assert.match(failed.reason, /route/i)
    assert.is(await balance('payer'), before, 'refunded in full')
    await setRFee(1_000)
    const retried = await pay(payer.userToken, paymentRequest)
    assert.is(retried.status, 'OK', JSON.stringify(retried))
    assert.is(before - (await balance('payer')), 1_000 + retried.service_fee)
    const atLnd = (await lndPayments()).filter(p => p.payment_hash === paymentHash)
    assert.equal(atLnd.map(p => [p.status, Number(p.fee_msat)]), [['SUCCEEDED', 1_000 + Math.floor(1_000_000 / 1_000_000)]])
    await assertAuditClean(daemon.dataDir)
  })

  test("an amount beyond what A's channel can carry above its reserve is refused and refunded in full", async () => {
    type Channel = { local_balance: string; local_constraints: { chan_reserve_sat: string } }
    const channelOfA = async () => (await net.lncli<{ channels: Channel[] }>('A', ['listchannels'])).channels[0]
    // The operator spends A's own outbound (a payment to R), leaving its reserve and 10,000 sats.
    const own = await channelOfA()
    const reserve = Number(own.local_constraints.chan_reserve_sat)
    const spend = await net.addInvoice('R', Number(own.local_balance) - reserve - 10_000)
    assert.is((await net.pay('A', spend.paymentRequest, { feeLimitSats: 0 })).status, 'SUCCEEDED')
    // B pays the user 200,000 sats: A's channel now holds the user's money, and little more.
    const funding = await invoiceOf(payer.userToken, 200_000)
    const before = (await balance('payer')) + 200_000
    assert.is((await net.pay('B', funding)).status, 'SUCCEEDED')
    await net.waitFor('the funding', async () => ((await balance('payer')) === before ? true : undefined))
    // LND marks the invoice settled as it releases the preimage; the channel's balance moves a moment later, when the
    // commitment is signed. Read it after.
    const local = await net.waitFor("the funding in A's channel", async () => {
      const balance = Number((await channelOfA()).local_balance)
      return balance >= reserve + 200_000 ? balance : undefined
    })
    const amount = local - reserve + 1_000
    assert.ok(amount + 2_000 < before, 'the user can afford it')
    const { paymentRequest } = await net.addInvoice('B', amount)
    const refused = await pay(payer.userToken, paymentRequest)
    assert.is(refused.status, 'ERROR', JSON.stringify(refused))
    assert.is(await balance('payer'), before, 'refunded in full')
    // What the channel can carry still goes.
    const { paymentRequest: fits } = await net.addInvoice('B', 50_000)
    assert.is((await pay(payer.userToken, fits)).status, 'OK')
    await assertAuditClean(daemon.dataDir)
  })

  test('a hold invoice of B: the user is debited and the payment pending until B settles; another refunded when B cancels', async () => {
    for (const end of ['settle', 'cancel'] as const) {
      const before = await balance('payer')
      const preimage = randomBytes(32).toString('hex')
      const hash = sha256(preimage)
      const hold = await net.lncli<{ payment_request: string }>('B', ['addholdinvoice', hash, '--amt=1000'])
      const paying = pay(payer.userToken, hold.payment_request)
      await net.waitFor('B to hold the HTLC', async () =>
        (await net.lncli<{ state: string }>('B', ['lookupinvoice', hash])).state === 'ACCEPTED' || undefined,
      )
      const debited = before - (await balance('payer'))
      assert.ok(debited >= 1000, `debited while pending (${debited})`)
      if (end === 'settle') await net.lncli('B', ['settleinvoice', preimage])
      else await net.lncli('B', ['cancelinvoice', hash])
      const answer = await paying
      if (end === 'settle') {
        assert.is(answer.status, 'OK', JSON.stringify(answer))
        assert.is(before - (await balance('payer')), 1000 + answer.service_fee)
      } else {
        assert.is(answer.status, 'ERROR')
        await net.waitFor('the refund', async () => ((await balance('payer')) === before ? true : undefined))
      }
    }
    await assertAuditClean(daemon.dataDir)
  })

  test("the operator's assets and liabilities from LND's own lists: users' operations tracked to them, A's own not; every page's cursor reaches the next with no gap or repeat", async () => {
    const admin = `Bearer ${daemon.adminToken}`
    const v2 = async (filter: object) =>
      (await ok(daemon, '/api/admin/assets/liabilities/v2', admin, { lnd_providers: [{ pubkey: net.node('A').pubkey, ...filter }], liquidity_providers: [] })).lnds[0]
    // An invoice A made outside the wallets (lncli), paid by B: LND lists it, no wallet booked it.
    const own = await net.addInvoice('A', 1_234, 'not a wallet invoice')
    assert.is((await net.pay('B', own.paymentRequest)).status, 'SUCCEEDED')
    const userInvoice = await invoiceOf(payer.userToken, 4_321)
    assert.is((await net.pay('B', userInvoice)).status, 'SUCCEEDED')
    // Tracked once the wallet has booked it (the credit follows LND's settlement stream).
    await net.waitFor('the user invoice settled and booked', async () => {
      const newest = (await v2({ limit_invoices: 2 })).tracked.invoices.operations
      return newest.some((op: any) => op.amount === 4_321 && op.tracked) ? newest : undefined
    })
    const lnd = await v2({ limit_invoices: 50, limit_payments: 50, limit_transactions: 50 })
    assert.is(lnd.pubkey, net.node('A').pubkey)
    const tracked = lnd.tracked
    const invoices = tracked.invoices.operations
    assert.equal(invoices.find((op: any) => op.amount === 1_234), { ts: invoices.find((op: any) => op.amount === 1_234).ts, amount: 1_234 }, "A's own invoice is untracked")
    const user = invoices.find((op: any) => op.amount === 4_321)
    assert.equal({ type: user.tracked.type, user_id: user.tracked.user_id, amount: user.tracked.amount }, { type: 'USER', user_id: payer.userId, amount: 4_321 })
    // The users paid B; the operator paid R once from A with lncli (the test of A's reserve): that one is untracked.
    const { payments: atLnd } = await net.lncli<{ payments: (LndPayment & { value_sat: string; payment_request: string })[] }>('A', ['listpayments'])
    const succeeded = atLnd.filter(p => p.status === 'SUCCEEDED')
    assert.is(tracked.payments.operations.length, succeeded.length)
    const toR = new Set<number>()
    for (const p of succeeded) {
      const { destination } = await net.lncli<{ destination: string }>('A', ['decodepayreq', p.payment_request])
      if (destination === net.node('R').pubkey) toR.add(Number(p.value_sat))
    }
    assert.is(toR.size, 1, "the operator's own payment to R")
    for (const op of tracked.payments.operations) {
      if (toR.has(op.amount)) assert.is(op.tracked, undefined, `the operator's payment: ${JSON.stringify(op)}`)
      else assert.is(op.tracked?.user_id, payer.userId, JSON.stringify(op))
    }
    // The chain: A's wallet was funded, then it opened its channel; both lists come from one window at one height.
    const chainTxs = (await net.lncli<{ transactions: { amount: string; num_confirmations: number }[] }>('A', ['listchaintxns'])).transactions
    assert.ok(tracked.incoming_tx.operations.length >= 1 && tracked.outgoing_tx.operations.length >= 1, JSON.stringify(tracked.incoming_tx))
    assert.is(tracked.outgoing_tx.operations.length, chainTxs.filter(tx => Number(tx.amount) < 0 && tx.num_confirmations > 0).length)
    for (const op of tracked.outgoing_tx.operations) assert.ok(op.amount < 0, 'a send is the wallet\'s net change')
    assert.is(tracked.incoming_tx.start_height, (await net.lncli<{ block_height: number }>('A', ['getinfo'])).block_height, "A's tip")

    // One at a time, each list walked by its cursor gives what one big page gives, in the same order.
    const walk = async (list: 'payments' | 'invoices' | 'incoming_tx', limit: string, offset: string, size: number, pages: number) => {
      const windows: any[][] = []
      let filter: Record<string, number> = { [limit]: size }
      for (let i = 0; i < pages; i++) {
        const page = (await v2(filter)).tracked[list]
        windows.push(page.operations)
        if (!page.has_more) return windows
        filter = { [limit]: size, [offset]: page.next_index_offset, ...(page.start_height !== undefined ? { tx_start_height: page.start_height } : {}) }
      }
      return windows
    }
    // Lightning windows run newest first and are oldest first inside: the big page is the windows reversed, and
    // the walk ends (fewer than 50 of each here).
    assert.ok(!tracked.payments.has_more && !tracked.invoices.has_more)
    assert.equal((await walk('payments', 'limit_payments', 'payment_index_offset', 1, 60)).reverse().flat(), tracked.payments.operations)
    assert.equal((await walk('invoices', 'limit_invoices', 'invoice_index_offset', 1, 60)).reverse().flat(), invoices)
    // Chain windows are newest first throughout. A's wallet was funded by mining to it (a transaction a block):
    // five windows of ten are the big page's fifty, and the walk goes on from there.
    const chainWindows = await walk('incoming_tx', 'limit_transactions', 'tx_index_offset', 10, 6)
    assert.equal(chainWindows.slice(0, 5).flat(), tracked.incoming_tx.operations)
    assert.is(tracked.incoming_tx.has_more, chainWindows.length > 5)
  })

  test('a payment LND never got (the connection dropped with SendPaymentV2 sent): pending, then refunded once when LND says it never began', async () => {
    // The daemon reaches A through a proxy that drops the connection once the next SendPaymentV2 request is through.
    const proxy = await startCuttingProxy(net.connection)
    const proxied = net.nodeConfig().replace(`"${net.connection.socket}"`, `"${proxy.socket}"`).replace(`"${net.connection.certPath}"`, `"${proxy.certPath}"`)
    await daemon.stop()
    daemon = await startDaemon({ config: jwtSecretConfig(jwtSecret) + proxied, dataDir: daemon.dataDir, mock: false })
    try {
      const before = await balance('payer')
      const { paymentRequest, paymentHash } = await net.addInvoice('B', 3_000)
      const cut = proxy.cutNext('/routerrpc.Router/SendPaymentV2')
      const answer = await pay(payer.userToken, paymentRequest)
      await cut
      // Nobody can tell yet whether LND took it: the payment waits on TrackPaymentV2, and the sats stay reserved.
      assert.is(answer.status, 'ERROR', `not paid: ${JSON.stringify(answer)}`)
      assert.match(answer.reason, /still in flight|not known yet/, 'pending, not refunded at once: it may have reached LND')
      await net.waitFor('LND to say it never began the payment, and the refund', async () => ((await balance('payer')) === before ? true : undefined))
      const state = await ok(daemon, '/api/user/payment/state', bearer(payer.userToken), { invoice: paymentRequest })
      assert.is(state.paid_at_unix, -1, `ended failed: ${JSON.stringify(state)}`)
      assert.is((await lndPayments()).filter(p => p.payment_hash === paymentHash).length, 0, 'LND never had it')
      assert.is((await net.lncli<{ state: string }>('B', ['lookupinvoice', paymentHash])).state, 'OPEN')
      // Refunded once: paying the same invoice now succeeds and is debited once.
      const again = await pay(payer.userToken, paymentRequest)
      assert.is(again.status, 'OK', JSON.stringify(again))
      assert.is(before - (await balance('payer')), 3_000 + again.service_fee)
      await assertAuditClean(daemon.dataDir)
    } finally {
      await daemon.stop()
      await proxy.close()
    }
  })

  test.run()
}

await onRegtestNetworks('wallet/lnd-payments.regtest', payments)
