// Paying an invoice for a debit. The grant's rules are checked by a spend limit that runs inside the wallet's
// payment transaction (debit-budget.ts), so concurrent debits never exceed the budget together. A payment whose outcome the node does not know yet is answered when it resolves, also after
// a restart (the payments table says how it ended; clink_debit_payments says whether the requester heard).
import type { Logger } from 'pino'
import { filter, type Observable, type Subscription, type DomainEvent } from '../bus/index.js'
import type { Wallet } from '../wallet/index.js'
import type { ClinkSender } from './wire.js'
import { clinkDebitKind } from './wire.js'
import { DebitRefusal, gfy, gfyFor, ok, type DebitAnswer } from './debit-answers.js'
import { debitSpendLimit, type DebitCharge } from './debit-budget.js'
import type { DebitPaymentRow, DebitStore } from './debit-store.js'

export interface DebitPayment extends DebitCharge {
  invoice: string
}

export type DebitPaid =
  | { status: 'paid'; answer: DebitAnswer }
  /** The node has not said yet: the requester is answered when it does. */
  | { status: 'later' }
  | { status: 'refused'; answer: DebitAnswer; error: unknown }

export interface DebitPayerDeps {
  store: DebitStore
  wallet: Wallet
  events$: Observable<DomainEvent>
  outbox(): ClinkSender | undefined
  log: Logger
}

export function debitPayer({ store, wallet, events$, outbox, log }: DebitPayerDeps) {
  /** The answer for a payment the node has resolved, or undefined while it is pending. */
  const resolvedAnswer = (paymentHash: string): DebitAnswer | undefined => {
    const payment = wallet.paymentByHash(paymentHash)
    if (!payment || payment.status === 'pending') return undefined
    return payment.status === 'succeeded' ? ok(payment.preimage ?? '') : gfy(2)
  }

  const send = (row: Pick<DebitPaymentRow, 'app_id' | 'requester' | 'request_id'>, answer: DebitAnswer): boolean => {
    const box = outbox()
    if (!box) return false
    if (!box.send({ appId: row.app_id, to: row.requester, kind: clinkDebitKind, replyTo: row.request_id, payload: answer })) {
      log.warn({ requestId: row.request_id }, 'a debit answer was not sent: its app no longer exists')
    }
    return true
  }

  /** Answers a payment that resolved after its run gave up waiting, exactly once. */
  const answerLate = (row: DebitPaymentRow) => {
    if (row.answer !== 'awaiting' || !outbox()) return
    const answer = resolvedAnswer(row.payment_hash)
    if (!answer || !store.moveAnswer(row.payment_hash, 'awaiting', 'answered')) return
    send(row, answer)
  }

  let resolutions: Subscription | undefined
  return {
    async pay(p: DebitPayment): Promise<DebitPaid> {
      let hash: string | undefined
      try {
        const paid = await wallet.payInvoiceFor(p.userId, p.invoice, { spendLimit: debitSpendLimit(store, p, h => (hash = h)) })
        store.moveAnswer(paid.paymentHash, 'paying', 'answered')
        return { status: 'paid', answer: ok(paid.preimage ?? '') }
      } catch (err) {
        if (err instanceof DebitRefusal && err.reason === 'expired') store.reset(p.userId, p.requester)
        if (hash !== undefined && store.debitPayment(hash)) {
          const late = resolvedAnswer(hash)
          if (!late && store.moveAnswer(hash, 'paying', 'awaiting')) {
            // It may have resolved between the throw and the move; then nobody else will answer it.
            const row = store.debitPayment(hash)!
            const now = resolvedAnswer(hash)
            if (now && store.moveAnswer(hash, 'awaiting', 'answered')) {
              return now.res === 'ok' ? { status: 'paid', answer: now } : { status: 'refused', answer: now, error: err }
            }
            log.info({ requestId: row.request_id, paymentHash: hash }, 'debit payment in flight: answered when the node resolves it')
            return { status: 'later' }
          }
          store.moveAnswer(hash, 'paying', 'answered')
        }
        return { status: 'refused', answer: gfyFor(err), error: err }
      }
    },

    /**
     * A request whose run stopped (a crash): how its payment ended, 'later' while the node has not said (answered
     * then) or when the request is parked, undefined when nothing was paid for it.
     */
    resume(requestId: string): DebitAnswer | 'later' | undefined {
      if (store.isParked(requestId)) return 'later'
      const row = store.paymentForRequest(requestId)
      if (!row) return undefined
      const answer = resolvedAnswer(row.payment_hash)
      if (!answer) {
        store.moveAnswer(row.payment_hash, 'paying', 'awaiting')
        return 'later'
      }
      // Awaiting: the answer is this run's to send unless the sweep sent it first.
      if (row.answer === 'awaiting') return store.moveAnswer(row.payment_hash, 'awaiting', 'answered') ? answer : 'later'
      // Answered by a run that stopped before the transport sent it: sent (again) now.
      store.moveAnswer(row.payment_hash, 'paying', 'answered')
      return answer
    },

    /** Follows payment outcomes; answers what resolved while the relays were down once they are up (`ready`). */
    start(): void {
      store.adoptInterruptedRuns()
      resolutions = events$
        .pipe(filter(event => event.type === 'payment.settled' || event.type === 'payment.failed'))
        .subscribe(event => {
          try {
            const row = store.debitPayment((event as { paymentHash: string }).paymentHash)
            if (row) answerLate(row)
          } catch (err) {
            log.error({ err }, 'answering a resolved debit payment failed')
          }
        })
    },
    /** The relays are up: answers held back go out. */
    ready(): void {
      for (const row of store.unansweredPayments()) answerLate(row)
    },
    stop(): void {
      resolutions?.unsubscribe()
    },
  }
}

export type DebitPayer = ReturnType<typeof debitPayer>
