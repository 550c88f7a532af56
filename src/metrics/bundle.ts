// Bundle metrics: time series of money movements and balances. Movements are
// keyed `<action>_<from>_<used>[_meta][_failed]`; balance points are written only when the value changed.
// Amounts are whole sats, as upstream records them.
import type { DomainEvent, Clock } from '../bus/index.js'
import { encodeBundleSample } from './records.js'
import type { TlvFileStore } from './tlv-file-store.js'
import { msatAsSats, unixSeconds } from '../units/index.js'

/** Upstream's app id for series that belong to no application. */
export const rootApp = '_root'

export type TxAction =
  | 'addedInvoice'
  | 'invoiceWasPaid'
  | 'paidAnInvoice'
  | 'addedAddress'
  | 'addressWasPaid'
  | 'paidAnAddress'
  | 'user2user'
export type TxFrom = 'user' | 'system'
export type TxUsed = 'lnd' | 'internal' | 'provider'

export function txSeriesKey(
  action: TxAction,
  from: TxFrom,
  used: TxUsed,
  opts: { meta?: string[]; failed?: boolean } = {},
): string {
  return [action, from, used, ...(opts.meta ?? []), ...(opts.failed ? ['failed'] : [])].join('_')
}

export interface BundleRecorder {
  /** Appends one sample; with `onlyChanges`, a value equal to the series' previous one is skipped. */
  add(app: string, series: string, value: number, opts?: { onlyChanges?: boolean }): void
  /** Turns a domain event into its movement sample, if it is one. */
  onEvent(event: DomainEvent): void
}

export function createBundleRecorder(store: TlvFileStore, clock: Clock): BundleRecorder {
  const previous = new Map<string, number>()
  const via = (internal: boolean): TxUsed => (internal ? 'internal' : 'lnd')

  function add(app: string, series: string, value: number, opts: { onlyChanges?: boolean } = {}) {
    const key = `${app}/${series}`
    if (opts.onlyChanges && previous.get(key) === value) return
    previous.set(key, value)
    store.append(app, series, encodeBundleSample(unixSeconds(clock.now()), value))
  }

  return {
    add,
    onEvent(event) {
      switch (event.type) {
        case 'invoice.paid':
          return add(rootApp, txSeriesKey('invoiceWasPaid', 'user', via(event.internal)), msatAsSats(event.amountMsat))
        case 'payment.settled':
          return add(rootApp, txSeriesKey('paidAnInvoice', 'user', via(event.internal)), msatAsSats(event.amountMsat))
        case 'payment.failed':
          return add(rootApp, txSeriesKey('paidAnInvoice', 'user', 'lnd', { failed: true }), msatAsSats(event.amountMsat))
        case 'user.operation':
          return onUserOperation(event.operation)
        default:
          return
      }
    },
  }

  /**
   * Invoice movements have their own events (above); a live user operation adds the moves that have none:
   * wallet-to-wallet transfers (counted once, on the sending side) and on-chain sends and receipts.
   */
  function onUserOperation(operation: Record<string, unknown>) {
    const amount = typeof operation.amount === 'number' ? operation.amount : undefined
    if (amount === undefined) return
    const used = via(operation.internal === true)
    switch (operation.type) {
      case 'OUTGOING_USER_TO_USER':
        return add(rootApp, txSeriesKey('user2user', 'user', 'internal'), amount)
      case 'INCOMING_TX':
        return add(rootApp, txSeriesKey('addressWasPaid', 'user', used), amount)
      case 'OUTGOING_TX':
        return add(rootApp, txSeriesKey('paidAnAddress', 'user', used), amount)
      default:
        return
    }
  }
}
