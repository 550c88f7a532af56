// What a LightningNode reports of its own past, a window at a time with LND's paging (listPayments, listInvoices,
// listChainTransactions): the operator's assets-and-liabilities view reads it.

/**
 * One window of the node's own Lightning history as LND's reversed listings give it: the `max` items with the
 * highest indexes below `indexOffset` (0: up to the newest), in ascending index order (oldest first) within the window.
 */
export interface HistoryPageRequest {
  indexOffset: number
  max: number
}

export interface HistoryPage<T> {
  /** Every item of the page's window, whatever its state (a caller filters; a full window means more may follow). */
  items: T[]
  /** The index of the oldest item of the window: the offset of the next (older) page. */
  firstIndexOffset: number
}

/** A payment the node made. */
export interface NodePaymentRecord {
  paymentHash: string
  paymentRequest: string
  valueSats: number
  createdAtSeconds: number
  succeeded: boolean
}

/** An invoice the node issued. */
export interface NodeInvoiceRecord {
  paymentHash: string
  paymentRequest: string
  settled: boolean
  /** 0 while unsettled. */
  settledAtSeconds: number
  paidSats: number
}

/**
 * A window of the node's confirmed chain transactions, newest first: from block `startHeight` down to the first
 * block, skipping the `indexOffset` newest. A caller keeps `startHeight` across pages so that new blocks do not shift
 * the offsets.
 */
export interface ChainHistoryRequest {
  startHeight: number
  indexOffset: number
  max: number
}

export interface NodeChainTransaction {
  txHash: string
  /** The wallet's net change, fee included: negative for a send. */
  amountSats: number
  timeStampSeconds: number
  outputs: { address: string; amountSats: number; outputIndex: number; ours: boolean }[]
  /** Whether it spends an output of the node's wallet (the node sent it). */
  spendsOurs: boolean
}

export interface ChainHistoryPage {
  transactions: NodeChainTransaction[]
  /** The offset of the next (older) window: this one's offset plus its length. */
  nextIndexOffset: number
}
