// Offer receipts: once an invoice issued for a kind-21001 request is paid, the
// requester gets `{"res":"ok"}` on kind 21001 tagged e = its request and clink_version 1. What is owed is kept in
// the database (receipt-store.ts), so a payment credited while the relays are down (or during the catch-up at
// start) is still receipted once the room starts with the relays up; a receipt is claimed (marked sent) by one
// guarded statement before it is handed to the relay transport (a `clink.answer` domain event), so it goes out at
// most once.
import { ofType, type DomainEvent, type Observable, type Subscription } from '../bus/index.js'
import type { Logger } from 'pino'
import type { Wallet } from '../wallet/index.js'
import { clinkOfferKind, type ClinkSender } from './wire.js'
import type { OwedReceipt, ReceiptRow, ReceiptStore } from './receipt-store.js'

export type { OwedReceipt } from './receipt-store.js'

export interface ReceiptDeps {
  store: ReceiptStore
  events$: Observable<DomainEvent>
  wallet: Pick<Wallet, 'invoiceByPaymentHash'>
  outbox(): ClinkSender | undefined
  now(): number
  log: Logger
}

/** Unpaid rows are kept this long past their invoice's expiry (a payment may settle at the last moment). */
const keepAfterExpiryMs = 24 * 60 * 60 * 1000

export function receiptBook({ store, events$, wallet, outbox, now, log }: ReceiptDeps) {
  /** Sends the receipt for a paid invoice if one is owed and the relays are up; true when it went out. */
  async function send(row: ReceiptRow): Promise<boolean> {
    const box = outbox()
    if (!box) return false
    if (!(await store.claim(row.payment_hash, now()))) return false
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

  async function paid(paymentHash: string): Promise<void> {
    const row = await store.owed(paymentHash)
    if (row && (await send(row))) log.info({ paymentHash, requestId: row.request_id }, 'CLINK receipt sent')
  }

  let subscription: Subscription | undefined

  return {
    owe: (receipt: OwedReceipt): Promise<void> => store.owe(receipt),
    /** Follows paid invoices; call before the wallet starts so catch-up credits are seen. */
    start(): void {
      subscription = events$.pipe(ofType('invoice.paid')).subscribe(event => {
        // Receipts are owed only for offer invoices: no read for any other (it was one per payment).
        if (event.offer === false) return
        paid(event.paymentHash).catch(err => log.error({ err, paymentHash: event.paymentHash }, 'CLINK receipt failed'))
      })
    },
    /** The relays are up: sends what was owed while they were not, and forgets receipts of long-expired invoices. */
    async flush(): Promise<void> {
      for (const row of await store.allOwed()) {
        try {
          const invoice = await wallet.invoiceByPaymentHash(row.payment_hash)
          if (invoice?.paid) {
            if (await send(row)) log.info({ paymentHash: row.payment_hash, requestId: row.request_id }, 'owed CLINK receipt sent')
          } else if (!invoice || row.expires_at + keepAfterExpiryMs < now()) {
            await store.forget(row.payment_hash)
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
