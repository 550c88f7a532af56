// Offer receipts owed across a restart (reference/pub-protocol.md §4): an invoice paid while the relays are not up
// (the catch-up at start, or an outage) is receipted once the outbox is attached — by the next run if this one
// stops first — and never twice. On a real SQLite file; the wallet is reduced to "is this invoice paid".
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { Subject } from 'rxjs'
import { pino } from 'pino'
import { randomBytes } from 'node:crypto'
import { openStore } from '../../src/store/index.js'
import { accountStore } from '../../src/wallet/accounts.js'
import type { DomainEvent } from '../../src/bus/events.js'
import type { ClinkMessage, ClinkSender } from '../../src/clink/index.js'
import { receiptBook } from '../../src/clink/receipts.js'
import { tempDataDir } from '../support/daemon.js'

const log = pino({ level: process.env.TEST_LOG ?? 'silent' })
const test = suite('CLINK receipts')

function setup(dataDir: string, paid: Set<string>, now = () => Date.now()) {
  const store = openStore({ dataDir })
  const accounts = accountStore({ db: store.db, random: bytes => randomBytes(bytes), now })
  const app = accounts.ensureDefaultApp('shop')
  const events = new Subject<DomainEvent>()
  const sent: ClinkMessage[] = []
  let outbox: ClinkSender | undefined
  const book = receiptBook({
    db: store.db,
    events$: events,
    wallet: { invoiceByPaymentHash: hash => (paid.has(hash) || hash.startsWith('unpaid') ? ({ paid: paid.has(hash) } as never) : undefined) },
    outbox: () => outbox,
    now,
    log,
  })
  book.start()
  return {
    store,
    app,
    book,
    sent,
    attach() {
      outbox = { send: message => (sent.push(message), true) }
      book.flush()
    },
    paid(paymentHash: string) {
      paid.add(paymentHash)
      events.next({ type: 'invoice.paid', walletId: 'w', paymentHash, amountMsat: 1000, extra: null, paidAt: now(), internal: false })
    },
  }
}

test('a receipt owed while the relays were down is sent by the next run once its outbox is attached, and only once', () => {
  const dataDir = tempDataDir()
  const paid = new Set<string>()
  const first = setup(dataDir, paid)
  first.book.owe({ paymentHash: 'a'.repeat(64), appId: first.app.id, requester: 'r'.repeat(64), requestId: 'e'.repeat(64), expiresAt: Date.now() + 3_600_000 })
  first.paid('a'.repeat(64)) // credited before the relays are up
  assert.is(first.sent.length, 0)
  first.book.stop()
  first.store.close()

  const second = setup(dataDir, paid)
  second.attach()
  assert.equal(second.sent, [
    { appId: second.app.id, to: 'r'.repeat(64), kind: 21001, replyTo: 'e'.repeat(64), payload: { res: 'ok' }, clinkVersion: true },
  ])
  // A redelivered settlement and a second attachment send nothing more.
  second.paid('a'.repeat(64))
  second.attach()
  assert.is(second.sent.length, 1)
  second.book.stop()
  second.store.close()
})

test('with the outbox attached a receipt goes out when the invoice is paid; a long-expired unpaid one is forgotten', () => {
  const dataDir = tempDataDir()
  const paid = new Set<string>()
  let clock = Date.now()
  const run = setup(dataDir, paid, () => clock)
  run.attach()
  const owe = (paymentHash: string, expiresAt: number) =>
    run.book.owe({ paymentHash, appId: run.app.id, requester: 'r'.repeat(64), requestId: paymentHash.slice(0, 64), expiresAt })
  owe('b'.repeat(64), clock + 60_000)
  owe('unpaid-stale', clock - 2 * 24 * 3_600_000)
  owe('unpaid-fresh', clock + 60_000)
  run.paid('b'.repeat(64))
  assert.equal(run.sent.map(m => m.replyTo), ['b'.repeat(64)])
  run.attach()
  const left = run.store.db.prepare('SELECT payment_hash FROM clink_receipts WHERE sent_at IS NULL ORDER BY payment_hash').pluck().all()
  assert.equal(left, ['unpaid-fresh'])
  // Paid after all: still receipted.
  clock += 30_000
  run.paid('unpaid-fresh')
  assert.equal(run.sent.map(m => m.replyTo), ['b'.repeat(64), 'unpaid-fresh'])
  run.book.stop()
  run.store.close()
})

test.run()
