// Offer receipts owed across a restart (the kind-21001 receipt a payer gets once paid): an invoice paid while the
// relays are not up (the catch-up at start, or an outage) is receipted once the outbox is attached — by the next run
// if this one stops first — and never twice. On a real SQLite file; the wallet is reduced to "is this invoice paid".
import { suite } from '../support/suite.js'
import * as assert from 'uvu/assert'
import { Subject } from 'rxjs'
import { pino } from 'pino'
import { randomBytes } from 'node:crypto'
import { openStore } from '../../src/store/index.js'
import { accountStore } from '../../src/wallet/accounts.js'
import type { DomainEvent } from '../../src/bus/events.js'
import type { ClinkMessage, ClinkSender } from '../../src/clink/index.js'
import { receiptBook } from '../../src/clink/receipts.js'
import { receiptStore } from '../../src/clink/receipt-store.js'
import { tempDataDir } from '../support/daemon.js'

const log = pino({ level: process.env.TEST_LOG ?? 'silent' })
const test = suite('CLINK receipts')
/** The book's work on an event or a flush is a chain of promises; on SQLite each settles at once. */
const settled = () => new Promise(resolve => setImmediate(resolve))

async function setup(dataDir: string, paid: Set<string>, now = () => Date.now()) {
  const store = openStore({ dataDir })
  const accounts = accountStore({ sql: store.sql, random: bytes => randomBytes(bytes), now })
  const app = await accounts.ensureDefaultApp('shop')
  const events = new Subject<DomainEvent>()
  const sent: ClinkMessage[] = []
  let outbox: ClinkSender | undefined
  const book = receiptBook({
    store: receiptStore(store.sql),
    events$: events,
    wallet: { invoiceByPaymentHash: async hash => (paid.has(hash) || hash.startsWith('unpaid') ? ({ paid: paid.has(hash) } as never) : undefined) },
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
    async attach() {
      outbox = { send: message => (sent.push(message), true) }
      await book.flush()
    },
    async paid(paymentHash: string) {
      paid.add(paymentHash)
      events.next({ type: 'invoice.paid', walletId: 'w', paymentHash, amountMsat: 1000, extra: null, paidAt: now(), internal: false })
      await settled()
    },
  }
}

test('a receipt owed while the relays were down is sent by the next run once its outbox is attached, and only once', async () => {
  const dataDir = tempDataDir()
  const paid = new Set<string>()
  const first = await setup(dataDir, paid)
  await first.book.owe({ paymentHash: 'a'.repeat(64), appId: first.app.id, requester: 'r'.repeat(64), requestId: 'e'.repeat(64), expiresAt: Date.now() + 3_600_000 })
  await first.paid('a'.repeat(64)) // credited before the relays are up
  assert.is(first.sent.length, 0)
  first.book.stop()
  first.store.close()

  const second = await setup(dataDir, paid)
  await second.attach()
  assert.equal(second.sent, [
    { appId: second.app.id, to: 'r'.repeat(64), kind: 21001, replyTo: 'e'.repeat(64), payload: { res: 'ok' }, clinkVersion: true },
  ])
  // A redelivered settlement and a second attachment send nothing more.
  await second.paid('a'.repeat(64))
  await second.attach()
  assert.is(second.sent.length, 1)
  second.book.stop()
  second.store.close()
})

test('with the outbox attached a receipt goes out when the invoice is paid; a long-expired unpaid one is forgotten', async () => {
  const dataDir = tempDataDir()
  const paid = new Set<string>()
  let clock = Date.now()
  const run = await setup(dataDir, paid, () => clock)
  await run.attach()
  const owe = (paymentHash: string, expiresAt: number) =>
    run.book.owe({ paymentHash, appId: run.app.id, requester: 'r'.repeat(64), requestId: paymentHash.slice(0, 64), expiresAt })
  await owe('b'.repeat(64), clock + 60_000)
  await owe('unpaid-stale', clock - 2 * 24 * 3_600_000)
  await owe('unpaid-fresh', clock + 60_000)
  await run.paid('b'.repeat(64))
  assert.equal(run.sent.map(m => m.replyTo), ['b'.repeat(64)])
  await run.attach()
  const left = run.store.db.prepare('SELECT payment_hash FROM clink_receipts WHERE sent_at IS NULL ORDER BY payment_hash').pluck().all()
  assert.equal(left, ['unpaid-fresh'])
  // Paid after all: still receipted.
  clock += 30_000
  await run.paid('unpaid-fresh')
  assert.equal(run.sent.map(m => m.replyTo), ['b'.repeat(64), 'unpaid-fresh'])
  run.book.stop()
  run.store.close()
})

test.run()
