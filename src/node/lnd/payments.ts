// Paying through LND's router (SendPaymentV2) and asking it about past payments (TrackPaymentV2). The one rule
// that matters: `failed` means LND said the payment failed. A refusal LND gives before it starts a payment (an
// expired or already-paid invoice, a wrong amount) throws, because nothing was sent; anything else that leaves
// the outcome unknown (our timeout, a dropped stream, an unrecognised error) answers `in_flight`, and
// trackPayment later reports what LND decided (or `undefined` if LND never started it).
import { EventEmitter } from 'node:events'
import type { Logger } from 'pino'
import { OperationError } from '../../bus/index.js'
import type { PaymentOutcome, PayRequest, Timers } from '../lightning-node.js'
import { amountToPayMsat, checkPayLimits } from '../pay-request-rules.js'
import type { LndInvoiceDesk } from './invoices.js'
import { describeLndFailure, grpcStatus, isLocked, isMacaroonRefused, isStarting, lndError } from './lnd-errors.js'
import type { GrpcChannel } from './grpc-channel.js'
import { decodePaymentUpdate, encodeSendPayment, encodeTrackPayment, failureReason, paymentStatus, type PaymentUpdate } from './rpc-messages.js'

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

/** What the `lightning` package's payment subscriptions emit, from one lnrpc.Payment (its emit_payment.js). */
function emitPayment(payment: PaymentUpdate, to: EventEmitter): void {
  if (payment.status === paymentStatus.succeeded) {
    const event: ConfirmedEvent = {
      id: payment.paymentHash,
      secret: payment.paymentPreimage,
      mtokens: String(payment.valueMsat + payment.feeMsat),
      fee_mtokens: String(payment.feeMsat),
      // The payment settled when its last successful HTLC did.
      confirmed_at: new Date(payment.settledAtMs).toISOString(),
    }
    to.emit('confirmed', event)
  } else if (payment.status === paymentStatus.failed) {
    const reason = payment.failureReason
    const event: FailedEvent = {
      id: payment.paymentHash,
      is_canceled: reason === failureReason.canceled,
      is_insufficient_balance: reason === failureReason.insufficientBalance,
      is_invalid_payment: reason === failureReason.incorrectPaymentDetails,
      is_pathfinding_timeout: reason === failureReason.timeout,
      is_route_not_found: reason === failureReason.noRoute,
    }
    to.emit('failed', event)
  }
}

/** Feature bits the `lightning` package refuses to pay (as it did before relaypay called the router itself). */
const unsupportedFeatureBits = [30, 31]
/** The library's defaults for SendPaymentV2: one path, 25 s of pathfinding. */
const maxParts = 1
const pathfindingTimeoutSeconds = 25
/** LND's words when a payment's CLTV limit cannot be met: no route, as the library reported it. */
const cltvLimitError = /cltv limit \d+ should be greater than \d+/

/**
 * SendPaymentV2 on our gRPC channel (grpc-channel.ts), with the parameters the `lightning` package's subscribeToPay
 * sends. Not through subscribeToPay: it parses the request twice (each parse recovers the signer's key from the
 * signature, ~0.5 ms of CPU) after LND's DecodePayReq has already read it. Returns an emitter of the library's
 * events ('confirmed', 'failed', 'error') that outlives the caller's interest: the stream is read to its end and
 * never cancelled (cancelling a cancelable payment's stream would stop LND's payment loop).
 */
function sendPayment(rpc: GrpcChannel, params: { request: string; paymentHash: string; maxFeeMsat: number; amountMsat?: number }): EventEmitter {
  const events = new EventEmitter()
  const stream = rpc.serverStream('/routerrpc.Router/SendPaymentV2', encodeSendPayment, decodePaymentUpdate, {
    paymentRequest: params.request,
    ...(params.amountMsat !== undefined ? { amountMsat: params.amountMsat } : {}),
    feeLimitMsat: params.maxFeeMsat,
    timeoutSeconds: pathfindingTimeoutSeconds,
    maxParts,
    allowSelfPayment: true,
    cancelable: true,
  })
  stream.on('data', payment => emitPayment(payment, events))
  stream.on('error', err => {
    if (cltvLimitError.test(err?.details ?? '')) return void events.emit('failed', { id: params.paymentHash, is_route_not_found: true })
    if (events.listenerCount('error') > 0) events.emit('error', err)
  })
  return events
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
  // A starting or locked LND, a refused macaroon or a router LND was built without never take the payment in.
  if (isStarting(failure) || isLocked(failure) || isMacaroonRefused(failure) || failure.grpcCode === grpcStatus.unimplemented) {
    return lndError('pay', err)
  }
  // The library's own checks (a 400/501 before the stream opens) and LND's argument checks.
  if (failure.status === 400 || failure.status === 501 || failure.grpcCode === grpcStatus.invalidArgument) {
    return new OperationError(failure.status === 501 ? 'not_implemented' : 'invalid_input', said)
  }
  return undefined
}

export interface LndPaymentsDeps {
  rpc: GrpcChannel
  invoices: LndInvoiceDesk
  timers: Timers
  log?: Logger
}

export function lndPayments({ rpc, invoices, timers, log }: LndPaymentsDeps) {
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
    // routerrpc TrackPaymentV2 on our own channel: its first update is the payment's state now.
    const stream = rpc.serverStream('/routerrpc.Router/TrackPaymentV2', encodeTrackPayment, decodePaymentUpdate, id)
    const sub = new EventEmitter()
    stream.on('data', payment => {
      if (payment.status === paymentStatus.succeeded || payment.status === paymentStatus.failed) emitPayment(payment, sub)
      else sub.emit('paying')
    })
    stream.on('error', err => sub.listenerCount('error') > 0 && sub.emit('error', err))
    stream.on('end', () => sub.emit('end'))
    const inFlight: PaymentOutcome = { status: 'in_flight', paymentHash: id }
    try {
      return await firstAnswer<PaymentOutcome | undefined>(sub, trackAnswerMs, () => inFlight, (answer, fail) => {
        sub.on('confirmed', (event: ConfirmedEvent) => answer(succeeded(event)))
        sub.on('failed', (event: FailedEvent) => answer(failed(event)))
        sub.on('paying', () => answer(inFlight))
        sub.on('end', () => fail(new OperationError('upstream_failed', 'LND ended the payment lookup without a status')))
        sub.on('error', (err: unknown) => {
          // LND answers a hash it never paid with "payment isn't initiated" (status UNKNOWN).
          const failure = describeLndFailure(err)
          if (failure.status === 404 || failure.grpcCode === grpcStatus.notFound || /payment isn't initiated/.test(failure.details ?? '')) answer(undefined)
          else fail(lndError('look up a payment', err))
        })
      })
    } finally {
      // The first answer is all a lookup wants; the stream would otherwise stay open until the payment ends.
      stream.cancel()
    }
  }

  return {
    async pay(request: PayRequest): Promise<PaymentOutcome> {
      checkPayLimits(request)
      const { invoice, featureBits } = await invoices.decodeForPayment(request.paymentRequest)
      const amountMsat = amountToPayMsat(invoice.amountMsat, request.amountMsat)
      const paymentHash = invoice.paymentHash
      const unsupported = featureBits.find(bit => unsupportedFeatureBits.includes(bit))
      if (unsupported !== undefined) {
        throw new OperationError('not_implemented', `UnsupportedPaymentFeatureInPayRequest (feature bit ${unsupported})`)
      }
      const sub = sendPayment(rpc, {
        request: invoice.paymentRequest,
        paymentHash,
        maxFeeMsat: request.maxFeeMsat,
        // LND takes no amount for an invoice that carries one.
        ...(invoice.amountMsat === undefined ? { amountMsat } : {}),
      })
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
