// Paying through LND's router (SendPaymentV2) and asking it about past payments (TrackPaymentV2). The one rule
// that matters: `failed` means LND said the payment failed. A refusal LND gives before it starts a payment (an
// expired or already-paid invoice, a wrong amount) throws, because nothing was sent; anything else that leaves
// the outcome unknown (our timeout, a dropped stream, an unrecognised error) answers `in_flight`, and
// trackPayment later reports what LND decided (or `undefined` if LND never started it).
import type { EventEmitter } from 'node:events'
import type { Logger } from 'pino'
import { subscribeToPastPayment, subscribeToPayViaRequest, type AuthenticatedLnd } from 'lightning'
import { OperationError } from '../../bus/index.js'
import type { PaymentOutcome, PayRequest, Timers } from '../lightning-node.js'
import type { LndInvoiceDesk } from './invoices.js'
import { describeLndFailure, grpcStatus, isLocked, isMacaroonRefused, lndError } from './lnd-errors.js'

/** How long trackPayment waits for LND's first word on a payment before calling it in flight. */
const trackAnswerMs = 10_000

interface ConfirmedEvent {
  id: string
  secret: string
  mtokens: string
  fee_mtokens: string
  confirmed_at: string
}

interface FailedEvent {
  id: string
  is_canceled?: boolean
  is_insufficient_balance?: boolean
  is_invalid_payment?: boolean
  is_pathfinding_timeout?: boolean
  is_route_not_found?: boolean
}

function succeeded(event: ConfirmedEvent): PaymentOutcome {
  const feeMsat = BigInt(event.fee_mtokens)
  return {
    status: 'succeeded',
    paymentHash: event.id,
    // The library's `mtokens` is what left the node: the amount plus the routing fee.
    amountMsat: Number(BigInt(event.mtokens) - feeMsat),
    feeMsat: Number(feeMsat),
    preimage: event.secret,
    settledAt: Date.parse(event.confirmed_at),
  }
}

/** LND's payment failure reasons (lnrpc.PaymentFailureReason) in words. */
function failed(event: FailedEvent): PaymentOutcome {
  const failureReason = event.is_route_not_found
    ? 'no route found'
    : event.is_insufficient_balance
      ? 'insufficient local balance'
      : event.is_invalid_payment
        ? 'incorrect payment details'
        : event.is_pathfinding_timeout
          ? 'payment timed out'
          : event.is_canceled
            ? 'payment canceled'
            : 'payment failed'
  return { status: 'failed', paymentHash: event.id, failureReason }
}

/** LND's refusals that come before any HTLC leaves (routerrpc SendPaymentV2 and its payment checks). */
const refusals: readonly { when: RegExp; code: OperationError['code']; message?: string }[] = [
  { when: /already paid/, code: 'conflict', message: 'invoice is already paid' },
  { when: /in transition|already in flight/, code: 'conflict', message: 'payment is in transition' },
  { when: /expired/, code: 'invalid_input', message: 'invoice expired' },
  { when: /amount must|not for current active network|invalid payment request|self-payment/, code: 'invalid_input' },
]

/** The OperationError for a refusal that provably sent nothing; undefined when the outcome is unknown. */
function refusalOf(err: unknown): OperationError | undefined {
  const failure = describeLndFailure(err)
  const said = failure.details ?? failure.name
  for (const refusal of refusals) {
    if (refusal.when.test(said)) return new OperationError(refusal.code, refusal.message ?? said)
  }
  // A locked LND, a refused macaroon or a router LND was built without never take the payment in.
  if (isLocked(failure) || isMacaroonRefused(failure) || failure.grpcCode === grpcStatus.unimplemented) {
    return lndError('pay', err)
  }
  // The library's own checks (a 400/501 before the stream opens) and LND's argument checks.
  if (failure.status === 400 || failure.status === 501 || failure.grpcCode === grpcStatus.invalidArgument) {
    return new OperationError(failure.status === 501 ? 'not_implemented' : 'invalid_input', said)
  }
  return undefined
}

/** The amount a payment carries, with LND's rules and words (lnrpc.SendPaymentV2). */
function amountToSendMsat(invoiceAmountMsat: number | undefined, requestedMsat: number | undefined): number | undefined {
  if (requestedMsat !== undefined && (!Number.isSafeInteger(requestedMsat) || requestedMsat < 0)) {
    throw new OperationError('invalid_input', 'amount must be a non-negative integer number of msat')
  }
  if (invoiceAmountMsat === undefined) {
    if (!requestedMsat) {
      throw new OperationError('invalid_input', 'amount must be specified when paying a zero amount invoice')
    }
    return requestedMsat
  }
  // Restating the invoice's own amount is tolerated here; LND would refuse any amount on such an invoice.
  if (requestedMsat && requestedMsat !== invoiceAmountMsat) {
    throw new OperationError('invalid_input', 'amount must not be specified when paying a non-zero amount invoice')
  }
  return undefined
}

export interface LndPaymentsDeps {
  lnd: AuthenticatedLnd
  invoices: LndInvoiceDesk
  timers: Timers
  log?: Logger
}

export function lndPayments({ lnd, invoices, timers, log }: LndPaymentsDeps) {
  // Callers still waiting when the node closes are told `in_flight`; LND goes on with the payment regardless.
  const waiting = new Set<() => void>()

  /** Resolves once with the first answer; stops listening and cancels the timer either way. */
  const firstAnswer = <T>(
    sub: EventEmitter,
    timeoutMs: number,
    onTimeout: () => T,
    wire: (answer: (value: T) => void, fail: (err: unknown) => void) => void,
  ): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      let done = false
      const finish = (fn: () => void) => {
        if (done) return
        done = true
        cancelTimer()
        waiting.delete(giveUp)
        sub.removeAllListeners()
        fn()
      }
      const giveUp = () => finish(() => resolve(onTimeout()))
      const cancelTimer = timers.after(timeoutMs, giveUp)
      waiting.add(giveUp)
      wire(
        value => finish(() => resolve(value)),
        err => finish(() => reject(err)),
      )
    })

  const track = async (paymentHash: string): Promise<PaymentOutcome | undefined> => {
    if (!/^[0-9a-fA-F]{64}$/.test(paymentHash)) return undefined
    const id = paymentHash.toLowerCase()
    const sub = subscribeToPastPayment({ lnd, id })
    const inFlight: PaymentOutcome = { status: 'in_flight', paymentHash: id }
    return firstAnswer<PaymentOutcome | undefined>(sub, trackAnswerMs, () => inFlight, (answer, fail) => {
      sub.on('confirmed', (event: ConfirmedEvent) => answer(succeeded(event)))
      sub.on('failed', (event: FailedEvent) => answer(failed(event)))
      sub.on('paying', () => answer(inFlight))
      sub.on('end', () => fail(new OperationError('upstream_failed', 'LND ended the payment lookup without a status')))
      sub.on('error', (err: unknown) => {
        // LND: "payment isn't initiated", which the library reports as 404 SentPaymentNotFound.
        const failure = describeLndFailure(err)
        if (failure.status === 404 || failure.grpcCode === grpcStatus.notFound) answer(undefined)
        else fail(lndError('look up a payment', err))
      })
    })
  }

  return {
    async pay(request: PayRequest): Promise<PaymentOutcome> {
      if (!Number.isSafeInteger(request.maxFeeMsat) || request.maxFeeMsat < 0) {
        throw new OperationError('invalid_input', 'maxFeeMsat must be a non-negative integer')
      }
      if (!Number.isSafeInteger(request.timeoutMs) || request.timeoutMs <= 0) {
        throw new OperationError('invalid_input', 'timeoutMs must be a positive integer')
      }
      const invoice = await invoices.decode(request.paymentRequest)
      const amountMsat = amountToSendMsat(invoice.amountMsat, request.amountMsat)
      const paymentHash = invoice.paymentHash
      let sub: EventEmitter
      try {
        sub = subscribeToPayViaRequest({
          lnd,
          request: invoice.paymentRequest,
          max_fee_mtokens: String(request.maxFeeMsat),
          ...(amountMsat !== undefined ? { mtokens: String(amountMsat) } : {}),
        })
      } catch (err) {
        // The library parses the request itself before anything is sent.
        throw new OperationError('invalid_input', `invalid payment request: ${describeLndFailure(err).name}`)
      }
      const inFlight: PaymentOutcome = { status: 'in_flight', paymentHash }
      return firstAnswer<PaymentOutcome>(sub, request.timeoutMs, () => inFlight, (answer, fail) => {
        sub.on('confirmed', (event: ConfirmedEvent) => answer(succeeded(event)))
        sub.on('failed', (event: FailedEvent) => answer(failed(event)))
        sub.on('error', (err: unknown) => {
          const refusal = refusalOf(err)
          if (refusal) return fail(refusal)
          // The stream broke, or LND said something we cannot place: LND may still be paying.
          log?.warn({ paymentHash, failure: describeLndFailure(err) }, 'payment outcome unknown; reporting it in flight')
          answer(inFlight)
        })
      })
    },

    track,

    /** Callers still waiting are told `in_flight`. */
    close(): void {
      for (const giveUp of [...waiting]) giveUp()
    },
  }
}
