// The swaps room's storage on both engines: the same cases on SQLite and on a real PostgreSQL 15,
// through SwapStore. Every state change is one guarded statement: of many callers racing on a swap (two payments,
// two claims, two refunds) exactly one wins, and the row holds what the winner wrote.
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { swapStore, type NewInvoiceSwap, type NewTxSwap, type SwapStore } from '../../src/swaps/swap-store.js'
import type { SqlStore } from '../../src/store/index.js'
import { logPostgresSkipped, openEngines } from '../support/sql-engines.js'

const both = await openEngines()
logPostgresSkipped(both.postgresSkipped)

const user = 'a'.repeat(64)
const wins = (results: boolean[]) => results.filter(Boolean).length

const txSwap = (id: string, over: Partial<NewTxSwap> = {}): NewTxSwap => ({
  id,
  user_id: user,
  provider_url: 'http://127.0.0.1:9001',
  provider_swap_id: `p-${id}`,
  preimage: '11'.repeat(32),
  payment_hash: '22'.repeat(32),
  claim_private_key: '33'.repeat(32),
  refund_public_key: '02' + '44'.repeat(32),
  swap_tree: '{"claimLeaf":{}}',
  lockup_address: 'bcrt1qlockup',
  timeout_block_height: 500,
  invoice: 'lnbcrt1',
  invoice_amount_sats: 10_100,
  transaction_amount_sats: 10_000,
  onchain_amount_sats: 10_050,
  swap_fee_sats: 40,
  chain_fee_sats: 60,
  service_fee_sats: 5,
  created_at: 1000,
  ...over,
})

const invoiceSwap = (id: string, over: Partial<NewInvoiceSwap> = {}): NewInvoiceSwap => ({
  id,
  provider_url: 'http://127.0.0.1:9001',
  provider_swap_id: `p-${id}`,
  invoice: 'lnbcrt2',
  payment_hash: '55'.repeat(32),
  invoice_amount_sats: 20_000,
  refund_private_key: '66'.repeat(32),
  claim_public_key: '03' + '77'.repeat(32),
  swap_tree: '{"refundLeaf":{}}',
  lockup_address: 'bcrt1qsubmarine',
  expected_amount_sats: 20_200,
  swap_fee_sats: 200,
  chain_fee_sats: 150,
  sat_per_vbyte: 2,
  timeout_block_height: 600,
  created_at: 1000,
  ...over,
})

for (const engine of both.engines) {
  const test = suite(`swap store on ${engine.engine}`)
  let sql: SqlStore
  let store: SwapStore
  let close: () => Promise<void>
  test.before(async () => {
    ;({ store: sql, close } = await engine.open())
    // The wallet's user a transaction swap refers to (written directly: the test stands in for the wallet).
    await sql.run("INSERT INTO accounts (id, created_at) VALUES ('acct', 0)")
    await sql.run("INSERT INTO users (id, account_id, admin_key, invoice_key, created_at) VALUES (?, 'acct', 'ak', 'ik', 0)", [user])
    store = swapStore(sql)
  })
  test.after(async () => {
    await close?.()
    if (engine === both.engines.at(-1)) await both.close()
  })

  test('a transaction swap quote is stored whole and listed per owner, oldest first', async () => {
    const stored = await store.insertTxSwap(txSwap('t1'))
    assert.equal(stored, {
      ...txSwap('t1'),
      status: 'quoted', address: null, payment_serial: null, lockup_tx_id: null, claim_tx_id: null, claim_tx_hex: null,
      failure_reason: null, paid_at: null, completed_at: null, lockup_tx_hex: null, paid_height: null, lockup_confirmed_height: null,
    })
    assert.equal(await store.txSwap('t1'), stored)
    assert.is(await store.txSwap('none'), undefined)
    await store.insertTxSwap(txSwap('t0', { created_at: 999 }))
    await store.insertTxSwap(txSwap('op1', { user_id: null }))
    assert.equal((await store.txSwapsOf(user)).map(s => s.id), ['t0', 't1'])
    assert.equal((await store.txSwapsOf(null)).map(s => s.id), ['op1'])
    assert.equal(await store.txSwapsOf('b'.repeat(64)), [])
  })

  test('quoted → paying once; released only while nothing was paid or locked', async () => {
    await store.insertTxSwap(txSwap('t2'))
    const paying = await store.startPaying('t2', 'bcrt1qdest', 2000, 300)
    assert.equal(
      { status: paying!.status, address: paying!.address, paid_at: paying!.paid_at, paid_height: paying!.paid_height },
      { status: 'paying', address: 'bcrt1qdest', paid_at: 2000, paid_height: 300 },
    )
    assert.is(await store.startPaying('t2', 'bcrt1qother', 2001, 301), undefined)
    assert.equal((await store.txSwapsInProgress()).map(s => s.id), ['t2'])
    await store.releaseTxSwap('t2')
    const released = (await store.txSwap('t2'))!
    assert.equal([released.status, released.address, released.paid_at, released.paid_height], ['quoted', null, null, null])
    await store.startPaying('t2', 'bcrt1qdest', 2000, 300)
    await store.setPaymentSerial('t2', 42)
    await store.releaseTxSwap('t2')
    const kept = (await store.txSwap('t2'))!
    assert.equal([kept.status, kept.payment_serial], ['paying', 42], 'a swap with a payment is not released')
  })

  test('of 20 concurrent payments of one quote exactly one moves it to paying, with its address', async () => {
    await store.insertTxSwap(txSwap('t3'))
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => store.startPaying('t3', `bcrt1q${i}`, 2000, 300)))
    const winners = results.filter(row => row !== undefined)
    assert.is(winners.length, 1)
    assert.is((await store.txSwap('t3'))!.address, winners[0]!.address)
  })

  test('lockup, its confirmation, the claim once, then claimed; a stored claim cannot be failed', async () => {
    await store.insertTxSwap(txSwap('t4'))
    await store.startPaying('t4', 'bcrt1qdest', 2000, 300)
    assert.is(await store.setTxLockup('t4', 'lock1', 'hex1'), true)
    assert.is(await store.setTxLockup('t4', 'lock1', 'hex1'), false, 'the same lockup again')
    assert.is(await store.setLockupConfirmed('t4', 'other', 310), false, 'not the recorded lockup')
    assert.is(await store.setLockupConfirmed('t4', 'lock1', 310), true)
    assert.is(await store.setLockupConfirmed('t4', 'lock1', 311), false, 'recorded already')
    assert.is(await store.setTxLockup('t4', 'lock2', 'hex2'), true, 'a replaced lockup wins until a claim is built')
    let row = (await store.txSwap('t4'))!
    assert.equal([row.lockup_tx_id, row.lockup_tx_hex, row.lockup_confirmed_height], ['lock2', 'hex2', null])
    await store.setLockupConfirmed('t4', 'lock2', 312)
    const claims = await Promise.all(Array.from({ length: 10 }, (_, i) => store.setClaimTx('t4', `claim${i}`, `claimhex${i}`)))
    assert.is(wins(claims), 1)
    row = (await store.txSwap('t4'))!
    assert.equal([row.claim_tx_id, row.claim_tx_hex], [`claim${claims.indexOf(true)}`, `claimhex${claims.indexOf(true)}`])
    assert.is(await store.setTxLockup('t4', 'lock3', 'hex3'), false, 'no new lockup once a claim exists')
    assert.is(await store.failTxSwap('t4', 'too late', 3000), false, 'a stored claim must go through')
    assert.is(await store.finishTxSwap('t4', 4000), true)
    assert.is(await store.finishTxSwap('t4', 4001), false)
    row = (await store.txSwap('t4'))!
    assert.equal([row.status, row.completed_at, row.lockup_confirmed_height], ['claimed', 4000, 312])
    assert.equal((await store.txSwapsInProgress()).map(s => s.id).includes('t4'), false)
  })

  test('a swap fails once, from quoted or paying; expired quotes are removed, paid swaps kept', async () => {
    await store.insertTxSwap(txSwap('t5'))
    assert.is(await store.failTxSwap('t5', 'provider said no', 3000), true)
    assert.is(await store.failTxSwap('t5', 'again', 3001), false)
    const failed = (await store.txSwap('t5'))!
    assert.equal([failed.status, failed.failure_reason, failed.completed_at], ['failed', 'provider said no', 3000])
    assert.is(await store.finishTxSwap('t5', 3002), false)
    await store.insertTxSwap(txSwap('e1', { timeout_block_height: 100 }))
    await store.insertTxSwap(txSwap('e2', { timeout_block_height: 101 }))
    await store.insertTxSwap(txSwap('e3', { timeout_block_height: 100 }))
    await store.startPaying('e3', 'bcrt1qdest', 2000, 90)
    assert.is(await store.deleteExpiredTxQuotes(100), 1)
    assert.is(await store.txSwap('e1'), undefined)
    assert.ok(await store.txSwap('e2'))
    assert.ok(await store.txSwap('e3'), 'a paid swap past its timeout is not a quote to remove')
  })

  test('an invoice swap quote is stored whole; paying is taken once and released only without a lockup', async () => {
    const stored = await store.insertInvoiceSwap(invoiceSwap('i1'))
    assert.equal(stored, {
      ...invoiceSwap('i1'),
      status: 'quoted', lockup_tx_id: null, paid_at: null, completed_at: null, failure_reason: null,
      refund_address: null, refund_tx_id: null, refund_tx_hex: null, refund_at: null,
    })
    assert.equal(await store.invoiceSwap('i1'), stored)
    assert.is(await store.invoiceSwap('none'), undefined)
    await store.insertInvoiceSwap(invoiceSwap('i0', { created_at: 999 }))
    assert.equal((await store.invoiceSwaps()).map(s => s.id), ['i0', 'i1'])
    const takes = await Promise.all(Array.from({ length: 20 }, () => store.takeInvoiceSwapForPaying('i1', 2000)))
    assert.is(wins(takes), 1)
    await store.releaseInvoiceSwap('i1')
    assert.equal([(await store.invoiceSwap('i1'))!.status, (await store.invoiceSwap('i1'))!.paid_at], ['quoted', null])
    assert.is(await store.takeInvoiceSwapForPaying('i1', 2001), true)
    await store.setInvoiceLockup('i1', 'lockup-i1', 5)
    await store.releaseInvoiceSwap('i1')
    const paid = (await store.invoiceSwap('i1'))!
    assert.equal([paid.status, paid.lockup_tx_id, paid.sat_per_vbyte, paid.paid_at], ['paid', 'lockup-i1', 5, 2001])
  })

  test('an invoice swap completes or fails only while paid; a refund is stored once', async () => {
    await store.insertInvoiceSwap(invoiceSwap('i2'))
    assert.is(await store.finishInvoiceSwap('i2', 3000), false, 'a quote cannot complete')
    assert.is(await store.failInvoiceSwap('i2', 'x'), false, 'a quote cannot fail')
    await store.takeInvoiceSwapForPaying('i2', 2000)
    await store.insertInvoiceSwap(invoiceSwap('i3'))
    await store.takeInvoiceSwapForPaying('i3', 2000)
    assert.is(await store.finishInvoiceSwap('i3', 3000), true)
    assert.is(await store.failInvoiceSwap('i3', 'late'), false)
    assert.is(await store.failInvoiceSwap('i2', 'swap.expired'), true)
    assert.equal(
      (await store.invoiceSwapsInProgress()).map(s => [s.id, s.status]).filter(([id]) => id === 'i2' || id === 'i3'),
      [['i2', 'failed']],
    )
    await store.setRefundAddress('i2', 'bcrt1qrefund1')
    await store.setRefundAddress('i2', 'bcrt1qrefund2')
    assert.is((await store.invoiceSwap('i2'))!.refund_address, 'bcrt1qrefund1', 'the first address asked for stays')
    const refunds = await Promise.all(Array.from({ length: 10 }, (_, i) => store.setRefundTx('i2', `refund${i}`, `refundhex${i}`, 4000 + i)))
    assert.is(wins(refunds), 1)
    const refunded = (await store.invoiceSwap('i2'))!
    const winner = refunds.indexOf(true)
    assert.equal(
      [refunded.status, refunded.refund_tx_id, refunded.refund_tx_hex, refunded.refund_at],
      ['refunded', `refund${winner}`, `refundhex${winner}`, 4000 + winner],
    )
    assert.equal((await store.invoiceSwapsInProgress()).map(s => s.id).includes('i2'), false)
  })

  test('expired invoice swap quotes are removed, paid ones kept', async () => {
    await store.insertInvoiceSwap(invoiceSwap('x1', { timeout_block_height: 50 }))
    await store.insertInvoiceSwap(invoiceSwap('x2', { timeout_block_height: 50 }))
    await store.takeInvoiceSwapForPaying('x2', 2000)
    assert.is(await store.deleteExpiredInvoiceQuotes(50), 1)
    assert.is(await store.invoiceSwap('x1'), undefined)
    assert.ok(await store.invoiceSwap('x2'))
  })

  test.run()
}
