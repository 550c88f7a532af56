// The node's settlement stream → wallet credits, exactly once. Each settlement marks its invoice paid, posts the
// `invoice_credit` and advances the stored settle index in ONE transaction, so a settlement the node reports
// twice, or again after a restart, finds the invoice paid and credits nothing. At start the wallet catches up
// with everything the node settled after the stored index (what happened while the daemon was down).
import type { Subscription } from '../bus/rx.js'
import type { Logger } from 'pino'
import type { DomainEvent } from '../bus/events.js'
import type { Db } from '../store/index.js'
import type { LightningNode, SettledInvoice } from '../node/index.js'
import { userAccount, type Ledger } from './ledger.js'
import { invoicePaidEvents } from './invoices/paid-events.js'
import type { InvoiceStore } from './invoices/store.js'

export interface SettlementDeps {
  db: Db
  node: LightningNode
  ledger: Ledger
  invoices: InvoiceStore
  emit(event: DomainEvent): void
  log: Logger
}

const cursorName = 'node_settle_index'

export function settlement({ db, node, ledger, invoices, emit, log }: SettlementDeps) {
  const readCursor = db.prepare('SELECT value FROM wallet_cursors WHERE name = ?').pluck()
  const advanceCursor = db.prepare(`INSERT INTO wallet_cursors (name, value) VALUES (@name, @value)
      ON CONFLICT (name) DO UPDATE SET value = MAX(value, excluded.value)`)

  const credit = db.transaction((settled: SettledInvoice): DomainEvent[] => {
    advanceCursor.run({ name: cursorName, value: settled.settleIndex })
    // An invoice the node issued for nobody here (its own income), or one already paid: nothing to credit.
    const invoice = invoices.byHash(settled.paymentHash)
    if (!invoice) return []
    const marked = invoices.markPaid({
      paymentHash: invoice.payment_hash,
      paidMsat: settled.amountMsat,
      paidAt: settled.settledAt,
      internal: false,
      settleIndex: settled.settleIndex,
    })
    if (!marked) return []
    const posted = ledger.post({
      kind: 'invoice_credit',
      ref: invoice.payment_hash,
      legs: [
        { account: userAccount(invoice.user_id), amountMsat: settled.amountMsat },
        { account: 'system:lightning', amountMsat: -settled.amountMsat },
      ],
      at: settled.settledAt,
    })
    // The paid mark was new, so a credit for this hash must not exist; if it does, refuse to commit either.
    if (!posted) throw new Error(`invoice ${invoice.payment_hash} was credited without its paid mark`)
    return invoicePaidEvents(invoices.byHash(invoice.payment_hash)!, ledger.balanceMsat(invoice.user_id))
  })

  /** Credits one settlement (idempotent) and, after commit, announces it. */
  const apply = (settled: SettledInvoice): void => {
    let events: DomainEvent[]
    try {
      events = credit(settled)
    } catch (err) {
      // Rolled back with the cursor: the next start's catch-up tries this settlement again.
      log.error({ err, paymentHash: settled.paymentHash, settleIndex: settled.settleIndex }, 'settlement not credited')
      return
    }
    for (const event of events) emit(event)
  }

  /** The last settle index applied. */
  const cursor = () => (readCursor.get(cursorName) as number | undefined) ?? 0

  return {
    apply,
    cursor,
    /**
     * Catches up from the stored index, then follows the live stream. The stream is subscribed first, so nothing
     * settled meanwhile is missed, but what it brings is held until catch-up is done: applied out of order, a newer
     * settlement would move the stored index past older ones that a crash could then leave uncredited forever.
     */
    async start(): Promise<Subscription> {
      let held: SettledInvoice[] | undefined = []
      const subscription = node.settledInvoices$.subscribe({
        next: settled => (held ? held.push(settled) : apply(settled)),
        error: err => log.error({ err }, 'the node settlement stream failed; restart to resume crediting'),
      })
      try {
        const missed = await node.settledInvoicesAfter(cursor())
        if (missed.length > 0) log.info({ count: missed.length }, 'catching up with settlements made while stopped')
        for (const settled of missed) apply(settled)
        for (const settled of held) apply(settled)
        held = undefined
      } catch (err) {
        subscription.unsubscribe()
        throw err
      }
      return subscription
    },
  }
}

export type Settlement = ReturnType<typeof settlement>
