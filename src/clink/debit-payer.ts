// Paying an invoice for a debit. The grant's rules are checked by a spend limit that runs inside the wallet's
// payment transaction (debit-budget.ts), so concurrent debits never exceed the budget together. A payment whose outcome the node does not know yet is answered when it resolves, also after
// a restart (the payments table says how it ended; clink_debit_payments says whether the requester heard).
import type { Logger } from 'pino'
import { filter, type Observable, type Subscription, type DomainEvent } from '../bus/index.js'
import { BoundedSet, doublingDelayMs } from '../limits/index.js'
import { isStoreFault } from '../store/index.js'
import type { Wallet } from '../wallet/index.js'
import type { ClinkSender } from './wire.js'
import { clinkDebitKind } from './wire.js'
import { DebitRefusal, gfyFor, ok, type DebitAnswer } from './debit-answers.js'
import { gfy } from './gfy.js'
import { debitSpendLimit, type DebitCharge } from './debit-budget.js'
import type { DebitPaymentRow, DebitStore } from './debit-store.js'
import type { DebitLimitStore } from './debit-limit-store.js'

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
  /** What the spend limit reads and writes inside the wallet's payment transaction. */
  limitStore: DebitLimitStore
  wallet: Wallet
  events$: Observable<DomainEvent>
  outbox(): ClinkSender | undefined
  now(): number
  log: Logger
}

export function debitPayer({ store, limitStore, wallet, events$, outbox, now: clockNow, log }: DebitPayerDeps) {
  /** The answer for a payment the node has resolved, or undefined while it is pending. */
  const resolvedAnswer = async (paymentHash: string): Promise<DebitAnswer | undefined> => {
    const payment = await wallet.paymentByHash(paymentHash)
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

  /**
   * Requests this run answered unasked (answerLate). After a restart the relay may deliver a stopped run's request
   * again only once its payment has resolved and been answered here; `resume` then finds it 'answered' exactly as if
   * the stopped run had answered it in the books but died before sending, and must not send it a second time. The
   * replay comes within moments of the start, so the newest ten thousand are plenty.
   */
  const answeredLate = new BoundedSet<string>(10_000)

  /** Answers a payment that resolved after its run gave up waiting, exactly once (the guarded move decides). */
  const answerLate = async (row: DebitPaymentRow) => {
    if (row.answer !== 'awaiting' || !outbox()) return
    const answer = await resolvedAnswer(row.payment_hash)
    if (!answer || !(await store.moveAnswer(row.payment_hash, 'awaiting', 'answered'))) return
    answeredLate.add(row.request_id)
    send(row, answer)
  }

  /**
   * What a payment that threw after it was recorded (`hash`) comes to: paid or refused now, or 'later' while the node
   * has not said (then answerLate answers). No row: its transaction never committed, nothing was paid.
   */
  const afterThrow = async (hash: string, err: unknown): Promise<DebitPaid> => {
    if (!(await store.debitPayment(hash))) return { status: 'refused', answer: gfyFor(err), error: err }
    const late = await resolvedAnswer(hash)
    if (!late && (await store.moveAnswer(hash, 'paying', 'awaiting'))) {
      // It may have resolved between the throw and the move; then nobody else will answer it.
      const row = (await store.debitPayment(hash))!
      const now = await resolvedAnswer(hash)
      if (now && (await store.moveAnswer(hash, 'awaiting', 'answered'))) {
        return now.res === 'ok' ? { status: 'paid', answer: now } : { status: 'refused', answer: now, error: err }
      }
      log.info({ requestId: row.request_id, paymentHash: hash }, 'debit payment in flight: answered when the node resolves it')
      return { status: 'later' }
    }
    await store.moveAnswer(hash, 'paying', 'answered')
    // Paid, and the fault came after (recording the answer, say): the requester hears that it was paid.
    if (late?.res === 'ok') return { status: 'paid', answer: late }
    return { status: 'refused', answer: gfyFor(err), error: err }
  }

  /** Retries after a database fault: 1 s doubling to 30 s, for about five minutes; stopped with the room. */
  const retries = new Set<NodeJS.Timeout>()
  const answerWhenReadable = (p: DebitPayment, hash: string, attempt = 1) => {
    const timer = setTimeout(() => {
      retries.delete(timer)
      void (async () => {
        const row = await store.debitPayment(hash)
        if (!row) {
          // Its transaction never committed: nothing was paid, and the requester has heard nothing yet.
          send({ app_id: p.appId, requester: p.requester, request_id: p.requestId }, gfy(2))
          return
        }
        // 'awaiting' or 'answered': the sweep or another run has it.
        if (row.answer !== 'paying' || !(await store.moveAnswer(hash, 'paying', 'awaiting'))) return
        await answerLate({ ...row, answer: 'awaiting' })
      })().catch(err => {
        if (isStoreFault(err) && attempt < 10) return answerWhenReadable(p, hash, attempt + 1)
        log.error({ err, requestId: p.requestId, paymentHash: hash }, 'could not learn how a debit payment ended; it is answered at the next start')
      })
    }, doublingDelayMs(attempt - 1, 1000, 30_000))
    retries.add(timer)
  }

  let resolutions: Subscription | undefined
  return {
    async pay(p: DebitPayment): Promise<DebitPaid> {
      let hash: string | undefined
      try {
        const paid = await wallet.payInvoiceFor(p.userId, p.invoice, { spendLimit: debitSpendLimit(limitStore, p, h => (hash = h)) })
        await store.moveAnswer(paid.paymentHash, 'paying', 'answered')
        return { status: 'paid', answer: ok(paid.preimage ?? '') }
      } catch (err) {
        // Only while the grant is still the expired one: a grant the user gave meanwhile stays.
        if (err instanceof DebitRefusal && err.reason === 'expired') await store.resetExpired(p.userId, p.requester, clockNow())
        if (hash === undefined) return { status: 'refused', answer: gfyFor(err), error: err }
        try {
          return await afterThrow(hash, err)
        } catch (lookupError) {
          // The database failed while this run learned how the payment stands: the requester is answered once the
          // books can be read (answerWhenReadable), never now with a "Temporary Failure" that may be followed by
          // how the payment really ended.
          if (!isStoreFault(lookupError)) throw lookupError
          log.warn({ requestId: p.requestId, paymentHash: hash, err: { message: (lookupError as Error).message } }, 'the database failed while a debit payment was read: its requester is answered once it can be')
          answerWhenReadable(p, hash)
          return { status: 'later' }
        }
      }
    },

    /**
     * A request whose run stopped (a crash): how its payment ended, 'later' while the node has not said (answered
     * then) or when the request is parked, undefined when nothing was paid for it.
     */
    async resume(requestId: string): Promise<DebitAnswer | 'later' | undefined> {
      if (await store.isParked(requestId)) return 'later'
      const row = await store.paymentForRequest(requestId)
      if (!row) return undefined
      const answer = await resolvedAnswer(row.payment_hash)
      if (!answer) {
        await store.moveAnswer(row.payment_hash, 'paying', 'awaiting')
        return 'later'
      }
      // Awaiting: the answer is this run's to send unless the sweep sent it first.
      if (row.answer === 'awaiting') return (await store.moveAnswer(row.payment_hash, 'awaiting', 'answered')) ? answer : 'later'
      // Answered unasked by this run already: nothing more to say.
      if (row.answer === 'answered' && answeredLate.has(requestId)) return 'later'
      // Answered by a run that stopped before the transport sent it: sent (again) now.
      await store.moveAnswer(row.payment_hash, 'paying', 'answered')
      return answer
    },

    /**
     * Follows payment outcomes; answers what resolved while the relays were down once they are up (`ready`). Before
     * any payment of this run is made: payments still `paying` are a stopped run's.
     */
    async start(): Promise<void> {
      await store.adoptInterruptedRuns()
      // An internal payment settles in the transaction that debits it, so its request is answered by the call that
      // paid (or by afterThrow, which finds it settled): it never waits here, and the lookup is skipped.
      resolutions = events$
        .pipe(filter(event => (event.type === 'payment.settled' && !event.internal) || event.type === 'payment.failed'))
        .subscribe(event => {
          const hash = (event as { paymentHash: string }).paymentHash
          store
            .debitPayment(hash)
            .then(row => row && answerLate(row))
            .catch(err => log.error({ err }, 'answering a resolved debit payment failed'))
        })
    },
    /** The relays are up: answers held back go out. */
    async ready(): Promise<void> {
      for (const row of await store.unansweredPayments()) await answerLate(row)
    },
    stop(): void {
      resolutions?.unsubscribe()
      for (const timer of retries) clearTimeout(timer)
      retries.clear()
    },
  }
}

export type DebitPayer = ReturnType<typeof debitPayer>
