// The fake LND's outgoing payments, as its router's control tower keeps them: one record per payment hash moving
// IN_FLIGHT → SUCCEEDED | FAILED, with one HTLC attempt over one hop, and watchers (SendPaymentV2 and
// TrackPaymentV2 streams) told of every change.
import { randomBytes } from 'node:crypto'
import { lndSays } from './rpc-error.js'

export type PaymentStatus = 'IN_FLIGHT' | 'SUCCEEDED' | 'FAILED'
/** lnrpc.PaymentFailureReason values the fake produces. */
export type FailureReason =
  | 'FAILURE_REASON_NONE'
  | 'FAILURE_REASON_TIMEOUT'
  | 'FAILURE_REASON_NO_ROUTE'
  | 'FAILURE_REASON_ERROR'
  | 'FAILURE_REASON_INCORRECT_PAYMENT_DETAILS'
  | 'FAILURE_REASON_INSUFFICIENT_BALANCE'

export interface FakePayment {
  paymentHash: string
  request: string
  destination: string
  valueMsat: number
  feeMsat: number
  status: PaymentStatus
  preimage: string
  failureReason: FailureReason
  createdNs: bigint
  resolvedNs: bigint
  index: number
  paymentAddr: Buffer
  /** In flight with no HTLC out yet: LND is still looking for a route. */
  pathfinding: boolean
}

export type PaymentListener = (payment: FakePayment) => void

/** The one hop every fake route takes, CLTV included. */
const finalCltvDelta = 80

export function paymentBook({ now, blockHeight }: { now(): number; blockHeight(): number }) {
  const byHash = new Map<string, FakePayment>()
  const listeners = new Map<string, Set<PaymentListener>>()
  let lastIndex = 0

  const nowNs = () => BigInt(now()) * 1_000_000n
  const notify = (payment: FakePayment) => {
    for (const listener of [...(listeners.get(payment.paymentHash) ?? [])]) listener(payment)
  }

  return {
    get(paymentHash: string): FakePayment | undefined {
      return byHash.get(paymentHash)
    },

    inFlight(): FakePayment[] {
      return [...byHash.values()].filter(p => p.status === 'IN_FLIGHT')
    },

    /** Records a new attempt; LND's control tower refuses a hash that succeeded or is still in flight. */
    start(fields: Pick<FakePayment, 'paymentHash' | 'request' | 'destination' | 'valueMsat' | 'feeMsat' | 'paymentAddr'> & { pathfinding?: boolean }) {
      const previous = byHash.get(fields.paymentHash)
      if (previous?.status === 'SUCCEEDED') throw lndSays('invoice is already paid')
      if (previous?.status === 'IN_FLIGHT') throw lndSays('payment is in transition')
      const payment: FakePayment = {
        pathfinding: false,
        ...fields,
        status: 'IN_FLIGHT',
        preimage: '',
        failureReason: 'FAILURE_REASON_NONE',
        createdNs: nowNs(),
        resolvedNs: 0n,
        index: ++lastIndex,
      }
      byHash.set(payment.paymentHash, payment)
      return payment
    },

    succeed(paymentHash: string, preimage: string): void {
      const payment = byHash.get(paymentHash)
      if (!payment || payment.status !== 'IN_FLIGHT') throw new Error(`no payment ${paymentHash} in flight`)
      // A payment that succeeds found a route: its HTLC went out.
      Object.assign(payment, { status: 'SUCCEEDED', preimage, resolvedNs: nowNs(), pathfinding: false })
      notify(payment)
    },

    fail(paymentHash: string, failureReason: FailureReason): void {
      const payment = byHash.get(paymentHash)
      if (!payment || payment.status !== 'IN_FLIGHT') throw new Error(`no payment ${paymentHash} in flight`)
      Object.assign(payment, { status: 'FAILED', failureReason, resolvedNs: nowNs() })
      notify(payment)
    },

    watch(paymentHash: string, listener: PaymentListener): () => void {
      const set = listeners.get(paymentHash) ?? new Set()
      set.add(listener)
      listeners.set(paymentHash, set)
      return () => set.delete(listener)
    },

    /** lnrpc.Payment as the router streams it. */
    asRpc(payment: FakePayment) {
      const totalMsat = payment.valueMsat + payment.feeMsat
      const route = {
        total_time_lock: blockHeight() + finalCltvDelta,
        total_fees: Math.floor(payment.feeMsat / 1000),
        total_amt: Math.floor(totalMsat / 1000),
        hops: [
          {
            chan_id: '1',
            chan_capacity: 1_000_000,
            amt_to_forward: Math.floor(payment.valueMsat / 1000),
            fee: Math.floor(payment.feeMsat / 1000),
            expiry: blockHeight() + finalCltvDelta,
            amt_to_forward_msat: payment.valueMsat,
            fee_msat: payment.feeMsat,
            pub_key: payment.destination,
            tlv_payload: true,
            mpp_record: { payment_addr: payment.paymentAddr, total_amt_msat: payment.valueMsat },
            custom_records: {},
          },
        ],
        total_fees_msat: payment.feeMsat,
        total_amt_msat: totalMsat,
      }
      return {
        payment_hash: payment.paymentHash,
        value: Math.floor(payment.valueMsat / 1000),
        creation_date: Number(payment.createdNs / 1_000_000_000n),
        fee: Math.floor(payment.feeMsat / 1000),
        payment_preimage: payment.preimage || '0'.repeat(64),
        value_sat: Math.floor(payment.valueMsat / 1000),
        value_msat: payment.valueMsat,
        payment_request: payment.request,
        status: payment.status,
        fee_sat: Math.floor(payment.feeMsat / 1000),
        fee_msat: payment.feeMsat,
        creation_time_ns: payment.createdNs.toString(),
        // A payment that found no route, or is still looking for one, has sent no HTLC.
        htlcs: payment.pathfinding || payment.failureReason === 'FAILURE_REASON_NO_ROUTE' ? [] : [
          {
            attempt_id: payment.index,
            status: payment.status,
            route,
            attempt_time_ns: payment.createdNs.toString(),
            resolve_time_ns: payment.resolvedNs.toString(),
            preimage: Buffer.from(payment.preimage, 'hex'),
          },
        ],
        payment_index: payment.index,
        failure_reason: payment.failureReason,
      }
    },
  }
}

export type PaymentBook = ReturnType<typeof paymentBook>

/** A preimage for tests that resolve a payment to another node as succeeded. */
export function randomPreimage(): string {
  return randomBytes(32).toString('hex')
}
