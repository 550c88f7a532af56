// The embedded node's record of what it did, a window at a time, with LND's paging: payments and invoices by their
// row number (the order they were made, like LND's add and payment indexes), newest window first and ascending
// within it; chain transactions newest first from a height down, skipping an offset.
import type { Clock } from '../../bus/index.js'
import type { Db } from '../../store/index.js'
import type {
  ChainHistoryPage,
  ChainHistoryRequest,
  HistoryPage,
  HistoryPageRequest,
  NodeInvoiceRecord,
  NodePaymentRecord,
} from '../node-history.js'
import { msatAsSats, unixSeconds } from '../../units/index.js'
import { blockHeightAt, type ChainTxKind } from './chain-wallet.js'

// LND's index offsets are exclusive and 0 means "from the newest"; the rowid is the index.
const newestBelow = (table: string, columns: string, where: string) =>
  `SELECT rowid AS idx, ${columns} FROM ${table}
    WHERE ${where} AND (@indexOffset = 0 OR rowid < @indexOffset) ORDER BY rowid DESC LIMIT @max`

/** A window in LND's order (ascending), with the index of its oldest item as the next offset. */
function windowOf<Row extends { idx: number }, T>(rows: Row[], map: (row: Row) => T): HistoryPage<T> {
  const ascending = rows.reverse()
  return { items: ascending.map(map), firstIndexOffset: ascending[0]?.idx ?? 0 }
}

interface PaymentRow {
  idx: number
  payment_hash: string
  payment_request: string
  amount_msat: number
  created_at: number
}

interface InvoiceRow {
  idx: number
  payment_hash: string
  payment_request: string
  settled_at: number | null
  received_msat: number | null
}

interface ChainRow {
  txid: string
  kind: ChainTxKind
  delta_sats: number
  fee_sats: number
  address: string | null
  created_at: number
}

export function nodeHistory({ db, clock }: { db: Db; clock: Clock }) {
  const payments = db.prepare(
    newestBelow('node_payments', 'payment_hash, payment_request, amount_msat, created_at', "status = 'succeeded'"),
  )
  const invoices = db.prepare(newestBelow('node_invoices', 'payment_hash, payment_request, settled_at, received_msat', '1 = 1'))
  // A transaction made in block h is mined in block h + 1, once the simulated chain has reached it.
  const chainTxs = db.prepare(`SELECT txid, kind, delta_sats, fee_sats, address, created_at FROM node_chain_txs
      WHERE broadcast_height + 1 <= @startHeight AND broadcast_height < @tip
      ORDER BY broadcast_height DESC, rowid DESC LIMIT @max OFFSET @indexOffset`)

  return {
    listPayments(request: HistoryPageRequest): HistoryPage<NodePaymentRecord> {
      return windowOf(payments.all(request) as PaymentRow[], row => ({
        paymentHash: row.payment_hash,
        paymentRequest: row.payment_request,
        valueSats: msatAsSats(row.amount_msat),
        createdAtSeconds: unixSeconds(row.created_at),
        succeeded: true,
      }))
    },

    listInvoices(request: HistoryPageRequest): HistoryPage<NodeInvoiceRecord> {
      return windowOf(invoices.all(request) as InvoiceRow[], row => ({
        paymentHash: row.payment_hash,
        paymentRequest: row.payment_request,
        settled: row.settled_at !== null,
        settledAtSeconds: row.settled_at === null ? 0 : unixSeconds(row.settled_at),
        paidSats: msatAsSats(row.received_msat ?? 0),
      }))
    },

    listChainTransactions(request: ChainHistoryRequest): ChainHistoryPage {
      const rows = chainTxs.all({ ...request, tip: blockHeightAt(clock.now()) }) as ChainRow[]
      return {
        transactions: rows.map(row => {
          const spends = row.kind === 'send' || row.kind === 'channel_open'
          // The simulated chain keeps one output a transaction: what it paid out, or what the wallet received.
          const paidOut = spends ? -row.delta_sats - row.fee_sats : row.delta_sats
          return {
            txHash: row.txid,
            amountSats: row.delta_sats,
            timeStampSeconds: unixSeconds(row.created_at),
            outputs: row.address === null && spends
              ? []
              : [{ address: row.address ?? '', amountSats: paidOut, outputIndex: 0, ours: !spends }],
            spendsOurs: spends,
          }
        }),
        nextIndexOffset: request.indexOffset + rows.length,
      }
    },
  }
}
