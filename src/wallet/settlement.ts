// The node's settlement stream → wallet credits, exactly once. Each settlement marks its invoice paid, posts the
// `invoice_credit` and advances the stored settle index in ONE transaction, so a settlement the node reports
// twice, or again after a restart, finds the invoice paid and credits nothing (and the journal refuses a second
// `invoice_credit` for one hash). At start the wallet follows the node from the stored index: what was settled
// while the daemon was down arrives first, in settle-index order, so the index never passes an uncredited one.
import type { Subscription, DomainEvent } from '../bus/index.js'
import type { Logger } from 'pino'
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
/** After a credit failed to commit (a full disk, a locked database), the stream starts again this much later. */
const retryAfterFailedCreditMs = 5000

export function settlement({ db, node, ledger, invoices, emit, log }: SettlementDeps) {
  const readCursor = db.prepare('SELECT value FROM wallet_cursors WHERE name = ?').pluck()
  const hasUnpaid = db.prepare('SELECT 1 FROM invoices WHERE paid_at IS NULL LIMIT 1').pluck()
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

  /** Credits one settlement (idempotent) and, after commit, announces it; false when it could not commit. */
  const apply = (settled: SettledInvoice): boolean => {
    let events: DomainEvent[]
    try {
      events = credit(settled)
    } catch (err) {
      log.error({ err, paymentHash: settled.paymentHash, settleIndex: settled.settleIndex }, 'settlement not credited')
      return false
    }
    for (const event of events) emit(event)
    return true
  }

  /** The last settle index applied. */
  const cursor = () => (readCursor.get(cursorName) as number | undefined) ?? 0

  return {
    apply,
    cursor,
    /**
     * Follows the node's settlements from the stored index: the ones made while the daemon was down come first, in
     * order, then the live ones. Nothing is awaited: a node replays what was missed at its own pace, and the start
     * does not wait for it (the stored index moves with each credit, so a crash meanwhile resumes from there).
     * With no index yet and no unpaid invoice, nothing older can be owed to anyone here: only new settlements are
     * asked for, so a first start does not read a node's whole history. A credit that fails to commit rolls back
     * with the index, and the stream starts again from the index after a pause: a later settlement must not
     * carry the index past the one that failed.
     */
    start(): { unsubscribe(): void } {
      let following: Subscription | undefined
      let retry: ReturnType<typeof setTimeout> | undefined
      let stopped = false
      const follow = () => {
        if (stopped) return
        const from = cursor()
        let failed = false
        const onFailure = () => {
          if (failed) return
          failed = true
          following?.unsubscribe()
          retry = setTimeout(follow, retryAfterFailedCreditMs)
        }
        following = node.settlementsAfter(from > 0 || hasUnpaid.get() !== undefined ? from : 'now').subscribe({
          next: settled => {
            if (!failed && !apply(settled)) onFailure()
          },
          error: err => log.error({ err }, 'the node settlement stream failed; restart to resume crediting'),
        })
        // A node that replays synchronously may have failed a credit before `following` was assigned.
        if (failed) following.unsubscribe()
      }
      follow()
      return {
        unsubscribe() {
          stopped = true
          clearTimeout(retry)
          following?.unsubscribe()
        },
      }
    },
  }
}

export type Settlement = ReturnType<typeof settlement>
