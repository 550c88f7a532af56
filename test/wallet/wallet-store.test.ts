// The wallet's money movements on SqlStore, the same cases on SQLite and on a real PostgreSQL 15: the
// group commit (one shared transaction with savepoints on SQLite, a transaction each on PostgreSQL), the journal's
// guarded balance moves, payments, settlements, transfers and the standby's fence (checkEpoch).
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { checkEpoch, type SqlExecutor, type SqlStore } from '../../src/store/index.js'
import { OperationError } from '../../src/bus/index.js'
import type { LightningNode } from '../../src/node/index.js'
import { groupCommit, type Fence } from '../../src/wallet/group-commit.js'
import { createLedger } from '../../src/wallet/ledger.js'
import { invoiceMoves, type NewInvoiceRow } from '../../src/wallet/invoices/store.js'
import { paymentMovements, type PaymentTerms } from '../../src/wallet/payments/store.js'
import { settlement } from '../../src/wallet/settlement.js'
import { transferDesk } from '../../src/wallet/handlers/transfers.js'
import { outgoingGate } from '../../src/wallet/payments/outgoing-gate.js'
import { auditLedger } from '../../src/wallet/audit.js'
import { logPostgresSkipped, openEngines } from '../support/sql-engines.js'

const both = await openEngines()
logPostgresSkipped(both.postgresSkipped)

const silent = { error() {}, info() {}, warn() {}, debug() {} } as never

async function walletWith(store: SqlStore, id: string, balanceMsat: number): Promise<void> {
  await store.run('INSERT INTO accounts (id, created_at) VALUES (?, ?)', [`acct-${id}`, 1])
  await store.run(
    `INSERT INTO users (id, account_id, balance_msat, admin_key, invoice_key, created_at)
     VALUES (@id, @account, 0, @admin, @invoice, 1)`,
    { id, account: `acct-${id}`, admin: `a-${id}`, invoice: `i-${id}` },
  )
  // Funded through the journal, as a settlement would, so the audit balances.
  if (balanceMsat > 0) {
    await store.transaction(tx =>
      createLedger().post(tx, {
        kind: 'mock_balance',
        ref: `fund-${id}`,
        legs: [
          { account: `user:${id}`, amountMsat: balanceMsat },
          { account: 'system:mock', amountMsat: -balanceMsat },
        ],
        at: 1,
      }),
    )
  }
}
const balanceOf = async (store: SqlStore, id: string) =>
  (await store.one<{ balance_msat: number }>('SELECT balance_msat FROM users WHERE id = ?', [id]))!.balance_msat
const countOf = async (store: SqlExecutor, sql: string, params: unknown[] = []) =>
  Number((await store.one<{ n: number }>(sql, params))!.n)

const hash = (n: number) => n.toString(16).padStart(64, '0')
const terms = (payerId: string, n: number, amountMsat: number): PaymentTerms => ({
  payerId,
  paymentHash: hash(n),
  paymentRequest: `lnbcrt${n}test`,
  amountMsat,
  serviceFeeMsat: 0,
  feeCollectorId: null,
  at: 1000 + n,
})
const invoiceRow = (userId: string, n: number, amountMsat: number): NewInvoiceRow => ({
  paymentHash: hash(n), paymentRequest: `lnbcrt${n}inv`, userId, appId: null, amountMsat, memo: '', descriptionHash: null,
  createdAt: 1, expiresAt: 10_000_000_000_000, payerUserId: null, productId: null, offerId: null, callbackUrl: '',
  callbackToken: null, callbackRejectUnauthorized: true, payerData: null, zapRequest: null, blind: false, extra: null,
})

for (const engine of both.engines) {
  const test = suite(`wallet money movements on ${engine.engine}`)
  let store: SqlStore
  let close: () => Promise<void>
  test.before(async () => {
    ;({ store, close } = await engine.open())
  })
  test.after(async () => {
    await close?.()
    if (engine === both.engines.at(-1)) await both.close() // suites run after this loop: the last one closes
  })

  test('40 concurrent payments of 100 msat from a wallet of 1,000: exactly 10 are debited, none twice', async () => {
    await walletWith(store, 'payer', 1000)
    const ledger = createLedger()
    const moves = paymentMovements(ledger, invoiceMoves)
    const commits = groupCommit(store)
    const outcomes = await Promise.allSettled(
      Array.from({ length: 40 }, (_, i) => commits.run(tx => moves.startExternal(tx, terms('payer', i + 1, 100), 0))),
    )
    const paid = outcomes.filter(o => o.status === 'fulfilled')
    const refused = outcomes.filter(o => o.status === 'rejected') as PromiseRejectedResult[]
    assert.is(paid.length, 10)
    assert.ok(refused.every(o => (o.reason as OperationError).code === 'insufficient_balance'), String(refused[0]?.reason))
    assert.is(await balanceOf(store, 'payer'), 0)
    // Refused payments left no row and no journal entry behind (each rolled back alone).
    assert.is(await countOf(store, "SELECT count(*) AS n FROM payments WHERE user_id = 'payer'"), 10)
    assert.is(await countOf(store, "SELECT count(*) AS n FROM ledger_transactions WHERE kind = 'payment_debit'"), 10)
    // Settling each twice at once settles it once.
    const serials = paid.map(o => (o as PromiseFulfilledResult<{ payment: { serial: number } }>).value.payment.serial)
    const settled = await Promise.all(
      serials.flatMap(serial => [1, 2].map(() => commits.run(tx => moves.settle(tx, serial, { routingFeeMsat: 0, preimage: 'ab', at: 5 })))),
    )
    assert.is(settled.filter(Boolean).length, 10)
    assert.ok((await auditLedger(store)).ok)
  })

  test('two settlements of one invoice at once credit it once', async () => {
    await walletWith(store, 'receiver', 0)
    const ledger = createLedger()
    const commits = groupCommit(store)
    await commits.run(tx => invoiceMoves.insert(tx, invoiceRow('receiver', 900, 21_000)))
    const emitted: unknown[] = []
    const follower = settlement({ sql: store, node: {} as LightningNode, ledger, invoices: invoiceMoves, emit: e => emitted.push(e), log: silent })
    const settled = { paymentHash: hash(900), paymentRequest: 'lnbcrt900inv', amountMsat: 21_000, settledAt: 7, settleIndex: 3 }
    const applied = await Promise.all([follower.apply([settled]), follower.apply([{ ...settled, settleIndex: 4 }])])
    assert.equal(applied, [true, true])
    assert.is(await balanceOf(store, 'receiver'), 21_000)
    assert.is(emitted.filter(e => (e as { type: string }).type === 'invoice.paid').length, 1)
    assert.is(await follower.cursor(), 4)
    // An older index reported late does not move the cursor back.
    await follower.apply([{ ...settled, settleIndex: 2 }])
    assert.is(await follower.cursor(), 4)
    // Twice in one batch (one transaction): credited once still.
    assert.ok(await follower.apply([{ ...settled, settleIndex: 5 }, { ...settled, settleIndex: 6 }]))
    assert.is(await balanceOf(store, 'receiver'), 21_000)
    assert.is(await follower.cursor(), 6)
    assert.ok((await auditLedger(store)).ok)
  })

  test('a batch of settlements whose second credit fails leaves nothing of the first: no credit, the index unmoved', async () => {
    await walletWith(store, 'batch-receiver', 0)
    const ledger = createLedger()
    const commits = groupCommit(store)
    await commits.run(tx => invoiceMoves.insert(tx, invoiceRow('batch-receiver', 910, 5_000)))
    await commits.run(tx => invoiceMoves.insert(tx, invoiceRow('batch-receiver', 911, 7_000)))
    const broken = { ...invoiceMoves, byHashOn: (tx: SqlExecutor, paymentHash: string) => (paymentHash === hash(911) ? Promise.reject(new Error('disk full')) : invoiceMoves.byHashOn(tx, paymentHash)) }
    const follower = settlement({ sql: store, node: {} as LightningNode, ledger, invoices: broken, emit: () => {}, log: silent })
    const before = await follower.cursor()
    const settled = (n: number, amountMsat: number, settleIndex: number) => ({ paymentHash: hash(n), paymentRequest: `lnbcrt${n}inv`, amountMsat, settledAt: 9, settleIndex })
    assert.is(await follower.apply([settled(910, 5_000, 40), settled(911, 7_000, 41)]), false)
    assert.is(await balanceOf(store, 'batch-receiver'), 0)
    assert.is(await follower.cursor(), before)
    // Applied again (the stream restarts from the index), both credit once.
    const healthy = settlement({ sql: store, node: {} as LightningNode, ledger, invoices: invoiceMoves, emit: () => {}, log: silent })
    assert.ok(await healthy.apply([settled(910, 5_000, 40), settled(911, 7_000, 41)]))
    assert.is(await balanceOf(store, 'batch-receiver'), 12_000)
    assert.is(await healthy.cursor(), 41)
    assert.ok((await auditLedger(store)).ok)
  })

  test('transfers at once: the one over the balance rolls back alone; opposite directions do not deadlock', async () => {
    await walletWith(store, 'alice', 500)
    await walletWith(store, 'bob', 500)
    const ledger = createLedger()
    const commits = groupCommit(store)
    const desk = transferDesk({
      ledger,
      collectors: { isAppOwner: async () => false, collectorFor: async () => 'bob' },
      fees: { serviceFeeBps: 0, serviceFeeFloorSats: 0, routingFeeLimitBps: 0, routingFeeFloorSats: 0, internalUserFeeBps: 0, internalRootFeeBps: 0 },
      gate: outgoingGate(),
      commits,
      emit: () => {},
      now: () => 10,
    })
    const outcomes = await Promise.allSettled([
      desk.transfer({ kind: 'user', fromUserId: 'alice', toUserId: 'bob', amountMsat: 200 }),
      desk.transfer({ kind: 'user', fromUserId: 'alice', toUserId: 'bob', amountMsat: 900 }), // more than alice has
      desk.transfer({ kind: 'user', fromUserId: 'bob', toUserId: 'alice', amountMsat: 100 }),
      ...Array.from({ length: 10 }, (_, i) =>
        desk.transfer({ kind: 'user', fromUserId: i % 2 ? 'alice' : 'bob', toUserId: i % 2 ? 'bob' : 'alice', amountMsat: 1 }),
      ),
    ])
    assert.equal(outcomes.map(o => o.status).filter(s => s === 'rejected').length, 1)
    assert.is((outcomes[1] as PromiseRejectedResult).reason.code, 'insufficient_balance')
    assert.is(await balanceOf(store, 'alice'), 400)
    assert.is(await balanceOf(store, 'bob'), 600)
    assert.is(await countOf(store, 'SELECT count(*) AS n FROM transfers'), 12)
    assert.ok((await auditLedger(store)).ok)
  })

  test('a stale epoch refused by the fence rolls the payment back; the current epoch lets it through', async () => {
    await walletWith(store, 'fenced', 1000)
    await store.run("INSERT INTO leader_lease (id, epoch, holder, taken_at) VALUES (1, 1, 'test', 1)")
    // PostgreSQL: the standby's own check (FOR SHARE); SQLite runs no fence in the daemon (one process per file),
    // so the same read without the row lock stands in to show the batch rolls back.
    const fence: Fence =
      engine.engine === 'postgres'
        ? (tx: SqlExecutor) => checkEpoch(tx, 1)
        : async (tx: SqlExecutor) => {
            const row = await tx.one<{ epoch: number }>('SELECT epoch FROM leader_lease WHERE id = 1')
            if (row?.epoch !== 1) throw new Error(`this daemon is no longer the active one (epoch 1, now ${row?.epoch})`)
          }
    const moves = paymentMovements(createLedger(), invoiceMoves)
    const commits = groupCommit(store, { fence })
    await commits.run(tx => moves.startExternal(tx, terms('fenced', 500, 100), 0))
    assert.is(await balanceOf(store, 'fenced'), 900)
    // Another daemon took over.
    await store.run('UPDATE leader_lease SET epoch = 2 WHERE id = 1')
    const refused = await Promise.allSettled([
      commits.run(tx => moves.startExternal(tx, terms('fenced', 501, 100), 0)),
      commits.run(tx => moves.startExternal(tx, terms('fenced', 502, 100), 0)),
    ])
    assert.ok(refused.every(o => o.status === 'rejected' && /no longer the active one/.test(String(o.reason))))
    assert.is(await balanceOf(store, 'fenced'), 900)
    assert.is(await countOf(store, "SELECT count(*) AS n FROM payments WHERE user_id = 'fenced'"), 1)
  })

  test('a spend limit runs on the payment tx: what it writes rolls back with a refused payment', async () => {
    await walletWith(store, 'limited', 150)
    await store.exec('CREATE TABLE limit_marks (payment_hash TEXT NOT NULL)')
    const moves = paymentMovements(createLedger(), invoiceMoves)
    const commits = groupCommit(store)
    const limit = async (tx: SqlExecutor, paying: PaymentTerms) => {
      await tx.run('INSERT INTO limit_marks (payment_hash) VALUES (?)', [paying.paymentHash])
      // What it wrote is visible to it on the same transaction.
      if ((await countOf(tx, 'SELECT count(*) AS n FROM limit_marks WHERE payment_hash = ?', [paying.paymentHash])) !== 1) {
        throw new OperationError('conflict', 'the mark is not visible on the payment tx')
      }
    }
    const outcomes = await Promise.allSettled(
      [600, 601, 602].map(n => commits.run(tx => moves.startExternal(tx, terms('limited', n, 100), 0, limit))),
    )
    // One is paid; the second is refused for balance after its mark; the third's mark is its own only.
    assert.is(outcomes.filter(o => o.status === 'fulfilled').length, 1)
    assert.is(await countOf(store, 'SELECT count(*) AS n FROM limit_marks'), 1)
  })

  test.run()
}
