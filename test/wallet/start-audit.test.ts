// The start-up audit of a large journal runs on a worker thread while the daemon serves; payments started before
// its verdict wait for it, go through when the books are clean, and are refused when they are not. (The threshold
// is lowered here so that a small journal takes the background path.)
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { randomBytes } from 'node:crypto'
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { pino } from 'pino'
import { openStore, type Store } from '../../src/store/index.js'
import { createNode, type LightningNode } from '../../src/node/index.js'
import { createTokenSigner } from '../../src/auth/index.js'
import { createEventBus } from '../../src/bus/events.js'
import { createWallet, type Wallet } from '../../src/wallet/index.js'

const test = suite('start-up audit in the background')
const log = pino({ level: 'silent' })
let store: Store
let node: LightningNode
let dataDir: string

function walletOver(n: LightningNode): Promise<Wallet> {
  return createWallet({
    sql: store.sql,
    file: store.file,
    tokens: createTokenSigner('start-audit-test-secret-0123456789abcdef'),
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
    emit: () => {},
    log,
  })
}

/** A payer funded over Lightning, a payee, and an invoice of the payee's for the payer to pay. */
async function fundedPair(wallet: Wallet) {
  const payer = (await wallet.accounts.createAccountWithWallet('payer')).userId
  const payee = (await wallet.accounts.createAccountWithWallet('payee')).userId
  const funding = await wallet.createInvoiceFor(payer, { amountMsat: 100_000, memo: 'funding' })
  await node.mock!.markInvoicePaidExternally(funding.paymentRequest)
  // The credit commits in its own transaction after the node reports it (when the wallet is following).
  for (let waited = 0; (await wallet.accounts.userById(payer))!.balance_msat === 0 && waited < 5000; waited += 20) {
    await new Promise(r => setTimeout(r, 20))
  }
  const bill = await wallet.createInvoiceFor(payee, { amountMsat: 10_000, memo: 'bill' })
  return { payer, payee, bill: bill.paymentRequest }
}

test.before.each(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'relaypay-start-audit-'))
  store = openStore({ dataDir })
  node = await createNode(
    { backend: 'embedded', network: 'regtest', alias: 'test', simulatePayments: false, mock: true, dataDir },
    { db: store.db, clock: { now: () => Date.now() }, random: bytes => randomBytes(bytes), log },
  )
})
test.after.each(async () => {
  await node.close()
  store.close()
  fs.rmSync(dataDir, { recursive: true, force: true })
})

test('clean books: a payment made before the verdict waits for it and then goes through', async () => {
  const wallet = await walletOver(node)
  await wallet.start()
  const { payer, payee, bill } = await fundedPair(wallet)
  const audit = await wallet.auditAtStart(store.file, { backgroundAboveEntries: 0 })
  assert.ok(audit.background)
  let verdict = false
  audit.report.then(() => (verdict = true))
  const paid = await wallet.payInvoiceFor(payer, bill)
  assert.ok(verdict, 'the payment completed before the audit verdict')
  assert.ok((await audit.report).ok)
  assert.is(paid.amountMsat, 10_000)
  assert.is((await wallet.accounts.userById(payee))!.balance_msat, 10_000)
  await wallet.stop()
})

test('a balance edited behind the journal: the waiting payment is refused and nothing moves', async () => {
  const wallet = await walletOver(node)
  await wallet.start()
  const { payer, payee, bill } = await fundedPair(wallet)
  store.db.prepare('UPDATE users SET balance_msat = balance_msat + 5000 WHERE id = ?').run(payer)
  const audit = await wallet.auditAtStart(store.file, { backgroundAboveEntries: 0 })
  assert.ok(audit.background)
  const refusal = await wallet.payInvoiceFor(payer, bill).then(
    () => undefined,
    (err: Error) => err.message,
  )
  assert.match(refusal ?? '', /^outgoing payments are locked: the ledger audit at start failed/)
  assert.is((await audit.report).balanceMismatches.length, 1)
  assert.is((await wallet.accounts.userById(payee))!.balance_msat, 0)
  await wallet.stop()
})

test('a background audit starts once the daemon serves: a payment waits for that and for the verdict', async () => {
  const wallet = await walletOver(node)
  await wallet.start()
  const { payer, payee, bill } = await fundedPair(wallet)
  let serving!: () => void
  const audit = await wallet.auditAtStart(store.file, { backgroundAboveEntries: 0, backgroundAfter: new Promise<void>(resolve => (serving = resolve)) })
  let verdict = false
  audit.report.then(() => (verdict = true))
  let paid = false
  const payment = wallet.payInvoiceFor(payer, bill).then(() => (paid = true))
  await new Promise(resolve => setTimeout(resolve, 300))
  assert.not.ok(verdict, 'no verdict before the audit started')
  assert.not.ok(paid, 'a payment went out before the audit')
  serving()
  await payment
  assert.ok(verdict)
  assert.is((await wallet.accounts.userById(payee))!.balance_msat, 10_000)
  await wallet.stop()
})

test('a background audit cancelled before it started (a stop during the start) has no verdict, and nothing moves', async () => {
  const wallet = await walletOver(node)
  await wallet.start()
  const { payer, payee, bill } = await fundedPair(wallet)
  let serving!: () => void
  const audit = await wallet.auditAtStart(store.file, { backgroundAboveEntries: 0, backgroundAfter: new Promise<void>(resolve => (serving = resolve)) })
  const refusal = wallet.payInvoiceFor(payer, bill).then(
    () => undefined,
    (err: Error) => err.message,
  )
  audit.cancel()
  serving()
  assert.match((await audit.report.catch((err: Error) => err.message)) as string, /cancelled before it started/)
  assert.match((await refusal) ?? 'it went out', /^outgoing payments are locked/)
  assert.is((await wallet.accounts.userById(payee))!.balance_msat, 0)
  await wallet.stop()
})

test('a small journal is audited at once, before anything is served', async () => {
  const wallet = await walletOver(node)
  await wallet.start()
  await fundedPair(wallet)
  const audit = await wallet.auditAtStart(store.file)
  assert.not.ok(audit.background)
  assert.ok((await audit.report).ok)
  await wallet.stop()
})

test.run()
