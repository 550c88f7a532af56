// The payout ledger's guarantees that HTTP cannot provoke on demand: two daemons sharing one database (two
// connections to one file here), a crash after the money moved (the invoice-paid redelivery settles the row),
// and a crash before it did (the claim is closed once its invoice has expired).
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { openStore, type Store } from '../../../src/store/index.js'
import { contractsStore, type Contract, type ContractTerms } from '../../../src/extensions/payroll/contracts-store.js'
import { interruptedClaimDetail, ledgerStore, type Attempt, type LedgerStore } from '../../../src/extensions/payroll/ledger-store.js'

const terms: ContractTerms = {
  name: 'Alice salary',
  employeeWallet: 'employee',
  sourceWallet: 'source',
  amount: '1000',
  currency: 'sat',
  frequency: 'monthly',
  startDate: '2025-01-31',
  totalPeriods: 3,
  pricingMode: 'payday',
  manualRate: null,
  backfill: false,
}

let dir: string
let first: Store
let second: Store
let ids = 0
const newId = () => `row-${++ids}`

function attempt(contract: Contract, period: number): Attempt {
  return { contract, period, payday: '2025-01-31', amountMsat: 1_000_000, rate: null, rateSource: null, memo: 'memo', detail: '' }
}

const ledger = suite('a period is paid once, whoever records it and however the payer stops')
let daemonA: { ledger: LedgerStore; contracts: ReturnType<typeof contractsStore> }
let daemonB: { ledger: LedgerStore; contracts: ReturnType<typeof contractsStore> }
ledger.before.each(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'payroll-ledger-'))
  first = openStore({ dataDir: dir })
  second = openStore({ dataDir: dir })
  daemonA = { ledger: ledgerStore(first.db, newId), contracts: contractsStore(first.db) }
  daemonB = { ledger: ledgerStore(second.db, newId), contracts: contractsStore(second.db) }
})
ledger.after.each(() => {
  first.close()
  second.close()
  fs.rmSync(dir, { recursive: true, force: true })
})

ledger('two daemons on one database: the second cannot claim a period the first is paying or has paid', () => {
  const contract = daemonA.contracts.create('c1', terms, 1_000)
  const claimA = daemonA.ledger.claim(attempt(contract, 0), 1_000, 700_000)
  assert.ok(claimA)
  assert.is(daemonB.ledger.claim(attempt(contract, 0), 1_001, 700_001), undefined)
  daemonA.ledger.attachInvoice(claimA!.id, 'a'.repeat(64))
  assert.is(daemonA.ledger.settle('a'.repeat(64), 2_000)!.row.status, 'paid')
  assert.is(daemonB.ledger.claim(attempt(contract, 0), 2_001, 700_001), undefined)
  assert.is(daemonB.contracts.get('c1')!.periodsDone, 1)
})

ledger('a failed claim frees the period for the next attempt', () => {
  const contract = daemonA.contracts.create('c1', terms, 1_000)
  const claim = daemonA.ledger.claim(attempt(contract, 0), 1_000, 700_000)!
  assert.is(daemonA.ledger.failClaim(claim.id, 'refused').status, 'failed')
  assert.ok(daemonB.ledger.claim(attempt(contract, 0), 1_001, 700_001))
  assert.is(daemonA.ledger.failures('c1', 0), 1)
})

ledger('the payer and the redelivered invoice-paid event both settling advance the contract once', () => {
  const contract = daemonA.contracts.create('c1', terms, 1_000)
  const claim = daemonA.ledger.claim(attempt(contract, 0), 1_000, 700_000)!
  daemonA.ledger.attachInvoice(claim.id, 'b'.repeat(64))
  const byPayer = daemonA.ledger.settle('b'.repeat(64), 2_000)!
  const byListener = daemonB.ledger.settle('b'.repeat(64), 3_000)!
  assert.equal([byPayer.changed, byListener.changed], [true, false])
  assert.is(daemonA.contracts.get('c1')!.periodsDone, 1)
  assert.is(daemonA.ledger.list({ contractId: 'c1' }).length, 1)
})

ledger('a claim left by a crash is hidden, then closed as failed once its invoice has expired', () => {
  const contract = daemonA.contracts.create('c1', terms, 1_000)
  const claim = daemonA.ledger.claim(attempt(contract, 0), 1_000, 700_000)!
  daemonA.ledger.attachInvoice(claim.id, 'c'.repeat(64))
  assert.equal(daemonB.ledger.list({ contractId: 'c1' }), [])
  assert.is(daemonB.ledger.expireClaims('c1', 699_999), 0)
  assert.is(daemonB.ledger.expireClaims('c1', 700_001), 1)
  const [row] = daemonB.ledger.list({ contractId: 'c1' })
  assert.equal([row.status, row.detail, row.paymentHash], ['failed', interruptedClaimDetail, 'c'.repeat(64)])
  assert.is(daemonB.contracts.get('c1')!.periodsDone, 0)
})

ledger('an invoice paid after its attempt was closed as failed is settled, unless another invoice paid the period', () => {
  const contract = daemonA.contracts.create('c1', terms, 1_000)
  const late = daemonA.ledger.claim(attempt(contract, 0), 1_000, 700_000)!
  daemonA.ledger.attachInvoice(late.id, 'd'.repeat(64))
  daemonA.ledger.failClaim(late.id, 'interrupted')
  const settled = daemonA.ledger.settle('d'.repeat(64), 2_000)!
  assert.equal([settled.row.status, settled.changed, settled.periodPaidTwice], ['paid', true, false])
  assert.is(daemonA.contracts.get('c1')!.periodsDone, 1)

  const other = daemonA.contracts.create('c2', terms, 1_000)
  const stale = daemonA.ledger.claim(attempt(other, 0), 1_000, 700_000)!
  daemonA.ledger.attachInvoice(stale.id, 'e'.repeat(64))
  daemonA.ledger.failClaim(stale.id, 'interrupted')
  const retry = daemonA.ledger.claim(attempt(other, 0), 1_000, 700_000)!
  daemonA.ledger.attachInvoice(retry.id, 'f'.repeat(64))
  daemonA.ledger.settle('f'.repeat(64), 2_000)
  const twice = daemonA.ledger.settle('e'.repeat(64), 3_000)!
  assert.equal([twice.row.status, twice.changed, twice.periodPaidTwice], ['failed', false, true])
  assert.is(daemonA.contracts.get('c2')!.periodsDone, 1)
})

ledger('a skip loses to a payer that consumed the period first', () => {
  const contract = daemonA.contracts.create('c1', terms, 1_000)
  const stale = daemonB.contracts.get('c1')!
  const claim = daemonA.ledger.claim(attempt(contract, 0), 1_000, 700_000)!
  daemonA.ledger.attachInvoice(claim.id, '1'.repeat(64))
  daemonA.ledger.settle('1'.repeat(64), 2_000)
  assert.is(daemonB.ledger.skip({ ...attempt(stale, 0), amountMsat: null }, 3_000), undefined)
  assert.is(daemonB.ledger.list({ contractId: 'c1' }).length, 1)
  assert.is(daemonB.contracts.get('c1')!.periodsDone, 1)
})

ledger.run()
