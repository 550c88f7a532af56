// The wallet room in process, over a real store and the real embedded node, for what HTTP cannot show: a node
// that reports each settlement twice and replays everything at every start (as an LND subscription resumed
// from an old index does) still credits once; the door used by the host API and extensions keeps the same
// rules (extra data, fees of app owners, tagged re-delivery).
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { randomBytes } from 'node:crypto'
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { pino } from 'pino'
import { mergeMap } from 'rxjs'
import { openStore, type Store } from '../../src/store/index.js'
import { createNode, type LightningNode } from '../../src/node/index.js'
import { createTokenSigner } from '../../src/auth/index.js'
import { createEventBus, type DomainEvent } from '../../src/bus/events.js'
import { auditLedger, createWallet, type Wallet } from '../../src/wallet/index.js'
import { isOperationError } from '../../src/bus/errors.js'

const test = suite('settlement and the wallet door')
/** Credits commit in their own transactions after the node reports them: wait until `done` holds (at most 5 s). */
async function until(done: () => boolean | Promise<boolean>): Promise<void> {
  for (let waited = 0; !(await done()) && waited < 5000; waited += 20) await new Promise(r => setTimeout(r, 20))
}
/** Long enough for a replayed stream of a few settlements to be applied (each is one transaction). */
const replayed = () => new Promise(r => setTimeout(r, 300))
const log = pino({ level: 'silent' })
let store: Store
let node: LightningNode
let events: DomainEvent[]
let dataDir: string

/** The embedded node, but every settlement arrives twice and catch-up always starts from the beginning. */
function redelivering(inner: LightningNode): LightningNode {
  return {
    ...inner,
    settlementsAfter: () => inner.settlementsAfter(0).pipe(mergeMap(settled => [settled, settled])),
  }
}

function walletOver(n: LightningNode): Promise<Wallet> {
  const bus = createEventBus()
  bus.events$.subscribe(event => events.push(event))
  return createWallet({
    sql: store.sql,
    file: store.file,
    tokens: createTokenSigner('settlement-test-secret-0123456789abcdef'),
    random: bytes => randomBytes(bytes),
    now: () => Date.now(),
    fees: {
      serviceFeeBps: 60, serviceFeeFloorSats: 10, routingFeeLimitBps: 50, routingFeeFloorSats: 5,
      internalUserFeeBps: 0, internalRootFeeBps: 0,
    },
    relayUrl: () => 'ws://127.0.0.1:1',
    bridgeUrl: '',
    allowBalanceMigration: false,
    extensions: [],
    defaultAppName: 'wallet',
    node: n,
    emit: event => bus.emit(event),
    log,
  })
}

test.before.each(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'relaypay-settlement-'))
  store = openStore({ dataDir })
  node = await createNode(
    { backend: 'embedded', network: 'regtest', alias: 'test', simulatePayments: false, mock: true, dataDir },
    { db: store.db, clock: { now: () => Date.now() }, random: bytes => randomBytes(bytes), log },
  )
  events = []
})
test.after.each(async () => {
  await node.close()
  store.close()
  fs.rmSync(dataDir, { recursive: true, force: true })
})

test('a settlement reported twice, and again at every start, credits once and is announced once', async () => {
  const flaky = redelivering(node)
  const wallet = await walletOver(flaky)
  await wallet.start()
  const { userId } = (await wallet.accounts.createAccountWithWallet('receiver'))
  const invoice = await wallet.createInvoiceFor(userId, { amountMsat: 21_000, memo: 'twice', extra: { tag: 'demo', order: 7 } })
  await node.mock!.markInvoicePaidExternally(invoice.paymentRequest)
  await until(async () => (await wallet.accounts.userById(userId))!.balance_msat > 0)
  await replayed() // the second report of the same settlement
  assert.is((await wallet.accounts.userById(userId))!.balance_msat, 21_000)

  // Two restarts, each replaying every settlement since the beginning.
  await wallet.stop()
  const restarted = await walletOver(flaky)
  await restarted.start()
  await replayed()
  await restarted.stop()
  const again = await walletOver(flaky)
  await again.start()
  await replayed()
  assert.is((await again.accounts.userById(userId))!.balance_msat, 21_000)
  await again.stop()

  const paid = events.filter(e => e.type === 'invoice.paid')
  assert.is(paid.length, 1)
  assert.equal(paid[0], {
    type: 'invoice.paid', walletId: userId, paymentHash: invoice.paymentHash, amountMsat: 21_000,
    extra: { tag: 'demo', order: 7 }, paidAt: (paid[0] as { paidAt: number }).paidAt, internal: false, zap: false,
    offer: false, callbackUrl: '',
  })
  assert.equal((await again.paidInvoicesTagged('demo')).map(p => p.paymentHash), [invoice.paymentHash])
  assert.equal(await again.paidInvoicesTagged('other'), [])
  assert.ok((await auditLedger(store.sql)).ok)
})

test('settlements made while the wallet was stopped are credited at its next start', async () => {
  const wallet = await walletOver(node)
  const { userId } = (await wallet.accounts.createAccountWithWallet('sleeper'))
  const invoice = await wallet.createInvoiceFor(userId, { amountMsat: 5_000, memo: 'while away' })
  await node.mock!.markInvoicePaidExternally(invoice.paymentRequest) // nobody is listening yet
  assert.is((await wallet.accounts.userById(userId))!.balance_msat, 0)
  await wallet.start()
  await until(async () => (await wallet.accounts.userById(userId))!.balance_msat > 0)
  assert.is((await wallet.accounts.userById(userId))!.balance_msat, 5_000)
  assert.is((await wallet.invoiceByPaymentHash(invoice.paymentHash))!.paid, true)
  await wallet.stop()
  assert.ok((await auditLedger(store.sql)).ok)
})

test('a credit that fails to commit is tried again from the stored index, never passed by a later settlement', async () => {
  const wallet = await walletOver(node)
  await wallet.start()
  const { userId } = (await wallet.accounts.createAccountWithWallet('unlucky'))
  const first = await wallet.createInvoiceFor(userId, { amountMsat: 1_000, memo: 'first' })
  const second = await wallet.createInvoiceFor(userId, { amountMsat: 2_000, memo: 'second' })
  // The first credit fails to commit (as on a full disk); the second settles after it.
  store.db.exec(`CREATE TEMP TRIGGER refuse_first BEFORE UPDATE OF paid_at ON invoices
    WHEN NEW.payment_hash = '${first.paymentHash}' BEGIN SELECT RAISE(ABORT, 'disk I/O error'); END`)
  await node.mock!.markInvoicePaidExternally(first.paymentRequest)
  await node.mock!.markInvoicePaidExternally(second.paymentRequest)
  const balance = async () => (await wallet.accounts.userById(userId))!.balance_msat
  await replayed()
  assert.is(await balance(), 0, 'a later settlement was credited past one that failed')
  store.db.exec('DROP TRIGGER refuse_first')
  for (let waited = 0; (await balance()) !== 3_000 && waited < 10_000; waited += 50) await new Promise(r => setTimeout(r, 50))
  assert.is(await balance(), 3_000)
  assert.is((await wallet.invoiceByPaymentHash(first.paymentHash))!.paid, true)
  await wallet.stop()
  assert.ok((await auditLedger(store.sql)).ok)
})

test('the door pays between wallets with the rules of PayInvoice; an app owner pays no service fee', async () => {
  const wallet = await walletOver(node)
  await wallet.start()
  const owner = wallet.defaultApp.owner_user_id
  const { userId: shop } = (await wallet.accounts.createAccountWithWallet('shop'))
  const funding = await wallet.createInvoiceFor(owner, { amountMsat: 50_000, memo: 'funding' })
  await node.mock!.markInvoicePaidExternally(funding.paymentRequest)
  await until(async () => (await wallet.accounts.userById(owner))!.balance_msat === 50_000)

  const bill = await wallet.createInvoiceFor(shop, { amountMsat: 20_000, memo: 'bill' })
  const paid = await wallet.payInvoiceFor(owner, bill.paymentRequest)
  assert.is(paid.feeMsat, 0)
  assert.is(paid.status, 'succeeded')
  assert.is(paid.internal, true)
  assert.is((await wallet.accounts.userById(owner))!.balance_msat, 30_000)
  assert.is((await wallet.accounts.userById(shop))!.balance_msat, 20_000)
  assert.is((await wallet.paymentByHash(bill.paymentHash))!.status, 'succeeded')

  // The shop is a managed user of the default app: it pays the 10-sat floor, which the owner collects.
  const back = await wallet.createInvoiceFor(owner, { amountMsat: 1_000, memo: 'back' })
  assert.is((await wallet.payInvoiceFor(shop, back.paymentRequest)).feeMsat, 10_000)
  assert.is((await wallet.accounts.userById(shop))!.balance_msat, 9_000)
  assert.is((await wallet.accounts.userById(owner))!.balance_msat, 41_000)
  await wallet.stop()
  assert.ok((await auditLedger(store.sql)).ok)
})

test('extra data larger than 4 KiB, or not an object, is refused', async () => {
  const wallet = await walletOver(node)
  const { userId } = (await wallet.accounts.createAccountWithWallet('x'))
  for (const extra of [{ blob: 'x'.repeat(4100) }, ['not', 'an', 'object'] as unknown as Record<string, unknown>]) {
    try {
      await wallet.createInvoiceFor(userId, { amountMsat: 1000, memo: '', extra })
      assert.unreachable('accepted')
    } catch (err) {
      assert.ok(isOperationError(err) && err.code === 'invalid_input', String(err))
    }
  }
})

test.run()
