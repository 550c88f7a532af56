// Offer receipts (reference/pub-protocol.md §4): once an invoice issued for a kind-21001 request is paid, the
// requester gets `{"res":"ok"}` on kind 21001 tagged e = its request and clink_version 1. What is owed is kept in
// SQLite, so a payment credited while the relays are down (or during the catch-up at start) is still receipted
// once the room starts with the relays up; a receipt is marked sent in the same synchronous step that hands it to the
// relay transport (a `clink.answer` domain event), so it goes out at most once.
import { ofType, type DomainEvent, type Observable, type Subscription } from '../bus/index.js'
import type { Logger } from 'pino'
import type { Db } from '../store/index.js'
import type { Wallet } from '../wallet/index.js'
import { clinkOfferKind, type ClinkSender } from './wire.js'

export interface OwedReceipt {
  paymentHash: string
  appId: string
  requester: string
  requestId: string
  /** The invoice's expiry (unix ms): an unpaid invoice's receipt is forgotten after it. */
  expiresAt: number
}

interface ReceiptRow {
  payment_hash: string
  app_id: string
  requester: string
  request_id: string
  expires_at: number
}

export interface ReceiptDeps {
  db: Db
  events$: Observable<DomainEvent>
  wallet: Pick<Wallet, 'invoiceByPaymentHash'>
  outbox(): ClinkSender | undefined
  now(): number
  log: Logger
}

/** Unpaid rows are kept this long past their invoice's expiry (a payment may settle at the last moment). */
const keepAfterExpiryMs = 24 * 60 * 60 * 1000

export function receiptBook({ db, events$, wallet, outbox, now, log }: ReceiptDeps) {
  const statements = {
    insert: db.prepare(`INSERT OR IGNORE INTO clink_receipts (payment_hash, app_id, requester, request_id, expires_at)
                        VALUES (@paymentHash, @appId, @requester, @requestId, @expiresAt)`),
    owed: db.prepare('SELECT * FROM clink_receipts WHERE payment_hash = ? AND sent_at IS NULL'),
    allOwed: db.prepare('SELECT * FROM clink_receipts WHERE sent_at IS NULL ORDER BY expires_at'),
    claim: db.prepare('UPDATE clink_receipts SET sent_at = ? WHERE payment_hash = ? AND sent_at IS NULL'),
    forget: db.prepare('DELETE FROM clink_receipts WHERE payment_hash = ? AND sent_at IS NULL'),
  }

  /** Sends the receipt for a paid invoice if one is owed and the relays are up; true when it went out. */
  function send(row: ReceiptRow): boolean {
    const box = outbox()
    if (!box) return false
    if (statements.claim.run(now(), row.payment_hash).changes !== 1) return false
    const sent = box.send({
      appId: row.app_id,
      to: row.requester,
      kind: clinkOfferKind,
      replyTo: row.request_id,
      payload: { res: 'ok' },
      clinkVersion: true,
    })
    if (!sent) log.warn({ paymentHash: row.payment_hash, appId: row.app_id }, 'CLINK receipt not sent: the app has no key')
    return sent
  }

  let subscription: Subscription | undefined

  return {
    owe(receipt: OwedReceipt): void {
      statements.insert.run(receipt)
    },
    /** Follows paid invoices; call before the wallet starts so catch-up credits are seen. */
    start(): void {
      subscription = events$.pipe(ofType('invoice.paid')).subscribe(event => {
        try {
          const row = statements.owed.get(event.paymentHash) as ReceiptRow | undefined
          if (row && send(row)) log.info({ paymentHash: event.paymentHash, requestId: row.request_id }, 'CLINK receipt sent')
        } catch (err) {
          log.error({ err, paymentHash: event.paymentHash }, 'CLINK receipt failed')
        }
      })
    },
    /** The relays are up: sends what was owed while they were not, and forgets receipts of long-expired invoices. */
    flush(): void {
      for (const row of statements.allOwed.all() as ReceiptRow[]) {
        try {
          const invoice = wallet.invoiceByPaymentHash(row.payment_hash)
          if (invoice?.paid) {
            if (send(row)) log.info({ paymentHash: row.payment_hash, requestId: row.request_id }, 'owed CLINK receipt sent')
          } else if (!invoice || row.expires_at + keepAfterExpiryMs < now()) {
            statements.forget.run(row.payment_hash)
          }
        } catch (err) {
          log.error({ err, paymentHash: row.payment_hash }, 'owed CLINK receipt failed')
        }
      }
    },
    stop(): void {
      subscription?.unsubscribe()
    },
  }
}

export type ReceiptBook = ReturnType<typeof receiptBook>
