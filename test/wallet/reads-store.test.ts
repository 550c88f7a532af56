// The wallet's reads of invoices, payments and history on SqlStore, the same cases on SQLite and on a
// real PostgreSQL 15: lookups by request and hash, offer and tag lists (`extra.tag`: json_extract on SQLite, `->>`
// on PostgreSQL), the expired-invoice purge, the payment lookups the payer and the resolution read, the NIP-47
// history, GetUserOperations, products and on-chain addresses (two first NewAddress calls answer one address).
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import type { SqlExecutor, SqlStore } from '../../src/store/index.js'
import type { HandlerTable } from '../../src/bus/index.js'
import type { LightningNode } from '../../src/node/index.js'
import { invoiceMoves, invoiceStore, type NewInvoiceRow } from '../../src/wallet/invoices/store.js'
import { paymentStore } from '../../src/wallet/payments/store.js'
import { createLedger } from '../../src/wallet/ledger.js'
import { transactionHistory } from '../../src/wallet/transaction-history.js'
import { operationsHistoryHandlers } from '../../src/wallet/handlers/operations-history.js'
import { productHandlers, productInvoice } from '../../src/wallet/handlers/products.js'
import { addressHandlers } from '../../src/wallet/handlers/addresses.js'
import type { IssueInvoice } from '../../src/wallet/invoices/issue.js'
import { logPostgresSkipped, openEngines } from '../support/sql-engines.js'
import { outsideInvoice } from '../support/outside-invoice.js'

const both = await openEngines()
logPostgresSkipped(both.postgresSkipped)

async function walletOf(store: SqlStore, id: string): Promise<void> {
  await store.run('INSERT INTO accounts (id, created_at) VALUES (?, ?)', [`acct-${id}`, 1])
  await store.run(
    `INSERT INTO users (id, account_id, balance_msat, admin_key, invoice_key, created_at)
     VALUES (@id, @account, 0, @admin, @invoice, 1)`,
    { id, account: `acct-${id}`, admin: `a-${id}`, invoice: `i-${id}` },
  )
}

const hash = (n: number) => n.toString(16).padStart(64, '0')
const invoiceRow = (userId: string, n: number, over: Partial<NewInvoiceRow> = {}): NewInvoiceRow => ({
  paymentHash: hash(n), paymentRequest: `lnbcrt${n}inv`, userId, appId: null, amountMsat: 1000 * n, memo: `memo ${n}`,
  descriptionHash: null, createdAt: 100 * n, expiresAt: 1_000_000, payerUserId: null, productId: null, offerId: null,
  callbackUrl: '', callbackToken: null, callbackRejectUnauthorized: true, payerData: null, zapRequest: null, blind: false,
  extra: null, ...over,
})
const addInvoice = (store: SqlStore, row: NewInvoiceRow) => store.transaction(tx => invoiceMoves.insert(tx, row))
const markPaid = (store: SqlStore, n: number, paidAt: number) =>
  store.transaction(async tx => {
    const invoice = (await invoiceMoves.byHashOn(tx, hash(n)))!
    return invoiceMoves.markPaid(tx, { invoiceSerial: invoice.serial, paidMsat: 1000 * n, paidAt, internal: false, settleIndex: null })
  })
async function addPayment(store: SqlStore, userId: string, n: number, status: string, createdAt: number, request = `lnbcrt${n}inv`) {
  return (await store.one<{ serial: number }>(
    `INSERT INTO payments (payment_hash, payment_request, user_id, amount_msat, service_fee_msat, max_routing_fee_msat,
       routing_fee_msat, internal, status, preimage, created_at, resolved_at)
     VALUES (?, ?, ?, ?, 10, 0, ?, 0, ?, NULL, ?, ?) RETURNING serial`,
    [hash(n), request, userId, 1000 * n, status === 'succeeded' ? 5 : null, status, createdAt, status === 'pending' ? null : createdAt + 1],
  ))!.serial
}
const ctxOf = (userId: string, appId = 'app-1') => ({ caller: { userId, appId, appUserId: userId } }) as never
const call = (handlers: HandlerTable, name: string, input: unknown, ctx: unknown) =>
  (handlers as Record<string, (input: unknown, ctx: unknown) => Promise<any>>)[name]!(input, ctx)

for (const engine of both.engines) {
  const test = suite(`wallet reads on ${engine.engine}`)
  let store: SqlStore
  let close: () => Promise<void>
  test.before(async () => {
    ;({ store, close } = await engine.open())
    await walletOf(store, 'alice')
    await walletOf(store, 'bob')
  })
  test.after(async () => {
    await close?.()
    if (engine === both.engines.at(-1)) await both.close() // suites run after this loop: the last one closes
  })

  test('invoices by request (any case, trimmed) and by hash; offers with and without the unpaid ones', async () => {
    const invoices = invoiceStore(store)
    await addInvoice(store, invoiceRow('alice', 1, { offerId: 'offer-1', payerData: '{"data":{"note":"hi"}}' }))
    await addInvoice(store, invoiceRow('alice', 2, { offerId: 'offer-1' }))
    await addInvoice(store, invoiceRow('bob', 3, { offerId: 'offer-1' }))
    await markPaid(store, 2, 5000)
    // By request: through the hash its text names, then the text compared (082_invoices_without_request_index.sql).
    const ours = outsideInvoice({ network: 'regtest', nowMs: 1_000_000, amountMsat: 5000, paymentHash: hash(5) })
    await addInvoice(store, invoiceRow('alice', 5, { paymentRequest: ours.paymentRequest }))
    assert.is((await invoices.byRequest(`  ${ours.paymentRequest.toUpperCase()} `))?.payment_hash, hash(5))
    const copy = outsideInvoice({ network: 'regtest', nowMs: 1_000_000, amountMsat: 5000, paymentHash: hash(5) })
    assert.is(await invoices.byRequest(copy.paymentRequest), undefined, 'the same hash in another text is not ours')
    const stranger = outsideInvoice({ network: 'regtest', nowMs: 1_000_000, amountMsat: 5000 })
    assert.is(await invoices.byRequest(stranger.paymentRequest), undefined)
    assert.is(await invoices.byRequest('lnbcrt1inv'), undefined, 'stored, but not a request: it names no hash')
    assert.is(await invoices.byRequest(''), undefined)
    const byHash = await invoices.byHash(hash(2).toUpperCase())
    assert.is(byHash?.paid_at, 5000)
    assert.is(byHash?.amount_msat, 2000)
    assert.is(await invoices.byHash(hash(99)), undefined)
    assert.equal((await invoices.forOffer('alice', 'offer-1', true)).map(r => r.payment_hash), [hash(1), hash(2)])
    assert.equal((await invoices.forOffer('alice', 'offer-1', false)).map(r => r.payment_hash), [hash(2)])
    assert.equal(await invoices.forOffer('alice', 'offer-2', true), [])
  })

  test('paid invoices by extra.tag, oldest first; the expired-invoice purge keeps paid, live and other tags', async () => {
    const invoices = invoiceStore(store)
    const tagged = (tag: string) => JSON.stringify({ tag, order: 'o' })
    await addInvoice(store, invoiceRow('alice', 10, { extra: tagged('shop'), expiresAt: 1000 }))
    await addInvoice(store, invoiceRow('alice', 11, { extra: tagged('shop'), expiresAt: 1000 }))
    await addInvoice(store, invoiceRow('alice', 12, { extra: tagged('shop'), expiresAt: 9000 }))
    await addInvoice(store, invoiceRow('alice', 13, { extra: tagged('other'), expiresAt: 1000 }))
    await addInvoice(store, invoiceRow('alice', 14, { extra: tagged('shop'), expiresAt: 1000 }))
    await markPaid(store, 14, 800)
    await markPaid(store, 11, 900)
    assert.equal((await invoices.paidTagged('shop')).map(r => r.payment_hash), [hash(14), hash(11)])
    assert.equal(await invoices.paidTagged('sho'), [])
    assert.is(await invoices.forgetExpired(hash(10), 'shop', 2000), true, 'expired, unpaid, tagged: gone')
    assert.is(await invoices.byHash(hash(10)), undefined)
    assert.is(await invoices.forgetExpired(hash(10), 'shop', 2000), true, 'gone already')
    assert.is(await invoices.forgetExpired(hash(11), 'shop', 2000), false, 'paid: kept')
    assert.is(await invoices.forgetExpired(hash(12), 'shop', 2000), false, 'not expired: kept')
    assert.is(await invoices.forgetExpired(hash(13), 'shop', 2000), false, "another extension's: kept")
    assert.is(await invoices.forgetExpired(hash(1), 'shop', 2000), false, 'untagged: kept')
    assert.ok(await invoices.byHash(hash(13)))
  })

  test('payments: the live attempt before failed ones, by serial, the payer’s latest, the pending ones', async () => {
    const payments = paymentStore(store, createLedger(), invoiceMoves)
    const failed = await addPayment(store, 'alice', 20, 'failed', 10)
    const live = await addPayment(store, 'alice', 20, 'pending', 20)
    const again = await addPayment(store, 'bob', 21, 'failed', 30)
    await addPayment(store, 'bob', 22, 'succeeded', 40)
    assert.is((await payments.byHash(hash(20).toUpperCase()))?.serial, live)
    assert.is((await payments.byHash(hash(21)))?.serial, again)
    assert.is(await payments.byHash(hash(98)), undefined)
    assert.is((await payments.bySerial(failed))?.status, 'failed')
    assert.is(await payments.bySerial(999_999), undefined)
    assert.is((await payments.latestOfPayer(hash(20), ' LNBCRT20INV', 'alice'))?.serial, live)
    assert.is(await payments.latestOfPayer(hash(20), 'lnbcrt20inv', 'bob'), undefined)
    assert.equal((await payments.pending()).map(p => p.serial), [live])
  })

  test('payments by hash: the live attempt is the latest; without one, the latest failed; the payer’s own latest', async () => {
    const payments = paymentStore(store, createLedger(), invoiceMoves)
    // Hash 60: two failed attempts by alice at one invoice, a failed copy by bob, then bob's live attempt.
    await addPayment(store, 'alice', 60, 'failed', 10, 'lnbcrt60a')
    const alicesLast = await addPayment(store, 'alice', 60, 'failed', 11, 'lnbcrt60a')
    const bobsCopy = await addPayment(store, 'bob', 60, 'failed', 12, 'lnbcrt60b')
    assert.is((await payments.byHash(hash(60)))?.serial, bobsCopy, 'no live attempt: the latest failed one')
    const bobsLive = await addPayment(store, 'bob', 60, 'succeeded', 13, 'lnbcrt60a')
    assert.is((await payments.byHash(hash(60)))?.serial, bobsLive)
    assert.is((await payments.latestOfPayer(hash(60), 'lnbcrt60a', 'bob'))?.serial, bobsLive)
    assert.is((await payments.latestOfPayer(hash(60), 'lnbcrt60a', 'alice'))?.serial, alicesLast, 'the live one is another payer’s')
    assert.is((await payments.latestOfPayer(hash(60), 'lnbcrt60b', 'bob'))?.serial, bobsCopy, 'the live one is another invoice’s')
    assert.is(await payments.latestOfPayer(hash(60), 'lnbcrt60b', 'alice'), undefined)
    // A pending attempt that fails joins the failed ones, and is then the latest of them.
    const retry = await addPayment(store, 'alice', 61, 'pending', 20, 'lnbcrt61')
    await store.run("UPDATE payments SET status = 'failed', resolved_at = 21 WHERE serial = ?", [retry])
    assert.is((await payments.byHash(hash(61)))?.serial, retry)
    assert.is((await payments.latestOfPayer(hash(61), 'lnbcrt61', 'alice'))?.status, 'failed')
  })

  test('what a spend limit sums: pending ones, succeeded ones in the window, of this wallet and these hashes', async () => {
    const sums = transactionHistory(store).sums
    await addPayment(store, 'alice', 70, 'pending', 100) // 70,000 + 10
    await addPayment(store, 'alice', 71, 'succeeded', 200) // resolved at 201: 71,000 + 10
    await addPayment(store, 'alice', 72, 'succeeded', 50) // resolved at 51, before the window
    await addPayment(store, 'alice', 73, 'failed', 300)
    await addPayment(store, 'bob', 74, 'pending', 300)
    const hashes = [70, 71, 72, 73, 74].map(hash)
    assert.is(await sums.spentMsat(store, 'alice', hashes, 60), 70_010 + 71_010)
    assert.is(await sums.spentMsat(store, 'alice', hashes, 300), 70_010)
    assert.is(await sums.spentMsat(store, 'alice', [hash(73), hash(75)], 0), 0)
    assert.is(await sums.spentMsat(store, 'bob', hashes, 0), 74_010)
    assert.is(await sums.spentMsat(store, 'alice', [], 0), 0)
  })

  if (engine.engine === 'sqlite') {
    // The cost of a payment must not grow with the journal. Each lookup the paying path makes finds its
    // rows by key in an index that holds only what it looks for: none walks a wallet's history (payments_user).
    test('the payment lookups search by key in their own index (SQLite query plans)', async () => {
      const plans: string[] = []
      // The executor as given, but every statement's plan is read first, on the same connection.
      const explaining = <T extends SqlExecutor>(on: T): T =>
        new Proxy(on, {
          get(target, name) {
            const method = Reflect.get(target, name) as unknown
            if (name !== 'one' && name !== 'many' && name !== 'run') return typeof method === 'function' ? method.bind(target) : method
            return async (text: string, params?: never) => {
              for (const row of await target.many<{ detail: string }>(`EXPLAIN QUERY PLAN ${text}`, params)) plans.push(row.detail)
              return (method as (t: string, p?: never) => unknown).call(target, text, params)
            }
          },
        })
      const explained = explaining(store)
      const payments = paymentStore(explained, createLedger(), invoiceMoves)
      await payments.byHash(hash(60))
      await payments.byHash(hash(97))
      await payments.latestOfPayer(hash(60), 'lnbcrt60a', 'alice')
      await transactionHistory(store).sums.spentMsat(explained, 'alice', [hash(70), hash(71)], 0)
      await store.transaction(tx => invoiceMoves.markPaid(explaining(tx), {
        invoiceSerial: 999_999, paidMsat: 1, paidAt: 1, internal: true, settleIndex: null,
      }))
      assert.ok(plans.length >= 6, plans.join('\n'))
      for (const detail of plans) {
        assert.match(detail, /^SEARCH (payments|p) USING INDEX payments_(live|failed)_hash \(payment_hash=\?\)$|^SEARCH invoices USING INTEGER PRIMARY KEY|^SCAN h VIRTUAL TABLE/, detail)
      }
    })
  }

  test('NIP-47 history: direction, unpaid, window, paging; by hash the own payment answers', async () => {
    await walletOf(store, 'carol')
    await addInvoice(store, invoiceRow('carol', 30, { createdAt: 1000, expiresAt: 1500 }))
    await addInvoice(store, invoiceRow('carol', 31, { createdAt: 2000 }))
    await markPaid(store, 31, 2100)
    await addPayment(store, 'carol', 31, 'succeeded', 3000, 'lnbcrt31inv')
    await addPayment(store, 'carol', 32, 'failed', 4000)
    const history = transactionHistory(store)
    const all = { fromMs: 0, untilMs: Number.MAX_SAFE_INTEGER, limit: 10, offset: 0, unpaid: true }
    const listed = await history.list('carol', all, 1600)
    assert.equal(listed.map(t => [t.direction, t.state, t.createdAt]), [
      ['outgoing', 'failed', 4000], ['outgoing', 'settled', 3000], ['incoming', 'settled', 2000], ['incoming', 'expired', 1000],
    ])
    const settledOut = listed[1]!
    assert.is(settledOut.memo, 'memo 31', 'the paid invoice of ours gives its memo')
    assert.is(settledOut.feeMsat, 15)
    assert.is(settledOut.settledAt, 3001)
    assert.is(listed[2]!.amountMsat, 31_000)
    assert.equal((await history.list('carol', { ...all, unpaid: false }, 1600)).map(t => t.createdAt), [3000, 2000])
    assert.equal((await history.list('carol', { ...all, direction: 'incoming' }, 1600)).map(t => t.createdAt), [2000, 1000])
    assert.equal((await history.list('carol', { ...all, fromMs: 1500, untilMs: 3500 }, 1600)).map(t => t.createdAt), [3000, 2000])
    assert.equal((await history.list('carol', { ...all, limit: 2, offset: 1 }, 1600)).map(t => t.createdAt), [3000, 2000])
    assert.is((await history.byPaymentHash('carol', hash(31), 1600))?.direction, 'outgoing')
    assert.is((await history.byPaymentHash('carol', hash(30), 1200))?.state, 'pending')
    assert.is(await history.byPaymentHash('alice', hash(31), 1600), undefined)
  })

  test('GetUserOperations pages invoices by paid time and payments by serial', async () => {
    await walletOf(store, 'dave')
    await addInvoice(store, invoiceRow('dave', 40))
    await addInvoice(store, invoiceRow('dave', 41))
    await markPaid(store, 41, 7000)
    await markPaid(store, 40, 9000)
    const first = await addPayment(store, 'dave', 42, 'succeeded', 100)
    await addPayment(store, 'dave', 43, 'failed', 200)
    const second = await addPayment(store, 'dave', 44, 'pending', 300)
    const cursor = { ts: 0, id: 0 }
    const input = {
      max_size: 0, latestIncomingInvoice: cursor, latestOutgoingInvoice: cursor, latestIncomingTx: cursor,
      latestOutgoingTx: cursor, latestIncomingUserToUserPayment: cursor, latestOutgoingUserToUserPayment: cursor,
    }
    const ops = await call(operationsHistoryHandlers(store), 'GetUserOperations', input, ctxOf('dave'))
    assert.equal(ops.latestIncomingInvoiceOperations.operations.map((o: { amount: number }) => o.amount), [41, 40])
    assert.equal(ops.latestIncomingInvoiceOperations.toIndex, { ts: 9, id: ops.latestIncomingInvoiceOperations.toIndex.id })
    assert.is(ops.latestOutgoingInvoiceOperations.operations.length, 2)
    assert.equal(ops.latestOutgoingInvoiceOperations.toIndex.id, second)
    const after = await call(operationsHistoryHandlers(store), 'GetUserOperations',
      { ...input, max_size: 1, latestOutgoingInvoice: { ts: 0, id: first } }, ctxOf('dave'))
    assert.equal(after.latestOutgoingInvoiceOperations.fromIndex.id, second)
    assert.is(after.latestIncomingInvoiceOperations.operations.length, 1)
    assert.is(after.latestIncomingTxOperations.operations.length, 0)
  })

  test('products: AddProduct stores and answers the row; a product invoice reads it; an unknown one is undefined', async () => {
    const issued: unknown[] = []
    const issue = (async (request: unknown) => {
      issued.push(request)
      return { payment_request: 'lnbcrt-product' }
    }) as unknown as IssueInvoice
    const bytes = new Uint8Array(16).fill(7)
    const handlers = productHandlers({ sql: store, random: () => bytes, now: () => 1234, issue, relayUrl: () => 'ws://127.0.0.1:1' })
    const seller = hash(77) // a noffer carries the owner's id as its pubkey
    await walletOf(store, seller)
    const added = await call(handlers, 'AddProduct', { name: ' Tea ', price_sats: 21 }, ctxOf(seller))
    assert.is(added.name, 'Tea')
    assert.is(added.price_sats, 21)
    const invoice = await productInvoice(store, issue, added.id, { appId: 'app-9' })
    assert.is(invoice?.payment_request, 'lnbcrt-product')
    assert.equal(issued[0], { userId: seller, amountMsat: 21_000, memo: 'Tea', productId: added.id, appId: 'app-9' })
    assert.is(await productInvoice(store, issue, 'no-such-product'), undefined)
  })

  test('addresses: two first NewAddress calls answer one address; PayAddress finds it by its text', async () => {
    await store.run(
      `INSERT INTO apps (id, name, owner_user_id, nostr_private_key, nostr_public_key, created_at)
       VALUES ('app-1', 'app one', 'bob', 'k', 'p', 1)`,
    )
    // The node answers once both calls have asked it: both passed the lookup before either stored an address.
    let made = 0
    let bothAsked!: () => void
    const asked = new Promise<void>(resolve => (bothAsked = resolve))
    const node = {
      newAddress: async () => {
        const address = `bcrt1qaddress${++made}`
        if (made === 2) bothAsked()
        if (made <= 2) await asked
        return address
      },
    } as unknown as LightningNode
    const transfers = { transfer: async (t: { toUserId: string; address: string }) => ({ serial: 5, fee_msat: 0, ...t }) }
    const handlers = addressHandlers({
      sql: store, node, transfers: transfers as never, random: n => new Uint8Array(n), now: () => 1, swaps: () => undefined,
    })
    const [a, b] = await Promise.all([
      call(handlers, 'NewAddress', { addressType: 'WITNESS_PUBKEY_HASH' }, ctxOf('alice')),
      call(handlers, 'NewAddress', { addressType: 'WITNESS_PUBKEY_HASH' }, ctxOf('alice')),
    ])
    assert.is(made, 2, 'both calls passed the lookup')
    assert.is(a.address, b.address)
    assert.is((await call(handlers, 'NewAddress', { addressType: 'WITNESS_PUBKEY_HASH' }, ctxOf('alice'))).address, a.address)
    assert.is(made, 2, 'a third call reads the stored one')
    const paid = await call(handlers, 'PayAddress', { address: ` ${a.address} `, amountSats: 5 }, ctxOf('bob'))
    assert.is(paid.operation_id.length > 0, true)
    const refused = await call(handlers, 'PayAddress', { address: 'bcrt1qelsewhere', amountSats: 5 }, ctxOf('bob')).then(
      () => undefined,
      (err: Error) => err.message,
    )
    assert.match(refused ?? '', /does not belong to this service/)
  })

  test.run()
}
