// The node's settlement stream → wallet credits, exactly once. Each settlement marks its invoice paid, posts the
// `invoice_credit` and advances the stored settle index in ONE transaction, so a settlement the node reports
// twice, or again after a restart, finds the invoice paid and credits nothing (and the journal refuses a second
// `invoice_credit` for one invoice). At start the wallet follows the node from the stored index: what was settled
// while the daemon was down arrives first, in settle-index order, so the index never passes an uncredited one.
import type { Subscription, DomainEvent } from '../bus/index.js'
import type { Logger } from 'pino'
import type { SqlStore, SqlTransaction } from '../store/index.js'
import type { Fence } from './group-commit.js'
import type { LightningNode, SettledInvoice } from '../node/index.js'
import { invoiceCredit, type Ledger } from './ledger.js'
import { invoicePaidEvents } from './invoices/paid-events.js'
import type { InvoiceStore } from './invoices/store.js'

export interface SettlementDeps {
  sql: SqlStore
  /** The standby's epoch check, first in every credit (absent on SQLite). */
  fence?: Fence
  node: LightningNode
  ledger: Ledger
  invoices: Pick<InvoiceStore, 'byHashOn' | 'markPaid'>
  emit(event: DomainEvent): void
  log: Logger
}

const cursorName = 'node_settle_index'
/** After a credit failed to commit (a full disk, a locked database), the stream starts again this much later. */
const retryAfterFailedCreditMs = 5000

const texts = {
  readCursor: 'SELECT value FROM wallet_cursors WHERE name = ?',
  hasUnpaid: 'SELECT 1 AS one FROM invoices WHERE paid_at IS NULL LIMIT 1',
  // The index only moves forward (a redelivered older settlement leaves it).
  advanceCursor: `INSERT INTO wallet_cursors (name, value) VALUES (@name, @value)
      ON CONFLICT (name) DO UPDATE SET value = CASE WHEN excluded.value > wallet_cursors.value
        THEN excluded.value ELSE wallet_cursors.value END`,
}

/**
 * Settlements that arrived while the previous credits committed are credited together, in order, in one transaction
 * (on SQLite one commit and one WAL sync, made off the event loop, for the lot; it was one fsync on the event loop
 * for each). Any credit that fails rolls the whole batch back, index included, so the stream starts again before
 * it. On PostgreSQL each is its own transaction: a batch would lock its wallets in the node's order, not by id.
 */
const maxCreditBatch = 256

export function settlement({ sql, fence, node, ledger, invoices, emit, log }: SettlementDeps) {
  const batchSize = sql.engine === 'sqlite' ? maxCreditBatch : 1
  const creditAll = (batch: readonly SettledInvoice[]): Promise<DomainEvent[][]> =>
    sql.transaction(
      async tx => {
        if (fence) await fence(tx)
        const events: DomainEvent[][] = []
        for (const settled of batch) events.push(await credit(tx, settled))
        return events
      },
      { syncOffLoop: true },
    )
  const credit = async (tx: SqlTransaction, settled: SettledInvoice): Promise<DomainEvent[]> => {
    await tx.run(texts.advanceCursor, { name: cursorName, value: settled.settleIndex })
    // An invoice the node issued for nobody here (its own income), or one already paid: nothing to credit.
    const invoice = await invoices.byHashOn(tx, settled.paymentHash)
    if (!invoice) return []
    const marked = await invoices.markPaid(tx, {
      invoiceSerial: invoice.serial,
      paidMsat: settled.amountMsat,
      paidAt: settled.settledAt,
      internal: false,
      settleIndex: settled.settleIndex,
    })
    if (!marked) return []
    const posted = await ledger.post(tx, invoiceCredit(invoice, settled.amountMsat, settled.settledAt))
    // The paid mark was new, so a credit for this hash must not exist; if it does, refuse to commit either.
    if (!posted) throw new Error(`invoice ${invoice.payment_hash} was credited without its paid mark`)
    const paid = { ...invoice, paid_at: settled.settledAt, paid_msat: settled.amountMsat, paid_internally: 0, settle_index: settled.settleIndex }
    return invoicePaidEvents(paid, await ledger.balanceAfter(tx, invoice.user_id, posted))
  }

  // The highest settle index this process has applied, and who waits for one (test mode's SetMockInvoiceAsPaid).
  let applied = 0
  const waiting = new Set<{ index: number; done(): void }>()

  /** Credits settlements in order (idempotent) and, after the commit, announces them; false when it could not commit. */
  const apply = async (batch: readonly SettledInvoice[]): Promise<boolean> => {
    let events: DomainEvent[][]
    try {
      events = await creditAll(batch)
    } catch (err) {
      const first = batch[0]!
      log.error({ err, paymentHash: first.paymentHash, settleIndex: first.settleIndex, settlements: batch.length }, 'settlement not credited')
      return false
    }
    for (const [i, settled] of batch.entries()) {
      for (const event of events[i]!) emit(event)
      if (settled.settleIndex > applied) applied = settled.settleIndex
    }
    for (const waiter of waiting) if (waiter.index <= applied) waiter.done()
    return true
  }

  /**
   * Settles once the settlement with `settleIndex` is applied here (its credit committed), or after `withinMs`:
   * a caller that just had the node settle an invoice answers only when its balance shows it. With the invoice's
   * `paymentHash` (one the node had settled before), at once when the wallet has it paid already, or has no such
   * invoice: a run before this one may have credited it, which `applied` (this process's) does not know.
   */
  const appliedThrough = async (settleIndex: number, withinMs: number, paymentHash?: string): Promise<void> => {
    if (settleIndex <= applied) return
    if (paymentHash !== undefined) {
      const invoice = await invoices.byHashOn(sql, paymentHash)
      if (!invoice || invoice.paid_at !== null) return
      if (settleIndex <= applied) return // applied while the invoice was read
    }
    return new Promise(resolve => {
      const waiter = { index: settleIndex, done: () => (clearTimeout(timer), waiting.delete(waiter), resolve()) }
      const timer = setTimeout(waiter.done, withinMs)
      waiting.add(waiter)
    })
  }

  /** The last settle index applied. */
  const cursor = async () => (await sql.one<{ value: number }>(texts.readCursor, [cursorName]))?.value ?? 0

  return {
    apply,
    appliedThrough,
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
      const follow = async () => {
        if (stopped) return
        const from = await cursor()
        const after = from > 0 || (await sql.one(texts.hasUnpaid)) !== undefined ? from : 'now'
        if (stopped) return
        let failed = false
        const onFailure = () => {
          if (failed) return
          failed = true
          following?.unsubscribe()
          retry = setTimeout(() => void follow().catch(onStartFailure), retryAfterFailedCreditMs)
        }
        // Credits apply in the node's order, a batch at a time (what arrived while the last one committed): a later
        // one never commits before an earlier one, and after a failure none that follow it runs (the stream starts
        // again from the stored index).
        const pending: SettledInvoice[] = []
        let draining = false
        const drain = async () => {
          if (draining) return
          draining = true
          try {
            while (pending.length > 0 && !failed && !stopped) {
              if (!(await apply(pending.splice(0, batchSize)))) onFailure()
            }
          } finally {
            draining = false
          }
        }
        following = node.settlementsAfter(after).subscribe({
          next: settled => {
            pending.push(settled)
            void drain()
          },
          error: err => log.error({ err }, 'the node settlement stream failed; restart to resume crediting'),
        })
        // A node that replays synchronously may have failed a credit before `following` was assigned.
        if (failed) following.unsubscribe()
      }
      const onStartFailure = (err: unknown) => {
        log.error({ err }, 'the settlement stream could not start; retrying')
        retry = setTimeout(() => void follow().catch(onStartFailure), retryAfterFailedCreditMs)
      }
      void follow().catch(onStartFailure)
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
