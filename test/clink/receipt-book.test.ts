// The receipt book follows paid invoices (src/clink/receipts.ts): for an offer invoice it reads the receipt owed
// and sends it once; for any other invoice, which cannot owe one, it reads nothing (that read was one per payment
// on the internal payment path); when the event does not say, it reads.
import { test } from '../support/suite.js'
import * as assert from 'uvu/assert'
import pino from 'pino'
import { Subject } from 'rxjs'
import type { DomainEvent } from '../../src/bus/index.js'
import { receiptBook } from '../../src/clink/receipts.js'
import type { ReceiptRow, ReceiptStore } from '../../src/clink/receipt-store.js'

const owedRow: ReceiptRow = { payment_hash: 'aa', app_id: 'app', requester: 'r'.repeat(64), request_id: 'req', expires_at: 10 } as ReceiptRow

function harness() {
  const lookedUp: string[] = []
  const sent: unknown[] = []
  let claimed = false
  const store = {
    owe: async () => {},
    owed: async (hash: string) => (lookedUp.push(hash), hash === 'aa' && !claimed ? owedRow : undefined),
    allOwed: async () => [],
    claim: async () => (claimed ? false : (claimed = true)),
    forget: async () => {},
  } satisfies ReceiptStore
  const events$ = new Subject<DomainEvent>()
  const book = receiptBook({
    store, events$, wallet: { invoiceByPaymentHash: async () => undefined }, outbox: () => ({ send: message => (sent.push(message), true) }),
    now: () => 1, log: pino({ level: 'silent' }),
  })
  book.start()
  const paid = (paymentHash: string, offer?: boolean) =>
    events$.next({ type: 'invoice.paid', walletId: 'w', paymentHash, amountMsat: 1000, extra: null, paidAt: 1, internal: true, ...(offer === undefined ? {} : { offer }) })
  return { paid, lookedUp, sent }
}
const settle = () => new Promise(resolve => setTimeout(resolve, 10))

test('an offer invoice: the owed receipt is read and sent once', async () => {
  const { paid, lookedUp, sent } = harness()
  paid('aa', true)
  await settle()
  paid('aa', true) // a redelivered event: claimed already
  await settle()
  assert.equal(lookedUp, ['aa', 'aa'])
  assert.is(sent.length, 1)
})

test('an invoice of no offer: nothing is read; an event that does not say: read', async () => {
  const { paid, lookedUp, sent } = harness()
  paid('bb', false)
  paid('aa', false) // even if a row existed, an invoice without an offer owes none
  await settle()
  assert.equal(lookedUp, [])
  paid('cc')
  await settle()
  assert.equal(lookedUp, ['cc'])
  assert.is(sent.length, 0)
})

test.run()
